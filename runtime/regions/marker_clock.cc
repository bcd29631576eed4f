#include "runtime/regions/marker_clock.h"

#include <atomic>
#include <cmath>
#include <optional>

#include "runtime/machine/kernel_files.h"

namespace td {
namespace {

std::atomic<int> g_clock{static_cast<int>(MarkerClock::kMonotonic)};
// The start-up reference (kTsc only); written before any thread records.
std::atomic<int64_t> g_origin_ticks{0};
std::atomic<int64_t> g_origin_ns{0};

// Both clocks read back to back; of a few tries, the one whose TSC bracket
// around clock_gettime is narrowest (a try interrupted in between is wide).
ClockReference ReadReference() {
  ClockReference best;
  int64_t best_width = INT64_MAX;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const int64_t before = TscTicks();
    const int64_t ns = MonotonicNs();
    const int64_t after = TscTicks();
    if (after - before < best_width) {
      best_width = after - before;
      best = ClockReference{before + (after - before) / 2, ns};
    }
  }
  return best;
}

}  // namespace

MarkerClock ChooseMarkerClock(bool allow_tsc, std::string* why_not) {
  MarkerClock chosen = MarkerClock::kMonotonic;
#if defined(__x86_64__)
  if (allow_tsc) {
    const std::optional<std::string> source =
        ReadFirstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    if (source == "tsc") {
      chosen = MarkerClock::kTsc;
    } else if (why_not != nullptr) {
      *why_not = source ? "the kernel's clocksource is " + *source + ", not tsc" : "the kernel's clocksource is unknown";
    }
  }
#else
  if (allow_tsc && why_not != nullptr) *why_not = "no TSC on this architecture";
#endif
  if (chosen == MarkerClock::kTsc) {
    const ClockReference origin = ReadReference();
    g_origin_ticks.store(origin.ticks, std::memory_order_relaxed);
    g_origin_ns.store(origin.monotonic_ns, std::memory_order_relaxed);
  }
  g_clock.store(static_cast<int>(chosen), std::memory_order_release);
  return chosen;
}

MarkerClock ProcessMarkerClock() { return static_cast<MarkerClock>(g_clock.load(std::memory_order_acquire)); }

const char* MarkerClockName(MarkerClock clock) { return clock == MarkerClock::kTsc ? "tsc" : "monotonic"; }

TickScale TickScale::Between(const ClockReference& from, const ClockReference& to) {
  TickScale scale;
  const int64_t ticks = to.ticks - from.ticks;
  if (ticks <= 0) return scale;  // cannot happen with an invariant TSC; the identity is the safe answer
  scale.identity_ = false;
  scale.ns_per_tick_ = static_cast<double>(to.monotonic_ns - from.monotonic_ns) / static_cast<double>(ticks);
  scale.origin_ = from;
  return scale;
}

int64_t TickScale::Ns(int64_t ticks) const {
  return identity_ ? ticks : std::llround(static_cast<double>(ticks) * ns_per_tick_);
}

int64_t TickScale::MonotonicNsAt(int64_t ticks) const {
  return identity_ ? ticks : origin_.monotonic_ns + Ns(ticks - origin_.ticks);
}

TickScale CurrentTickScale() {
  if (ProcessMarkerClock() != MarkerClock::kTsc) return TickScale();
  const ClockReference origin{g_origin_ticks.load(std::memory_order_relaxed),
                              g_origin_ns.load(std::memory_order_relaxed)};
  constexpr int64_t kShortestSpanNs = 1000000;
  ClockReference now = ReadReference();
  while (now.monotonic_ns - origin.monotonic_ns < kShortestSpanNs) {
    const timespec rest{0, static_cast<long>(kShortestSpanNs - (now.monotonic_ns - origin.monotonic_ns))};
    nanosleep(&rest, nullptr);
    now = ReadReference();
  }
  return TickScale::Between(origin, now);
}

}  // namespace td

#include "runtime/regions/marker_clock.h"

#include <atomic>
#include <cmath>
#include <optional>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "runtime/base/diagnostics.h"
#include "runtime/machine/kernel_files.h"

namespace td {
namespace {

std::atomic<int> g_clock{static_cast<int>(MarkerClock::kMonotonic)};
// The start-up reference, taken once the TSC was chosen; before any thread
// records with it.
std::atomic<bool> g_origin_taken{false};
std::atomic<int64_t> g_origin_ticks{0};
std::atomic<int64_t> g_origin_ns{0};
std::atomic<int64_t> g_origin_width{0};

// Both clocks read back to back, kept with the width in ticks of the TSC
// bracket around clock_gettime: the reading is known to that much. Of a few
// tries the narrowest (a try interrupted in between is wide).
struct Reading {
  ClockReference at;
  int64_t width = 0;
};
Reading ReadReference() {
  Reading best;
  best.width = INT64_MAX;
  for (int attempt = 0; attempt < 8; ++attempt) {
    const int64_t before = TscTicks();
    const int64_t ns = MonotonicNs();
    const int64_t after = TscTicks();
    if (after - before < best.width) {
      best.width = after - before;
      best.at = ClockReference{before + (after - before) / 2, ns};
    }
  }
  return best;
}

// CPUID's invariant-TSC bit (leaf 0x80000007, EDX bit 8): the counter runs
// at one rate in every power state. Hypervisors pass it on only where the
// guest's TSC keeps that promise.
bool CpuDeclaresInvariantTsc() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

}  // namespace

bool TscUsableWith(const std::string& clocksource, bool invariant_tsc, std::string* why_not) {
  if (clocksource == "tsc") return true;
  // kvm-clock counts the guest's TSC, scaled: with an invariant TSC the
  // markers' own reads, converted at the rate measured against
  // CLOCK_MONOTONIC over the run, are as good as the kernel's clock.
  if (clocksource == "kvm-clock" && invariant_tsc) return true;
  if (why_not != nullptr) {
    if (clocksource.empty()) {
      *why_not = "the kernel's clocksource is unknown";
    } else if (clocksource == "kvm-clock") {
      *why_not = "the kernel's clocksource is kvm-clock and the CPU does not declare an invariant TSC";
    } else {
      *why_not = "the kernel's clocksource is " + clocksource + ", not tsc or kvm-clock";
    }
  }
  return false;
}

MarkerClock ChooseMarkerClock(bool allow_tsc, std::string* why_not) {
  MarkerClock chosen = MarkerClock::kMonotonic;
#if defined(__x86_64__)
  if (allow_tsc) {
    const std::optional<std::string> source =
        ReadFirstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    if (TscUsableWith(source.value_or(""), CpuDeclaresInvariantTsc(), why_not)) chosen = MarkerClock::kTsc;
  }
#else
  if (allow_tsc && why_not != nullptr) *why_not = "no TSC on this architecture";
#endif
  if (chosen == MarkerClock::kTsc && !g_origin_taken.load(std::memory_order_acquire)) {
    const Reading origin = ReadReference();
    g_origin_ticks.store(origin.at.ticks, std::memory_order_relaxed);
    g_origin_ns.store(origin.at.monotonic_ns, std::memory_order_relaxed);
    g_origin_width.store(origin.width, std::memory_order_relaxed);
    g_origin_taken.store(true, std::memory_order_release);
  }
  g_clock.store(static_cast<int>(chosen), std::memory_order_release);
  return chosen;
}

MarkerClock ProcessMarkerClock() { return static_cast<MarkerClock>(g_clock.load(std::memory_order_acquire)); }

const char* MarkerClockName(MarkerClock clock) { return clock == MarkerClock::kTsc ? "tsc" : "monotonic"; }

TickScale TickScale::Between(const ClockReference& from, const ClockReference& to) {
  TickScale scale;
  const int64_t ticks = to.ticks - from.ticks;
  if (ticks <= 0 || to.monotonic_ns <= from.monotonic_ns) return scale;
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
  if (!g_origin_taken.load(std::memory_order_acquire)) return TickScale();
  const ClockReference origin{g_origin_ticks.load(std::memory_order_relaxed),
                              g_origin_ns.load(std::memory_order_relaxed)};
  const int64_t origin_width = g_origin_width.load(std::memory_order_relaxed);
  // The rate is known to (both brackets' widths) / span: at least 1 ms, and
  // 20,000 times the widths, so that it is known to 1e-4 or better; a short
  // run waits out the rest (a few times at most, each try reads anew).
  constexpr int64_t kShortestSpanNs = 1000000;
  Reading now = ReadReference();
  for (int wait = 0; wait < 8; ++wait) {
    const int64_t span_ns = now.at.monotonic_ns - origin.monotonic_ns;
    const int64_t span_ticks = now.at.ticks - origin.ticks;
    if (span_ns <= 0 || span_ticks <= 0) break;
    const double ns_per_tick = static_cast<double>(span_ns) / static_cast<double>(span_ticks);
    const auto widths_ns = static_cast<int64_t>(static_cast<double>(origin_width + now.width) * ns_per_tick);
    const int64_t needed_ns = std::max<int64_t>(kShortestSpanNs, 20000 * widths_ns);
    if (span_ns >= needed_ns) break;
    const int64_t rest = std::min<int64_t>(needed_ns - span_ns, 100000000);
    const timespec pause{static_cast<time_t>(rest / 1000000000), static_cast<long>(rest % 1000000000)};
    nanosleep(&pause, nullptr);
    now = ReadReference();
  }
  const TickScale scale = TickScale::Between(origin, now.at);
  if (scale.identity()) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      ReportProblem(Severity::kWarning,
                    "the TSC did not advance with CLOCK_MONOTONIC since start-up (a suspend, or a virtual machine "
                    "moved?); wall times are reported in TSC ticks, not converted; TD_CLOCK=monotonic avoids this");
    }
  }
  return scale;
}

}  // namespace td

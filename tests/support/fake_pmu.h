// A PMU without hardware, for running the marker path's user-space reads
// where there is none: mmap pages that live in memory, rdpmc and rdtsc
// answered from them, and a read() of the group that only counts that it
// was called (and fails, so a test sees any fallback). Used by the unit
// tests and by the user-read benchmark (docs/performance.md).
#ifndef TD_TESTS_SUPPORT_FAKE_PMU_H_
#define TD_TESTS_SUPPORT_FAKE_PMU_H_

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/counters/backend.h"
#include "runtime/counters/perf_event_backend.h"

namespace td::fake_pmu {

constexpr int kCounters = 16;

struct State {
  std::array<perf_event_mmap_page, kCounters> pages{};
  std::array<uint64_t, kCounters> pmc{};  // what rdpmc of counter i returns
  uint64_t tsc = 0;
  int mapped = 0;
  uint64_t kernel_reads = 0;
};

inline State& Pmu() {
  static State state;
  return state;
}

// Pages as the kernel writes them for an event on counter i: user reads
// allowed, 48-bit counters, and a TSC of 2 ticks per nanosecond.
inline void Reset() {
  State& s = Pmu();
  s = State{};
  for (int i = 0; i < kCounters; ++i) {
    perf_event_mmap_page& page = s.pages[static_cast<size_t>(i)];
    page.cap_user_rdpmc = 1;
    page.cap_user_time = 1;
    page.index = static_cast<uint32_t>(i) + 1;
    page.pmc_width = 48;
    page.time_enabled = 1000;
    page.time_running = 1000;
    page.time_mult = 1u << 9;  // ns = ticks × 2^9 / 2^10
    page.time_shift = 10;
  }
}

// `ns` nanoseconds of running: counter i advances by (i + 1) × ns.
inline void Advance(uint64_t ns) {
  State& s = Pmu();
  s.tsc += 2 * ns;
  for (int i = 0; i < kCounters; ++i) s.pmc[static_cast<size_t>(i)] += static_cast<uint64_t>(i + 1) * ns;
}

// The kernel's update of page i: its lock moves by two around the change
// (odd while it is made), which is how a reader learns that the fields it
// copied are stale.
template <typename Change>
void UpdatePage(size_t i, Change change) {
  perf_event_mmap_page& page = Pmu().pages[i];
  ++page.lock;
  change(page);
  ++page.lock;
}

inline uint64_t ReadPmc(uint32_t index) { return Pmu().pmc[index % kCounters]; }
inline uint64_t ReadTsc() { return Pmu().tsc; }
inline ssize_t ReadGroup(int, void*, size_t) {
  ++Pmu().kernel_reads;
  return -1;
}
inline int Open(perf_event_attr*, pid_t, int, int, unsigned long) { return open("/dev/null", O_RDONLY | O_CLOEXEC); }
inline void* MapPage(int) {
  State& s = Pmu();
  if (s.mapped == kCounters) return MAP_FAILED;
  return &s.pages[static_cast<size_t>(s.mapped++)];
}
inline void UnmapPage(void*) {}

// `inline_reads`: the answers also as memory, so the markers read the pages
// inline (sole_user_read.h) as on a PMU host; false keeps them on the group
// reader's calls.
inline UserReadSeams Seams(bool inline_reads = true) {
  UserReadHooks hooks{&ReadPmc, &ReadTsc, &ReadGroup};
  if (inline_reads) {
    hooks.pmc_values = Pmu().pmc.data();
    hooks.pmc_count = kCounters;
    hooks.tsc_value = &Pmu().tsc;
  }
  return UserReadSeams{&MapPage, &UnmapPage, hooks};
}

// The software group, then one group of `events` hardware events.
inline CounterLayout SoftwareAndHardwareGroup(int events) {
  CounterLayout layout = SoftwareLayout();
  std::vector<EventInfo> group;
  for (int i = 0; i < events; ++i) {
    EventInfo e;
    e.name = "event" + std::to_string(i);
    e.unit = "count";
    e.perf_type = PERF_TYPE_RAW;
    e.perf_config = 0x100 + static_cast<uint64_t>(i);
    e.hardware = true;
    e.pmu = "fake";
    group.push_back(e);
  }
  layout.AddGroup(group);
  return layout;
}

}  // namespace td::fake_pmu

#endif  // TD_TESTS_SUPPORT_FAKE_PMU_H_

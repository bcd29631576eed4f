// Counts with perf_event_open: one group per thread per GroupInfo, read at
// each marker in user space (rdpmc on the kernel's pages) where the kernel
// allows it for a hardware group, else with a single read() per group.
#ifndef TD_RUNTIME_COUNTERS_PERF_EVENT_BACKEND_H_
#define TD_RUNTIME_COUNTERS_PERF_EVENT_BACKEND_H_

#include <memory>

#include "runtime/counters/backend.h"
#include "runtime/counters/perf_syscall.h"
#include "runtime/counters/rdpmc_group.h"

namespace td {

// The software group: page-faults, task-clock, context-switches and
// cpu-migrations, read together. These work on every Linux machine that allows
// perf_event_open at all, PMU or not.
CounterLayout SoftwareLayout();

// `layout` with task-clock taken from the first per-thread hardware group's
// time enabled instead of the software group (group 0), so that a host whose
// hardware groups are read with rdpmc makes no syscall at markers; page
// faults, context switches and migrations are then not counted. Unchanged
// where no group has per-thread hardware events. `*source` names that group.
CounterLayout TaskClockFromHardwareGroup(const CounterLayout& layout, size_t* source = nullptr);

// Whether markers read groups in user space (rdpmc, rdpmc_group.h).
enum class UserReads {
  kOff,     // read() every group
  kAuto,    // groups with hardware events, on builds that can (x86)
  kAlways,  // every group, software ones too (tests: their pages send td back to read())
};

// Opens `layout`'s groups for each thread that asks. `availability` is what
// the probe found; it travels into reports unchanged.
// Where user reads get their pages and instructions: mmap/munmap of the
// event's fd and the rdpmc/rdtsc instructions, or fakes (tests and the
// benchmark that run the marker path without a PMU).
struct UserReadSeams {
  void* (*map_page)(int fd) = nullptr;       // nullptr: mmap of one page; MAP_FAILED when it cannot
  void (*unmap_page)(void* page) = nullptr;  // nullptr: munmap
  UserReadHooks hooks;
};

std::unique_ptr<CounterBackend> MakePerfEventBackend(CounterLayout layout,
                                                     Availability availability,
                                                     PerfEventOpenFn open_fn,
                                                     UserReads user_reads = UserReads::kAuto,
                                                     UserReadSeams seams = {});

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_PERF_EVENT_BACKEND_H_

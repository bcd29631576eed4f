// Counts with perf_event_open: one group per thread per GroupInfo, read with
// a single read() per group at each marker.
#ifndef TD_RUNTIME_COUNTERS_PERF_EVENT_BACKEND_H_
#define TD_RUNTIME_COUNTERS_PERF_EVENT_BACKEND_H_

#include <memory>

#include "runtime/counters/backend.h"
#include "runtime/counters/perf_syscall.h"

namespace td {

// The software group: page-faults, task-clock, context-switches and
// cpu-migrations, read together. These work on every Linux machine that allows
// perf_event_open at all, PMU or not.
CounterLayout SoftwareLayout();

// Whether markers read groups in user space (rdpmc, rdpmc_group.h).
enum class UserReads {
  kOff,     // read() every group
  kAuto,    // groups with hardware events, on builds that can (x86)
  kAlways,  // every group, software ones too (tests: their pages send td back to read())
};

// Opens `layout`'s groups for each thread that asks. `availability` is what
// the probe found; it travels into reports unchanged.
std::unique_ptr<CounterBackend> MakePerfEventBackend(CounterLayout layout,
                                                     Availability availability,
                                                     PerfEventOpenFn open_fn,
                                                     UserReads user_reads = UserReads::kAuto);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_PERF_EVENT_BACKEND_H_

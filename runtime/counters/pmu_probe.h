// What this machine's PMU accepts, learned by opening events rather than
// assumed from tables: a VM may expose 2 of 8 counters, a hypervisor may drop
// events, a kernel may lack a model's driver. The runtime plans its groups
// from what opened; `td doctor` prints it.
#ifndef TD_RUNTIME_COUNTERS_PMU_PROBE_H_
#define TD_RUNTIME_COUNTERS_PMU_PROBE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/counters/backend.h"
#include "runtime/counters/perf_syscall.h"

namespace td {

struct EventOpenResult {
  std::string name;
  int err = 0;  // 0: opened; else the errno of perf_event_open
  uint32_t type = 0;  // what was opened: perf_event_attr type and config
  uint64_t config = 0;
};

// Opens each event alone on this thread, disabled, and closes it again. Like
// the backend, a refused event is tried once more counting user space only.
// Software events and system-wide (memory controller) events are opened as
// the backend opens them.
std::vector<EventOpenResult> ProbeEventsAlone(const std::vector<EventInfo>& events,
                                              PerfEventOpenFn open_fn);

// How many copies of `event` one group holds: the kernel checks at open that
// a group fits the PMU's counters (EINVAL otherwise), so the largest group
// that opens is the number of counters `event` may use. Pick an event only
// general-purpose counters take (branch instructions, not cycles, which a
// fixed counter may take). 0 when one copy does not open; at most `limit`.
int ProbeGroupCapacity(const EventInfo& event, PerfEventOpenFn open_fn, int limit = 16);

// The perf generic "branch instructions" event: general-purpose counters only
// on Intel, AMD and Arm alike.
EventInfo GeneralCounterProbeEvent();

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_PMU_PROBE_H_

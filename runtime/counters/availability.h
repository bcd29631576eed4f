// Probes what perf_event_open allows on this machine and says it in one line.
#ifndef TD_RUNTIME_COUNTERS_AVAILABILITY_H_
#define TD_RUNTIME_COUNTERS_AVAILABILITY_H_

#include <string>

#include "runtime/counters/backend.h"
#include "runtime/counters/perf_syscall.h"

namespace td {

// What the probe saw; errno values are 0 on success.
struct ProbeFacts {
  int hardware_errno = 0;       // perf_event_open of user-space cycles on this thread
  int software_errno = 0;       // perf_event_open of task-clock on this thread
  int paranoid = -1;            // kernel.perf_event_paranoid, -1 when unreadable
  bool cpu_pmu_in_sysfs = false;  // /sys/bus/event_source/devices/cpu* exists
};

// Pure: turns the facts into the lines reports print. Tested for each case.
Availability DescribeAvailability(const ProbeFacts& facts);

// Gathers the facts with real system calls (or the injected one).
ProbeFacts ProbeMachine(PerfEventOpenFn open_fn);

// "ENOENT" for ENOENT, etc.; "errno N" for anything unusual.
std::string ErrnoName(int err);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_AVAILABILITY_H_

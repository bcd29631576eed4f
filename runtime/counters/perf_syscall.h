// The perf_event_open system call, injectable so tests can play a machine
// that forbids or lacks counters.
#ifndef TD_RUNTIME_COUNTERS_PERF_SYSCALL_H_
#define TD_RUNTIME_COUNTERS_PERF_SYSCALL_H_

#include <linux/perf_event.h>
#include <sys/types.h>

namespace td {

// Returns an fd, or -1 with errno set, like the system call.
using PerfEventOpenFn = int (*)(perf_event_attr* attr, pid_t pid, int cpu, int group_fd,
                                unsigned long flags);

int RealPerfEventOpen(perf_event_attr* attr, pid_t pid, int cpu, int group_fd,
                      unsigned long flags);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_PERF_SYSCALL_H_

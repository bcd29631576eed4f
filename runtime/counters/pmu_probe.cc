#include "runtime/counters/pmu_probe.h"

#include <errno.h>
#include <unistd.h>

namespace td {
namespace {

perf_event_attr AttrOf(const EventInfo& event, bool user_only) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = event.perf_type;
  attr.config = event.perf_config;
  attr.config1 = event.perf_config1;
  attr.disabled = 1;
  attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  if (!event.system_wide()) {
    attr.exclude_hv = 1;
    attr.exclude_kernel = user_only ? 1 : 0;
  }
  return attr;
}

// Returns the descriptor, or -1 with the errno in *err.
int OpenOne(const EventInfo& event, int leader, PerfEventOpenFn open_fn, int* err) {
  const pid_t pid = event.system_wide() ? -1 : 0;
  perf_event_attr attr = AttrOf(event, false);
  errno = 0;
  int fd = open_fn(&attr, pid, event.cpu, leader, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0 && !event.system_wide() && (errno == EACCES || errno == EPERM)) {
    attr = AttrOf(event, true);
    errno = 0;
    fd = open_fn(&attr, pid, event.cpu, leader, PERF_FLAG_FD_CLOEXEC);
  }
  *err = fd < 0 ? (errno != 0 ? errno : EINVAL) : 0;
  return fd;
}

}  // namespace

std::vector<EventOpenResult> ProbeEventsAlone(const std::vector<EventInfo>& events,
                                              PerfEventOpenFn open_fn) {
  std::vector<EventOpenResult> results;
  results.reserve(events.size());
  for (const EventInfo& event : events) {
    EventOpenResult r{event.name, 0, event.perf_type, event.perf_config};
    const int fd = OpenOne(event, -1, open_fn, &r.err);
    if (fd >= 0) close(fd);
    results.push_back(std::move(r));
  }
  return results;
}

int ProbeGroupCapacity(const EventInfo& event, PerfEventOpenFn open_fn, int limit) {
  std::vector<int> fds;
  int err = 0;
  while (static_cast<int>(fds.size()) < limit) {
    const int fd = OpenOne(event, fds.empty() ? -1 : fds.front(), open_fn, &err);
    if (fd < 0) break;
    fds.push_back(fd);
  }
  const int capacity = static_cast<int>(fds.size());
  for (auto it = fds.rbegin(); it != fds.rend(); ++it) close(*it);
  return capacity;
}

EventInfo GeneralCounterProbeEvent() {
  EventInfo e;
  e.name = "branch-instructions";
  e.unit = "count";
  e.perf_type = PERF_TYPE_HARDWARE;
  e.perf_config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
  e.hardware = true;
  e.pmu = "cpu";
  return e;
}

}  // namespace td

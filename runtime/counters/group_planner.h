// Puts events into perf_event groups the PMU can actually schedule.
//
// Each request is a set of events that must be read together (one formula,
// or a "{...}" group of TD_EVENTS). Requests are merged into as few groups as
// fit the counters of the CounterModel; a request that cannot fit even alone
// is an error at start, never a group that silently reads zeros.
#ifndef TD_RUNTIME_COUNTERS_GROUP_PLANNER_H_
#define TD_RUNTIME_COUNTERS_GROUP_PLANNER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/counters/backend.h"
#include "runtime/uarch/counter_model.h"

namespace td {

// Resolved events the planner is asked to place on counters together.
struct GroupRequest {
  std::vector<EventInfo> events;
  bool forced = false;  // keep exactly these events as one group, merge nothing into it
  std::string origin;   // for messages: "TD_EVENTS", a node name…
  // The per-thread memory-traffic estimate: TD_MEMORY=auto drops it when it
  // would need a group of its own.
  bool memory_estimate = false;
};

struct PlanOptions {
  bool smt_on = true;        // fewer general-purpose counters on Intel SNB–CLX
  bool nmi_watchdog = false; // /proc/sys/kernel/nmi_watchdog: it holds a cycles counter
};

// OK when the events can be on the PMU at the same time; otherwise says why.
// Software events need no counter. An unknown model (general == 0) accepts
// everything: the kernel decides, and coverage will show what ran.
absl::Status CheckSchedulable(const std::vector<EventInfo>& group, const CounterModel& model,
                              const PlanOptions& options);

absl::StatusOr<std::vector<std::vector<EventInfo>>> PlanGroups(
    const std::vector<GroupRequest>& requests, const CounterModel& model, const PlanOptions& options);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_GROUP_PLANNER_H_

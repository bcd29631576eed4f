#include "runtime/counters/group_planner.h"

#include <linux/perf_event.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace td {
namespace {

// One event's possible counters: indices below `general` are general-purpose,
// from `general` on the fixed counters.
struct Placement {
  std::string name;
  std::vector<int> counters;
  bool paired = false;  // also takes counter + 1
};

bool Same(const EventInfo& a, const EventInfo& b) {
  return a.perf_type == b.perf_type && a.perf_config == b.perf_config &&
         a.perf_config1 == b.perf_config1;
}

bool IsCore(const EventInfo& e) { return e.perf_type == PERF_TYPE_RAW || e.perf_type == PERF_TYPE_HARDWARE; }

// The raw config an event has on this PMU (generic names mapped through the model).
uint64_t RawConfig(const EventInfo& e, const CounterModel& model) {
  if (e.perf_type != PERF_TYPE_HARDWARE) return e.perf_config;
  if (e.perf_config == PERF_COUNT_HW_CPU_CYCLES) return model.cycles;
  if (e.perf_config == PERF_COUNT_HW_INSTRUCTIONS) return model.instructions;
  return 0;  // other generic events: any general-purpose counter
}

int GeneralCounters(const CounterModel& model, const PlanOptions& options) {
  return !options.smt_on && model.general_without_smt > 0 ? model.general_without_smt : model.general;
}

Placement PlacementOf(const EventInfo& e, const CounterModel& model, int general) {
  Placement p;
  p.name = e.name;
  const uint64_t config = RawConfig(e, model);
  const auto event_umask = static_cast<uint32_t>(config & 0xffff);
  const auto code = static_cast<uint32_t>(config & 0xff);
  const bool plain = (config >> 16) == 0 && e.perf_config1 == 0;  // no cmask/inv/edge/offcore
  const bool fixed_only = std::find(model.fixed_only.begin(), model.fixed_only.end(), event_umask) !=
                              model.fixed_only.end() && plain;
  for (size_t f = 0; f < model.fixed.size(); ++f) {
    if (plain && config != 0 && model.fixed[f] == event_umask) p.counters.push_back(general + static_cast<int>(f));
  }
  if (fixed_only) return p;
  const uint32_t amd_code = code | static_cast<uint32_t>((config >> 32) & 0xf) << 8;
  p.paired = std::find(model.paired_codes.begin(), model.paired_codes.end(), amd_code) !=
             model.paired_codes.end();
  std::vector<int> allowed;
  for (int c = 0; c < general; ++c) allowed.push_back(c);
  for (const CounterRestriction& r : model.restrictions) {
    const bool exempt = std::find(r.except_configs.begin(), r.except_configs.end(), event_umask) !=
                        r.except_configs.end();
    bool matches = std::find(r.configs.begin(), r.configs.end(), event_umask) != r.configs.end();
    for (const auto& [lo, hi] : r.codes) matches |= !exempt && code >= lo && code <= hi;
    if (!matches) continue;
    std::vector<int> narrowed;
    for (int c : allowed) {
      if (std::find(r.counters.begin(), r.counters.end(), c) != r.counters.end()) narrowed.push_back(c);
    }
    allowed = std::move(narrowed);
    break;  // the first matching table entry decides, as in the kernel
  }
  for (int c : allowed) {
    if (!p.paired || (c % 2 == 0 && c + 1 < general)) p.counters.push_back(c);
  }
  return p;
}

bool Assign(const std::vector<Placement>& events, size_t next, std::vector<bool>* used) {
  if (next == events.size()) return true;
  const Placement& p = events[next];
  for (int c : p.counters) {
    if ((*used)[c] || (p.paired && (*used)[c + 1])) continue;
    (*used)[c] = true;
    if (p.paired) (*used)[c + 1] = true;
    if (Assign(events, next + 1, used)) return true;
    (*used)[c] = false;
    if (p.paired) (*used)[c + 1] = false;
  }
  return false;
}

std::string Describe(const std::vector<EventInfo>& group) {
  std::vector<std::string> names;
  for (const EventInfo& e : group) names.push_back(e.name);
  return absl::StrCat("{", absl::StrJoin(names, ","), "}");
}

}  // namespace

absl::Status CheckSchedulable(const std::vector<EventInfo>& group, const CounterModel& model,
                              const PlanOptions& options) {
  if (!model.known()) return absl::OkStatus();
  const int general = GeneralCounters(model, options);
  std::vector<Placement> placements;
  bool has_leader = false;
  std::vector<std::string> members;
  int general_needed = 0;
  for (const EventInfo& e : group) {
    if (!IsCore(e)) continue;
    if (e.perf_type == PERF_TYPE_RAW && model.IsMetricsMember(e.perf_config)) {
      members.push_back(e.name);  // read from PERF_METRICS: no counter of its own
      continue;
    }
    if (e.perf_type == PERF_TYPE_RAW && e.perf_config == model.metrics_leader) has_leader = true;
    placements.push_back(PlacementOf(e, model, general));
    if (placements.back().counters.empty()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s has no counter it may use on this PMU (%d general-purpose counters)", e.name, general));
    }
    const bool fixed_possible = std::any_of(placements.back().counters.begin(), placements.back().counters.end(),
                                            [&](int c) { return c >= general; });
    if (!fixed_possible) general_needed += placements.back().paired ? 2 : 1;
  }
  if (!members.empty() && (!has_leader || !(group.front().perf_type == PERF_TYPE_RAW &&
                                            group.front().perf_config == model.metrics_leader))) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "topdown metric events (%s) must be in a group led by slots (config 0x%x)",
        absl::StrJoin(members, ", "), model.metrics_leader));
  }
  // The NMI watchdog counts cycles on a counter of its own, pinned: the
  // fixed cycles counter when there is one, else a general-purpose one.
  std::vector<bool> used(general + model.fixed.size(), false);
  std::string watchdog_note;
  if (options.nmi_watchdog) {
    EventInfo cycles;
    cycles.name = "nmi_watchdog";
    cycles.perf_type = PERF_TYPE_HARDWARE;
    cycles.perf_config = PERF_COUNT_HW_CPU_CYCLES;
    const Placement w = PlacementOf(cycles, model, general);
    const auto fixed = std::find_if(w.counters.begin(), w.counters.end(), [&](int c) { return c >= general; });
    used[fixed != w.counters.end() ? *fixed : 0] = true;
    watchdog_note = "; the NMI watchdog holds one (sysctl kernel.nmi_watchdog=0 frees it)";
  }
  // Most constrained first makes the search short.
  std::stable_sort(placements.begin(), placements.end(), [](const Placement& a, const Placement& b) {
    return a.counters.size() < b.counters.size();
  });
  // A group wanting more counters than its events may use together cannot
  // fit: say so without searching, which tries every arrangement before it
  // gives up — (counters)! steps for one event too many, minutes for a
  // TD_EVENTS list of a few dozen events on 8 counters.
  std::vector<bool> usable(used.size(), false);
  size_t needed = 0;
  for (const Placement& p : placements) {
    needed += p.paired ? 2 : 1;
    for (int c : p.counters) {
      usable[c] = usable[c] || !used[c];
      if (p.paired) usable[c + 1] = usable[c + 1] || !used[c + 1];
    }
  }
  const auto open = static_cast<size_t>(std::count(usable.begin(), usable.end(), true));
  if (needed <= open && Assign(placements, 0, &used)) return absl::OkStatus();
  std::vector<std::string> restricted;
  for (const Placement& p : placements) {
    if (static_cast<int>(p.counters.size()) < general) restricted.push_back(p.name);
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s cannot be counted at once: it needs %d general-purpose counters, the PMU has %d (and %d "
      "fixed)%s%s",
      Describe(group), general_needed, general, model.fixed.size(), watchdog_note,
      restricted.empty() ? "" : "; counter-restricted: " + absl::StrJoin(restricted, ", ")));
}

namespace {

// A request's events without repeats; topdown metrics get their leader first,
// added when the request lacks it.
std::vector<EventInfo> WantedEvents(const GroupRequest& request, const CounterModel& model) {
  std::vector<EventInfo> wanted;
  for (const EventInfo& e : request.events) {
    if (std::none_of(wanted.begin(), wanted.end(), [&](const EventInfo& w) { return Same(w, e); })) {
      wanted.push_back(e);
    }
  }
  const bool has_member = std::any_of(wanted.begin(), wanted.end(), [&](const EventInfo& e) {
    return e.perf_type == PERF_TYPE_RAW && model.IsMetricsMember(e.perf_config);
  });
  if (!has_member || request.forced) return wanted;
  auto leader = std::find_if(wanted.begin(), wanted.end(), [&](const EventInfo& e) {
    return e.perf_type == PERF_TYPE_RAW && e.perf_config == model.metrics_leader;
  });
  EventInfo slots;
  if (leader != wanted.end()) {
    slots = *leader;
    wanted.erase(leader);
  } else {
    slots.name = "TOPDOWN.SLOTS";
    slots.unit = "count";
    slots.perf_type = PERF_TYPE_RAW;
    slots.perf_config = model.metrics_leader;
    slots.hardware = true;
    slots.pmu = "cpu";
  }
  wanted.insert(wanted.begin(), slots);
  return wanted;
}

// Adds to `group` the events of `wanted` it lacks (the metrics leader in
// front); returns how many it already had. The same step tries a merge on a
// copy and then makes it.
size_t MergeInto(const std::vector<EventInfo>& wanted, const CounterModel& model, std::vector<EventInfo>* group) {
  size_t shared = 0;
  for (const EventInfo& e : wanted) {
    if (std::any_of(group->begin(), group->end(), [&](const EventInfo& m) { return Same(m, e); })) {
      ++shared;
    } else if (e.perf_type == PERF_TYPE_RAW && e.perf_config == model.metrics_leader && model.metrics_leader != 0) {
      group->insert(group->begin(), e);
    } else {
      group->push_back(e);
    }
  }
  return shared;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<EventInfo>>> PlanGroups(
    const std::vector<GroupRequest>& requests, const CounterModel& model, const PlanOptions& options) {
  std::vector<std::vector<EventInfo>> groups;
  std::vector<bool> closed;  // forced groups take nothing more
  for (const GroupRequest& request : requests) {
    std::vector<EventInfo> wanted = WantedEvents(request, model);
    if (absl::Status alone = CheckSchedulable(wanted, model, options); !alone.ok()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: group can never be scheduled: %s", request.origin, alone.message()));
    }
    // Join the open group sharing the most events that still fits.
    int best = -1;
    size_t best_shared = 0;
    for (size_t g = 0; g < groups.size() && !request.forced; ++g) {
      if (closed[g]) continue;
      std::vector<EventInfo> merged = groups[g];
      const size_t shared = MergeInto(wanted, model, &merged);
      if ((best < 0 || shared > best_shared) && CheckSchedulable(merged, model, options).ok()) {
        best = static_cast<int>(g);
        best_shared = shared;
      }
    }
    if (best < 0) {
      groups.push_back(std::move(wanted));
      closed.push_back(request.forced || !model.known());
      continue;
    }
    MergeInto(wanted, model, &groups[best]);
  }
  return groups;
}

}  // namespace td

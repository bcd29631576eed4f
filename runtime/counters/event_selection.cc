#include "runtime/counters/event_selection.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/event_spec.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/machine/kernel_files.h"
#include "runtime/machine/machine_info.h"

namespace td {
namespace {

// The names an expression needs, with auxiliaries replaced by their own names;
// a conditional decided by constants (the file's, with the machine's laid
// over them) needs its branch taken only.
void CollectEventNames(const Expression& expression, const MetricSet& metrics, const MachineConstants& machine,
                       std::set<std::string>* seen, std::vector<std::string>* events) {
  const Expression::Resolver constant = [&](const std::string& name) {
    if (const auto it = machine.find(name); it != machine.end()) return Value::Of(it->second);
    if (const auto it = metrics.constants.find(name); it != metrics.constants.end()) return Value::Of(it->second);
    return Value::Missing(name);
  };
  for (const std::string& name : expression.NamesGiven(constant)) {
    if (!seen->insert(name).second || metrics.constants.contains(name)) continue;
    const FormulaDefinition* node = metrics.FindNode(name);
    if (node != nullptr && node->level >= 1) continue;  // tree nodes are planned on their own
    if (const FormulaDefinition* aux = node != nullptr ? node : metrics.FindAuxiliary(name)) {
      if (!aux->alternatives.empty()) CollectEventNames(aux->alternatives.front(), metrics, machine, seen, events);
      continue;
    }
    events->push_back(name);
  }
}

absl::StatusOr<EventInfo> EncodeDefinedEvent(const std::string& name, const MetricSet& metrics,
                                             const DefinitionLibrary* library) {
  const EventDefinition* def = metrics.FindEvent(name);
  EventResolver resolver;
  resolver.pmu = metrics.libpfm_pmu.empty() ? metrics.uarch : metrics.libpfm_pmu;
  resolver.library = library;
  absl::StatusOr<EventInfo> event = absl::NotFoundError("");
  if (const std::optional<uint64_t> config = def != nullptr ? def->RawConfig() : std::nullopt) {
    EventInfo raw;
    raw.perf_type = PERF_TYPE_RAW;
    raw.perf_config = *config;
    raw.hardware = true;
    raw.pmu = "cpu";
    event = raw;
  } else {
    event = resolver.Resolve(def != nullptr && !def->libpfm.empty() ? def->libpfm : name);
  }
  if (!event.ok()) return event.status();
  event->name = def != nullptr ? def->name : name;  // the spelling the formulas look up
  event->unit = "count";
  return event;
}

bool IsSoftware(const EventInfo& e) { return e.perf_type == PERF_TYPE_SOFTWARE; }

void AddOnce(const std::string& name, std::vector<std::string>* names) {
  if (std::find(names->begin(), names->end(), name) == names->end()) names->push_back(name);
}

// Memory traffic (TD_MEMORY): the socket's memory controllers when they can
// be opened, else — in auto and estimate modes — the per-thread
// DRAM_Read_Bytes events as one more request for the planner. Says what was
// chosen in `out->memory`.
struct MemoryChoice {
  std::vector<std::vector<EventInfo>> socket_groups;
  std::string why_no_socket;
};

MemoryChoice SelectMemory(const SelectionInput& input, std::vector<GroupRequest>* hardware, EventSelection* out) {
  const bool asked = input.memory == MemoryMode::kSocket || input.memory == MemoryMode::kEstimate;
  if (input.memory == MemoryMode::kOff || (!asked && !input.td_events.empty())) return {};
  if (!input.hardware_available || input.metrics == nullptr) {
    if (asked) out->notices.push_back("TD_MEMORY: memory traffic not measured: " + input.hardware_reason);
    return {};
  }
  std::string why_no_socket;
  if (input.memory != MemoryMode::kEstimate) {
    if (!input.system_wide_permitted) {
      why_no_socket =
          "memory controllers count the whole socket and need perf_event_paranoid <= 0, CAP_PERFMON or root";
    } else if (auto socket = ResolveSocketCounters(input.metrics->memory, input.sysfs_devices); socket.ok()) {
      out->memory = "socket-wide memory-controller counts, " + socket->description +
                    ", read by the first thread that records a region during each of its regions";
      return {std::move(socket->groups), ""};
    } else {
      why_no_socket = std::string(socket.status().message());
    }
    if (input.memory == MemoryMode::kSocket) {
      out->notices.push_back("TD_MEMORY=socket: " + why_no_socket + "; memory traffic not measured");
      return {};
    }
  }
  const FormulaDefinition* estimate = input.metrics->FindNode("DRAM_Read_Bytes");
  std::vector<EventInfo> events =
      estimate != nullptr
          ? FormulaEvents(*estimate, *input.metrics, input.library, input.machine_constants, input.probed.unopened)
          : std::vector<EventInfo>{};
  if (events.empty()) {
    out->notices.push_back(absl::StrFormat("memory traffic not measured: %s%sno per-thread estimate for %s",
                                           why_no_socket, why_no_socket.empty() ? "" : "; ", input.metrics->uarch));
    return {};
  }
  out->memory = "per-thread estimate: DRAM_Read_Bytes = last-level-cache misses x 64 B (reads only, a lower bound)";
  if (!why_no_socket.empty()) out->memory += "; no socket counts: " + why_no_socket;
  hardware->push_back({std::move(events), false, "DRAM_Read_Bytes", /*memory_estimate=*/true});
  return {{}, why_no_socket};
}

}  // namespace

MachineConstants ConstantsOf(const MachineInfo& machine) {
  MachineConstants constants;
  if (machine.smt_active >= 0) constants["SMT_on"] = machine.smt_active;
  // td counts per thread: its counts are a whole core's only when SMT is off
  // (perf's #core_wide), and then formulas need no thread-share events.
  if (machine.smt_active == 0) constants["Core_Wide"] = 1;
  if (machine.cpu_revision >= 0) constants["CPU_Revision"] = machine.cpu_revision;
  if (machine.sockets > 0) constants["Sockets"] = machine.sockets;
  if (machine.persistent_memory >= 0) constants["Has_PMEM"] = machine.persistent_memory;
  return constants;
}

std::vector<EventInfo> FormulaEvents(const FormulaDefinition& formula, const MetricSet& metrics,
                                     const DefinitionLibrary* library, const MachineConstants& machine,
                                     const UnopenedEvents& unopened) {
  for (const Expression& alternative : formula.alternatives) {
    std::set<std::string> seen;
    std::vector<std::string> names;
    CollectEventNames(alternative, metrics, machine, &seen, &names);
    std::vector<EventInfo> events;
    bool all = true;
    for (const std::string& name : names) {
      if (name == "seconds_time_elapsed" || name == "duration_time") continue;
      auto e = EncodeDefinedEvent(name, metrics, library);
      if (!e.ok() || unopened.contains(e->name)) {
        all = false;
        break;
      }
      events.push_back(*std::move(e));
    }
    if (all && !events.empty()) return events;
  }
  return {};
}

std::string UarchForCpu(const DefinitionLibrary& library, const std::string& vendor, int family, int model,
                        int stepping, const std::string& forced) {
  // An unknown TD_UARCH was already reported at start; the CPU decides then.
  if (!forced.empty()) {
    const std::vector<std::string> known = library.Uarchs();
    if (std::find(known.begin(), known.end(), forced) != known.end()) return forced;
  }
  auto key = library.Identify(vendor, family, model, stepping);
  // An unknown CPU still gets Linux's generic Top-Down events where they encode.
  return key.ok() ? *key : "generic";
}

namespace {

// TD_EVENTS as requests: software events each in a group of their own
// (straight into `out->groups`), hardware ones as requests for the planner.
// Returns the hardware events that cannot be counted here (said after the
// memory choice), or nullopt when the list does not parse.
std::optional<std::vector<std::string>> RequestsFromEventList(const SelectionInput& input,
                                                              std::vector<GroupRequest>* hardware,
                                                              std::vector<std::string>* unopened_met,
                                                              EventSelection* out) {
  std::vector<std::string> skipped_hardware;
  auto parsed = ParseEventList(input.td_events);
  if (!parsed.ok()) {
    out->errors.push_back(absl::StrFormat("TD_EVENTS=\"%s\": %s; counting the default events only",
                                          input.td_events, parsed.status().message()));
    return std::nullopt;
  }
  EventResolver resolver;
  resolver.library = input.library;
  resolver.sysfs_devices = input.sysfs_devices;
  if (input.metrics != nullptr) {
    resolver.pmu = input.metrics->libpfm_pmu.empty() ? input.metrics->uarch : input.metrics->libpfm_pmu;
  }
  // An event listed again (or one the software group always counts) adds
  // nothing but a group: counted once, and one line says so.
  std::vector<std::string> repeated_order;  // names seen again, first time first
  std::map<std::string, int> repeated;
  std::set<std::string> counted;
  for (const EventInfo& e : SoftwareLayout().events) counted.insert(e.name);
  const std::set<std::string> software_group = counted;
  for (const EventListGroup& group : *parsed) {
    std::vector<EventInfo> software;
    GroupRequest request{{}, group.forced, "TD_EVENTS"};
    std::set<std::string> in_this_group;
    for (const std::string& name : group.events) {
      auto event = resolver.Resolve(name);
      if (!event.ok()) {
        out->errors.push_back(absl::StrFormat("TD_EVENTS: %s; not counted", event.status().message()));
        continue;
      }
      if (software_group.count(event->name) != 0) out->software_group_named = true;
      const bool again = group.forced && !IsSoftware(*event) ? !in_this_group.insert(event->name).second
                                                              : !counted.insert(event->name).second;
      if (again) {
        if (repeated[event->name]++ == 0) repeated_order.push_back(event->name);
        continue;
      }
      if (IsSoftware(*event)) {
        software.push_back(*std::move(event));
      } else if (!input.hardware_available) {
        skipped_hardware.push_back(name);
      } else if (input.probed.unopened.contains(event->name)) {
        AddOnce(event->name, unopened_met);  // the rest of a {...} group is still counted together
      } else {
        request.events.push_back(*std::move(event));
      }
    }
    // Software events never multiplex, so grouping buys nothing, and a
    // software group can read wrong: measured on Linux 6.18, cpu-clock as
    // the last member of {page-faults,cpu-clock} reads 0, and page-faults
    // in {cpu-clock,page-faults} reads 0. Each gets a group of its own.
    if (software.size() > 1 && group.forced) {
      out->notices.push_back("TD_EVENTS: software events never multiplex; each is counted in a group of its own");
    }
    for (EventInfo& e : software) out->groups.push_back({std::move(e)});
    if (!request.events.empty()) hardware->push_back(std::move(request));
  }
  if (!repeated_order.empty()) {
    std::vector<std::string> said;
    for (const std::string& name : repeated_order) {
      said.push_back(absl::StrFormat("%s (%d extra)", name, repeated[name]));
    }
    out->notices.push_back(absl::StrFormat("TD_EVENTS: listed again or counted by default, counted once: %s",
                                           absl::StrJoin(said, ", ")));
  }
  return skipped_hardware;
}

// The CPU's formulas up to TD_LEVEL, one request per tree node. A node whose
// every form needs an event that did not open here is left out, and the
// events of its preferred form that did not open go to `unopened_met`.
std::vector<GroupRequest> RequestsFromFormulas(const SelectionInput& input, std::vector<std::string>* unopened_met) {
  std::vector<GroupRequest> hardware;
  const UnopenedEvents& unopened = input.probed.unopened;
  for (const FormulaDefinition& node : input.metrics->nodes) {
    if (node.level < 1 || node.level > input.level) continue;
    std::vector<EventInfo> events =
        FormulaEvents(node, *input.metrics, input.library, input.machine_constants, unopened);
    if (!events.empty()) {
      hardware.push_back({std::move(events), false, node.name});
    } else if (!unopened.empty()) {
      for (const EventInfo& e : FormulaEvents(node, *input.metrics, input.library, input.machine_constants)) {
        if (unopened.contains(e.name)) AddOnce(e.name, unopened_met);
      }
    }
  }
  return hardware;
}

// "X (ENOENT), Y (EOPNOTSUPP)", and each into `out->not_opened`.
std::string SayUnopened(const std::vector<std::string>& names, const UnopenedEvents& unopened,
                        EventSelection* out) {
  std::vector<std::string> said;
  for (const std::string& name : names) {
    const std::string err = ErrnoName(unopened.at(name));
    out->not_opened[name] = err;
    said.push_back(absl::StrFormat("%s (%s)", name, err));
  }
  return absl::StrJoin(said, ", ");
}

// The counter model with as many general-purpose counters as the probe found
// a group may hold, where that is fewer than the definitions say (a VM
// exposing 2 of 8), or the definitions do not know the CPU. The kernel
// validates a group against the PMU alone, not against the events already on
// it, so the probe does not see the NMI watchdog's counter: the planner still
// takes that one off (PlanOptions), once.
CounterModel ProbedModel(const SelectionInput& input, EventSelection* out) {
  CounterModel model = input.metrics != nullptr ? input.metrics->counters : CounterModel{};
  const int probed = input.probed.general_counters;
  if (probed <= 0) return model;
  if (!model.known()) {
    model.general = probed;
    return model;
  }
  const int defined =
      !input.plan.smt_on && model.general_without_smt > 0 ? model.general_without_smt : model.general;
  if (probed >= defined) return model;
  out->notices.push_back(absl::StrFormat(
      "the PMU offers %d general-purpose counters where %s's definitions say %d (a virtual machine or another "
      "user holds the rest); groups planned for %d",
      probed, input.metrics->uarch, defined, probed));
  model.general = std::min(model.general, probed);
  if (model.general_without_smt > 0) model.general_without_smt = std::min(model.general_without_smt, probed);
  return model;
}

// The requests the PMU can schedule, each planned alone first, so one
// impossible group costs only itself.
std::vector<GroupRequest> SchedulableRequests(std::vector<GroupRequest> hardware, const CounterModel& model,
                                              const SelectionInput& input, EventSelection* out) {
  std::vector<GroupRequest> possible;
  for (GroupRequest& request : hardware) {
    auto alone = PlanGroups({request}, model, input.plan);
    if (!alone.ok() && input.td_events.empty()) {
      // A formula with more events than counters: count its events in
      // several groups rather than not at all, and say that its ratios then
      // mix intervals measured apart.
      out->notices.push_back(absl::StrFormat(
          "%s needs %d events, more than one group holds; they are counted in separate groups", request.origin,
          request.events.size()));
      for (EventInfo& e : request.events) {
        GroupRequest single{{std::move(e)}, false, request.origin};
        if (PlanGroups({single}, model, input.plan).ok()) possible.push_back(std::move(single));
      }
      continue;
    }
    if (!alone.ok()) {
      out->errors.push_back(absl::StrFormat("%s; not counted", alone.status().message()));
    } else {
      possible.push_back(std::move(request));
    }
  }
  return possible;
}

}  // namespace

EventSelection SelectEvents(const SelectionInput& input) {
  EventSelection out;
  const CounterModel model = ProbedModel(input, &out);
  std::vector<GroupRequest> hardware;
  std::vector<std::string> skipped_hardware;
  std::vector<std::string> unopened_met;
  if (!input.td_events.empty()) {
    std::optional<std::vector<std::string>> skipped = RequestsFromEventList(input, &hardware, &unopened_met, &out);
    if (!skipped) return out;  // the list did not parse: the default events only
    skipped_hardware = *std::move(skipped);
  } else if (input.hardware_available && input.metrics != nullptr) {
    hardware = RequestsFromFormulas(input, &unopened_met);
  }
  if (!unopened_met.empty()) {
    out.notices.push_back(absl::StrFormat(
        "%sevents that do not open on this machine: %s; %s", input.td_events.empty() ? "" : "TD_EVENTS: ",
        SayUnopened(unopened_met, input.probed.unopened, &out),
        input.td_events.empty() ? "the nodes that need them are not computed" : "not counted"));
  }
  const MemoryChoice memory = SelectMemory(input, &hardware, &out);
  if (!skipped_hardware.empty()) {
    out.notices.push_back(absl::StrFormat("TD_EVENTS: hardware events %s not counted: %s",
                                          absl::StrJoin(skipped_hardware, ", "), input.hardware_reason));
  }
  std::vector<GroupRequest> possible = SchedulableRequests(std::move(hardware), model, input, &out);
  auto planned = PlanGroups(possible, model, input.plan);
  if (!planned.ok()) {  // cannot happen after the check above, but never lose the rest
    out.errors.push_back(std::string(planned.status().message()));
    return out;
  }
  // TD_MEMORY=auto takes the per-thread estimate only where a counter is free:
  // a group of its own would make every group multiplex.
  const auto estimate = std::find_if(possible.begin(), possible.end(),
                                     [](const GroupRequest& r) { return r.memory_estimate; });
  if (input.memory == MemoryMode::kAuto && estimate != possible.end()) {
    possible.erase(estimate);
    auto without = PlanGroups(possible, model, input.plan);
    if (without.ok() && without->size() < planned->size()) {
      planned = std::move(without);
      out.memory.clear();
      out.notices.push_back(absl::StrFormat(
          "memory traffic not measured: %s%sthe per-thread estimate (last-level-cache misses) would need a "
          "counter group of its own; TD_MEMORY=estimate counts it anyway",
          memory.why_no_socket, memory.why_no_socket.empty() ? "" : "; "));
    }
  }
  out.hardware_groups_planned = static_cast<int>(planned->size());
  for (size_t g = 0; g < planned->size(); ++g) {
    if (input.passes <= 1 || static_cast<int>(g % input.passes) == input.pass - 1) {
      out.groups.push_back(std::move((*planned)[g]));
    }
  }
  // Memory controllers have counters of their own: the first pass takes them.
  if (input.pass == 1) {
    out.groups.insert(out.groups.end(), memory.socket_groups.begin(), memory.socket_groups.end());
  }
  return out;
}

}  // namespace td

namespace td {

namespace {

// Moves a hardware event onto one core type's PMU; false when it belongs to another.
bool OntoCoreType(const std::string& core_type, uint32_t type, const std::vector<uint32_t>& core_types,
                  EventInfo* e) {
  if (e->perf_type == PERF_TYPE_HARDWARE || e->perf_type == PERF_TYPE_HW_CACHE) {
    e->perf_config = (e->perf_config & 0xffffffffull) | (static_cast<uint64_t>(type) << 32);
  } else if (e->perf_type == PERF_TYPE_RAW) {
    e->perf_type = type;
  } else if (std::find(core_types.begin(), core_types.end(), e->perf_type) != core_types.end()) {
    if (e->perf_type != type) return false;  // written for the other core type's PMU
  }
  e->core_type = core_type;
  e->pmu = core_type;
  return true;
}

}  // namespace

EventSelection SelectForCoreTypes(SelectionInput input, const DefinitionLibrary& library,
                                  const std::string& whole_part_uarch) {
  std::vector<std::pair<std::string, uint32_t>> present;
  std::vector<uint32_t> types;
  for (const char* pmu : {"cpu_core", "cpu_atom"}) {
    if (const auto type = ReadIntegerFile(input.sysfs_devices + "/" + pmu + "/type")) {
      present.push_back({pmu, static_cast<uint32_t>(*type)});
      types.push_back(static_cast<uint32_t>(*type));
    }
  }
  const bool hybrid = present.size() == 2;
  if (!hybrid) present = {{"cpu_core", 0}};
  EventSelection out;
  for (size_t t = 0; t < present.size(); ++t) {
    const auto& [core_type, type] = present[t];
    SelectionInput one = input;
    one.metrics = library.Find(library.UarchForPmu(whole_part_uarch, core_type));
    one.library = &library;
    if (t > 0) one.memory = MemoryMode::kOff;  // the socket is counted once
    if (hybrid) {
      const auto probed = input.probed_core_types.find(core_type);
      one.probed = probed != input.probed_core_types.end() ? probed->second : ProbedPmu{};
    }
    EventSelection part = SelectEvents(one);
    out.not_opened.insert(part.not_opened.begin(), part.not_opened.end());
    const std::string prefix = hybrid ? core_type + ": " : "";
    for (auto& e : part.errors) out.errors.push_back(prefix + e);
    for (auto& n : part.notices) out.notices.push_back(prefix + n);
    if (t == 0) out.memory = part.memory;
    out.software_group_named |= part.software_group_named;
    out.hardware_groups_planned = std::max(out.hardware_groups_planned, part.hardware_groups_planned);
    for (std::vector<EventInfo>& group : part.groups) {
      const bool hardware = std::any_of(group.begin(), group.end(), [](const EventInfo& e) {
        return e.hardware && !e.system_wide();
      });
      if (!hybrid || !hardware) {
        if (t == 0) out.groups.push_back(std::move(group));  // software and socket groups: once
        continue;
      }
      std::vector<EventInfo> placed;
      for (EventInfo& e : group) {
        if (!e.hardware || OntoCoreType(core_type, type, types, &e)) placed.push_back(std::move(e));
      }
      if (!placed.empty()) out.groups.push_back(std::move(placed));
    }
  }
  return out;
}

}  // namespace td

// SelectForThisMachine: the selection for the CPU this runs on, planned with
// what its PMU accepted when probed.
#include <linux/perf_event.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/counters/event_selection.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/counters/perf_syscall.h"
#include "runtime/counters/pmu_probe.h"
#include "runtime/machine/kernel_files.h"
#include "runtime/machine/machine_info.h"

namespace td {

namespace {

// Opens each per-thread hardware event the selection would take alone, and
// a growing group of the general-counter probe event, on each core type's
// PMU: one open and close per distinct event, a few more for the capacity.
// Not cached: a process selects once (the runtime at start, `td run` once),
// and what a PMU accepts can change between processes (another user's
// pinned events, the NMI watchdog turned off).
void ProbeForSelection(const DefinitionLibrary& library, const std::string& uarch, PerfEventOpenFn open_fn,
                       SelectionInput* input) {
  SelectionInput everything = *input;  // every pass's groups, as the definitions plan them
  everything.pass = 1;
  everything.passes = 1;
  const EventSelection wanted = SelectForCoreTypes(everything, library, uarch);
  std::map<std::string, std::vector<EventInfo>> by_core_type;  // "" off hybrid parts
  for (const std::vector<EventInfo>& group : wanted.groups) {
    for (const EventInfo& e : group) {
      if (!e.hardware || e.system_wide() || e.time_of_group >= 0) continue;
      std::vector<EventInfo>& events = by_core_type[e.core_type];
      const bool seen = std::any_of(events.begin(), events.end(), [&](const EventInfo& o) { return o.name == e.name; });
      if (!seen) events.push_back(e);
    }
  }
  for (const auto& [core_type, events] : by_core_type) {
    ProbedPmu probed;
    for (const EventOpenResult& r : ProbeEventsAlone(events, open_fn)) {
      if (r.err != 0) probed.unopened[r.name] = r.err;
    }
    EventInfo capacity_event = GeneralCounterProbeEvent();
    std::optional<int64_t> type;  // a hybrid part's core-type PMU (perf type in config[63:32])
    if (!core_type.empty()) type = ReadIntegerFile(input->sysfs_devices + "/" + core_type + "/type");
    if (type) capacity_event.perf_config |= static_cast<uint64_t>(*type) << 32;
    if (core_type.empty() || type) {
      const int capacity = ProbeGroupCapacity(capacity_event, open_fn);
      // None opening says the probe event is refused, not that there are no counters.
      probed.general_counters = capacity > 0 ? capacity : -1;
    }
    if (core_type.empty()) {
      input->probed = std::move(probed);
    } else {
      input->probed_core_types[core_type] = std::move(probed);
    }
  }
}

}  // namespace

EventSelection SelectForThisMachine(const std::string& td_events, int level, const Availability& availability,
                                    int pass, int passes, MemoryMode memory, const std::string& forced_uarch,
                                    const std::string& metrics_dir) {
  return SelectForThisMachine(&RealPerfEventOpen, td_events, level, availability, pass, passes, memory, forced_uarch,
                              metrics_dir);
}

EventSelection SelectForThisMachine(SelectionOpenFn open_fn, const std::string& td_events, int level,
                                    const Availability& availability, int pass, int passes, MemoryMode memory,
                                    const std::string& forced_uarch, const std::string& metrics_dir) {
  if (td_events.empty() && !availability.hardware_counters) return {};
  auto library = DefinitionLibrary::Load(metrics_dir);
  if (!library.ok()) {
    EventSelection failed;
    failed.errors.push_back(std::string(library.status().message()));
    return failed;
  }
  const MachineInfo machine = DescribeThisMachine();
  const std::string uarch = UarchForCpu(*library, machine.cpu_vendor, machine.cpu_family, machine.cpu_model,
                                        machine.cpu_stepping, forced_uarch);
  SelectionInput input;
  input.td_events = td_events;
  input.level = level;
  input.hardware_available = availability.hardware_counters;
  input.hardware_reason = availability.hardware_reason;
  input.plan.smt_on = machine.smt_active != 0;
  input.machine_constants = ConstantsOf(machine);
  input.plan.nmi_watchdog = machine.nmi_watchdog == 1;
  input.pass = pass;
  input.passes = passes;
  input.memory = memory;
  input.system_wide_permitted = SystemWideCountingPermitted(machine.perf_event_paranoid);
  if (availability.hardware_counters && open_fn != nullptr) ProbeForSelection(*library, uarch, open_fn, &input);
  return SelectForCoreTypes(input, *library, uarch);
}

}  // namespace td

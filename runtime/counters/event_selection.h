// Decides which counter groups a run opens: the events of TD_EVENTS, or by
// default the events of the Top-Down formulas of this CPU up to TD_LEVEL,
// planned into groups the PMU can schedule. Pure apart from libpfm4, so every
// decision is testable on a machine without a PMU.
#ifndef TD_RUNTIME_COUNTERS_EVENT_SELECTION_H_
#define TD_RUNTIME_COUNTERS_EVENT_SELECTION_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/counters/backend.h"
#include "runtime/counters/group_planner.h"
#include "runtime/counters/memory_selection.h"
#include "runtime/machine/machine_info.h"
#include "runtime/uarch/definitions.h"

namespace td {

// The formula constants the machine sets (SMT_on, CPU_Revision, Sockets,
// Has_PMEM), as the analysis sets them from the recording's `machine`.
using MachineConstants = absl::flat_hash_map<std::string, double>;
MachineConstants ConstantsOf(const MachineInfo& machine);

struct SelectionInput {
  std::string td_events;        // TD_EVENTS; empty = the formulas' events
  int level = 2;                // deepest tree level collected by default
  bool hardware_available = false;
  std::string hardware_reason;  // why not, when not available
  const MetricSet* metrics = nullptr;  // this CPU's definitions; null when unknown
  const DefinitionLibrary* library = nullptr;
  PlanOptions plan;
  int pass = 1;                 // keep hardware groups g with g % passes == pass - 1
  int passes = 1;
  std::string sysfs_devices = "/sys/bus/event_source/devices";
  MemoryMode memory = MemoryMode::kAuto;  // TD_MEMORY; kAuto adds nothing to a TD_EVENTS list
  bool system_wide_permitted = false;     // may open memory controllers (SystemWideCountingPermitted)
  // What the machine sets: a formula's branch these rule out needs no events
  // (PMM_Bound's loads without persistent memory). Empty: the files' values.
  MachineConstants machine_constants;
};

struct EventSelection {
  std::vector<std::vector<EventInfo>> groups;  // besides the default software group
  int hardware_groups_planned = 0;             // before choosing this pass's share
  std::vector<std::string> errors;             // one line each: bad names, impossible groups
  std::vector<std::string> notices;            // e.g. hardware events skipped without a PMU
  std::string memory;                          // how memory traffic is measured, one line; "" = not
  bool software_group_named = false;           // TD_EVENTS named an event of the software group
};

EventSelection SelectEvents(const SelectionInput& input);

// Hybrid CPUs (Alder/Raptor Lake): when `input.sysfs_devices` has the core-type
// PMUs cpu_core and cpu_atom, one selection per type from that type's
// definitions (UarchForPmu of `whole_part_uarch`), each hardware event opened
// on its type's PMU (sysfs type; perf generic events with the type in
// config[63:32]) and tagged with core_type. Software and memory groups come
// once. Elsewhere: SelectEvents with the core definitions of the uarch.
EventSelection SelectForCoreTypes(SelectionInput input, const DefinitionLibrary& library,
                                  const std::string& whole_part_uarch);

// SelectEvents for the machine this runs on: its definitions (MetricsForCpu),
// SMT and NMI-watchdog state; the runtime and `td run` both plan with it, so
// `td run --passes auto` counts the groups the runs will open.
EventSelection SelectForThisMachine(const std::string& td_events, int level, const Availability& availability,
                                    int pass = 1, int passes = 1, MemoryMode memory = MemoryMode::kAuto,
                                    const std::string& forced_uarch = "", const std::string& metrics_dir = "");

// The definitions key of this CPU: TD_UARCH wins over the identified model;
// an unknown CPU gets "generic"; a hybrid part its whole-part key ("adl").
// `forced` (TD_UARCH) wins when the library knows it.
std::string UarchForCpu(const DefinitionLibrary& library, const std::string& vendor, int family, int model,
                        int stepping, const std::string& forced = "");

// The events one formula needs (auxiliaries expanded), from the first of its
// alternatives whose events all encode; empty when none does.
std::vector<EventInfo> FormulaEvents(const FormulaDefinition& formula, const MetricSet& metrics,
                                     const DefinitionLibrary* library, const MachineConstants& machine = {});

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_EVENT_SELECTION_H_

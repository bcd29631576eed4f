// Decides which counter groups a run opens: the events of TD_EVENTS, or by
// default the events of the Top-Down formulas of this CPU up to TD_LEVEL,
// planned into groups the PMU can schedule. Pure apart from libpfm4, so every
// decision is testable on a machine without a PMU.
#ifndef TD_RUNTIME_COUNTERS_EVENT_SELECTION_H_
#define TD_RUNTIME_COUNTERS_EVENT_SELECTION_H_

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "runtime/counters/backend.h"
#include "runtime/counters/group_planner.h"
#include "runtime/counters/memory_selection.h"
#include "runtime/machine/machine_info.h"
#include "runtime/uarch/definitions.h"

// Declared, not included: perf_syscall.h's <linux/perf_event.h> and libpfm4's
// copy of it (event_encoder.cc includes both this and libpfm4) clash.
struct perf_event_attr;

namespace td {

// The formula constants the machine sets (SMT_on, CPU_Revision, Sockets,
// Has_PMEM), as the analysis sets them from the recording's `machine`.
using MachineConstants = absl::flat_hash_map<std::string, double>;
MachineConstants ConstantsOf(const MachineInfo& machine);

// Hardware events that did not open alone on this machine: name -> errno.
using UnopenedEvents = absl::flat_hash_map<std::string, int>;

// What opening events on this machine found (pmu_probe.h). Empty: not probed,
// and the definition files are taken at their word.
struct ProbedPmu {
  UnopenedEvents unopened;
  int general_counters = -1;  // how many general-purpose counters a group holds; -1: not probed
};

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
  // What the PMU accepted when probed: events that do not open are left out
  // with the formulas that need them; groups are planned for the counters
  // that exist. Hybrid parts: per core type ("cpu_core"), which
  // SelectForCoreTypes hands to that type's selection instead of `probed`.
  ProbedPmu probed;
  absl::flat_hash_map<std::string, ProbedPmu> probed_core_types;
};

struct EventSelection {
  std::vector<std::vector<EventInfo>> groups;  // besides the default software group
  int hardware_groups_planned = 0;             // before choosing this pass's share
  std::vector<std::string> errors;             // one line each: bad names, impossible groups
  std::vector<std::string> notices;            // e.g. hardware events skipped without a PMU
  std::string memory;                          // how memory traffic is measured, one line; "" = not
  bool software_group_named = false;           // TD_EVENTS named an event of the software group
  // Events left out because they did not open here, name -> errno name
  // ("ENOENT"): the recording keeps them so the analysis can say why a node
  // is missing.
  std::map<std::string, std::string> not_opened;
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
// `td run --passes auto` counts the groups the runs will open. With hardware
// counters, it first opens each event the selection needs alone and probes
// how many counters a group holds (ProbeForSelection).
EventSelection SelectForThisMachine(const std::string& td_events, int level, const Availability& availability,
                                    int pass = 1, int passes = 1, MemoryMode memory = MemoryMode::kAuto,
                                    const std::string& forced_uarch = "", const std::string& metrics_dir = "");

// The same, probing with `open_fn` (perf_syscall.h's PerfEventOpenFn; tests
// play a machine with it); null skips the probe.
using SelectionOpenFn = int (*)(perf_event_attr* attr, pid_t pid, int cpu, int group_fd, unsigned long flags);
EventSelection SelectForThisMachine(SelectionOpenFn open_fn, const std::string& td_events, int level,
                                    const Availability& availability, int pass, int passes, MemoryMode memory,
                                    const std::string& forced_uarch, const std::string& metrics_dir);

// The definitions key of this CPU: TD_UARCH wins over the identified model;
// an unknown CPU gets "generic"; a hybrid part its whole-part key ("adl").
// `forced` (TD_UARCH) wins when the library knows it.
std::string UarchForCpu(const DefinitionLibrary& library, const std::string& vendor, int family, int model,
                        int stepping, const std::string& forced = "");

// The events one formula needs (auxiliaries expanded), from the first of its
// alternatives whose events all encode and none of which is in `unopened`;
// empty when none does.
std::vector<EventInfo> FormulaEvents(const FormulaDefinition& formula, const MetricSet& metrics,
                                     const DefinitionLibrary* library, const MachineConstants& machine = {},
                                     const UnopenedEvents& unopened = {});

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_EVENT_SELECTION_H_

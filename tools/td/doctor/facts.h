// What `td doctor` reads off a machine: the CPU and its definitions, the
// kernel's perf settings, the PMUs in sysfs, and what perf_event_open
// actually accepts. Gathering never changes the machine; every file it reads
// sits under roots a test can point at a fake tree.
#ifndef TD_TOOLS_TD_DOCTOR_FACTS_H_
#define TD_TOOLS_TD_DOCTOR_FACTS_H_

#include <string>
#include <vector>

#include "runtime/counters/pmu_probe.h"
#include "runtime/machine/machine_info.h"

namespace td::doctor {

struct Roots {
  std::string proc = "/proc";
  std::string sysfs = "/sys";
};

struct SysfsPmu {
  std::string name;  // /sys/bus/event_source/devices/NAME
  int type = -1;     // perf_event_attr.type; -1 when unreadable
  std::string kind;  // "core", "memory", "software", "other"
};

struct Facts {
  MachineInfo machine;
  std::string uarch;        // td's definitions key for this CPU ("generic" when unknown)
  std::string tma_version;  // of that key's formulas; "" when none is given
  // x86 only: the hypervisor's CPUID signature ("KVMKVMKVM", "Microsoft Hv"…),
  // "" on bare metal; and what CPUID leaf 0xA says of architectural
  // performance monitoring (Intel): version 0 means no PMU is offered.
  bool hypervisor = false;
  std::string hypervisor_signature;
  int perfmon_version = -1;
  int cpuid_general_counters = -1;
  int cpuid_fixed_counters = -1;

  std::vector<SysfsPmu> pmus;
  int paranoid = -1;
  bool privileged = false;  // root, CAP_PERFMON or CAP_SYS_ADMIN
  int seccomp = -1;         // /proc/self/status Seccomp: 0 none, 1 strict, 2 filter
  int seccomp_filters = -1;
  int rdpmc = -1;           // the core PMU's rdpmc file; -1 when absent
  int nmi_watchdog = -1;

  int software_errno = 0;   // perf_event_open(task-clock)
  int hardware_errno = 0;   // perf_event_open(cycles)
  int probed_general_counters = -1;  // group validation; -1 when not probed
  int model_general_counters = 0;    // the definition file's, SMT on as now
  std::vector<EventOpenResult> events;  // the key's Level 1–3 events, each opened alone
  int events_level = 3;

  std::string papi;  // "" when PAPI counts CPU events here, else why not
  std::vector<std::string> papi_components;  // "perf_event (enabled)", "rapl (disabled: …)"
};

// Reads everything; `open_fn` opens the probe events (RealPerfEventOpen).
Facts Gather(const Roots& roots, PerfEventOpenFn open_fn);

// The parts of Gather a test drives with a fake tree.
std::vector<SysfsPmu> ListPmus(const std::string& sysfs);
std::string KindOfPmu(const std::string& name);
// Seccomp mode and filter count from /proc/self/status text; whether its
// CapEff holds CAP_PERFMON or CAP_SYS_ADMIN.
void ParseStatus(const std::string& status_text, Facts* facts);

}  // namespace td::doctor

#endif  // TD_TOOLS_TD_DOCTOR_FACTS_H_

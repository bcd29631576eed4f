// Facts about the machine a run happened on, for reports and replay.
#ifndef TD_RUNTIME_MACHINE_MACHINE_INFO_H_
#define TD_RUNTIME_MACHINE_MACHINE_INFO_H_

#include <string>

namespace td {

struct MachineInfo {
  std::string hostname;
  std::string kernel;         // uname release
  std::string architecture;   // uname machine, e.g. x86_64
  std::string cpu_vendor;     // vendor_id, e.g. GenuineIntel, AuthenticAMD
  std::string cpu_model_name;
  int cpu_family = -1;
  int cpu_model = -1;
  int cpu_stepping = -1;
  int logical_cpus = 0;
  int perf_event_paranoid = -1;  // -1: unreadable
  int nmi_watchdog = -1;         // -1: unreadable; 1 holds a counter on x86
  int smt_active = -1;           // /sys/devices/system/cpu/smt/active; -1: unknown
  // Arm: the core's revision rVpR as V × 16 + R (r0p3 = 3, r1p0 = 16), from
  // MIDR_EL1 (sysfs) or /proc/cpuinfo's "CPU variant" and "CPU revision";
  // -1 when unknown and on other architectures (x86 has cpu_stepping).
  int cpu_revision = -1;
  // Distinct physical_package_id of the online CPUs; -1 when unknown.
  int sockets = -1;
  // 1 when the firmware describes persistent memory (an ACPI NFIT table,
  // the test perf's #has_pmem makes), 0 when it does not; -1 when unknown.
  int persistent_memory = -1;
};

MachineInfo DescribeThisMachine();

// Parses /proc/cpuinfo text (first processor block). Exposed for tests.
void ParseCpuinfo(const std::string& text, MachineInfo* info);

// The revision (variant × 16 + revision) in an Arm MIDR_EL1 value written in
// hex ("0x00000000410fd493", as sysfs and perf's cpuid show it); -1 when the
// text is not such a number.
int CpuRevisionFromMidr(const std::string& text);

// How many sockets the CPUs under `cpu_dir` (/sys/devices/system/cpu) sit
// in: distinct cpuN/topology/physical_package_id values; -1 when none reads.
int CountSockets(const std::string& cpu_dir);

// 1 when the ACPI NFIT table file `nfit` (/sys/firmware/acpi/tables/NFIT)
// exists, as Linux perf decides #has_pmem; 0 when it does not.
int HasPersistentMemory(const std::string& nfit);

}  // namespace td

#endif  // TD_RUNTIME_MACHINE_MACHINE_INFO_H_

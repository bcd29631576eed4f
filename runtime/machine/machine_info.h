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
};

MachineInfo DescribeThisMachine();

// Parses /proc/cpuinfo text (first processor block). Exposed for tests.
void ParseCpuinfo(const std::string& text, MachineInfo* info);

}  // namespace td

#endif  // TD_RUNTIME_MACHINE_MACHINE_INFO_H_

#include "runtime/machine/machine_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "runtime/machine/kernel_files.h"

namespace td {
namespace {

int ReadIntFile(const char* path) { return static_cast<int>(ReadIntegerFile(path).value_or(-1)); }

}  // namespace

void ParseCpuinfo(const std::string& text, MachineInfo* info) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) break;  // end of the first processor's block
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key(absl::StripAsciiWhitespace(line.substr(0, colon)));
    const std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    int number = 0;
    if (key == "vendor_id") info->cpu_vendor = value;
    else if (key == "model name") info->cpu_model_name = value;
    else if (key == "cpu family" && absl::SimpleAtoi(value, &number)) info->cpu_family = number;
    else if (key == "model" && absl::SimpleAtoi(value, &number)) info->cpu_model = number;
    else if (key == "stepping" && absl::SimpleAtoi(value, &number)) info->cpu_stepping = number;
    // Arm: the implementer stands for the vendor and the part number for the model.
    else if (key == "CPU implementer") info->cpu_vendor = value;
    else if (key == "CPU part") info->cpu_model = static_cast<int>(std::strtol(value.c_str(), nullptr, 0));
    else if (key == "CPU variant") info->cpu_family = static_cast<int>(std::strtol(value.c_str(), nullptr, 0));
  }
}

MachineInfo DescribeThisMachine() {
  MachineInfo info;
  utsname names{};
  if (uname(&names) == 0) {
    info.hostname = names.nodename;
    info.kernel = names.release;
    info.architecture = names.machine;
  }
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream text;
  text << cpuinfo.rdbuf();
  ParseCpuinfo(text.str(), &info);
  info.logical_cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  info.perf_event_paranoid = ReadIntFile("/proc/sys/kernel/perf_event_paranoid");
  info.nmi_watchdog = ReadIntFile("/proc/sys/kernel/nmi_watchdog");
  info.smt_active = ReadIntFile("/sys/devices/system/cpu/smt/active");
  return info;
}

}  // namespace td

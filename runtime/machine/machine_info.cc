#include "runtime/machine/machine_info.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "runtime/machine/kernel_files.h"

namespace td {
namespace {

int ReadIntFile(const char* path) { return static_cast<int>(ReadIntegerFile(path).value_or(-1)); }

}  // namespace

int CpuRevisionFromMidr(const std::string& text) {
  uint64_t midr = 0;
  const std::string hex(absl::StripAsciiWhitespace(text));
  if (hex.size() < 3 || hex.size() > 18 || !absl::SimpleHexAtoi(hex, &midr)) return -1;
  // MIDR_EL1: variant in bits 23:20, revision in bits 3:0.
  return static_cast<int>(((midr >> 20) & 0xf) * 16 + (midr & 0xf));
}

int CountSockets(const std::string& cpu_dir) {
  std::set<int64_t> packages;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cpu_dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        !std::all_of(name.begin() + 3, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    const auto id = ReadIntegerFile((entry.path() / "topology" / "physical_package_id").string());
    if (id && *id >= 0) packages.insert(*id);
  }
  return packages.empty() ? -1 : static_cast<int>(packages.size());
}

int HasPersistentMemory(const std::string& nfit) {
  std::error_code ec;
  return std::filesystem::exists(nfit, ec) ? 1 : 0;
}

void ParseCpuinfo(const std::string& text, MachineInfo* info) {
  std::istringstream lines(text);
  std::string line;
  int arm_variant = -1;
  int arm_revision = -1;
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
    else if (key == "CPU variant") {
      arm_variant = static_cast<int>(std::strtol(value.c_str(), nullptr, 0));
      info->cpu_family = arm_variant;
    } else if (key == "CPU revision" && absl::SimpleAtoi(value, &number)) {
      arm_revision = number;
    }
  }
  if (arm_variant >= 0 && arm_variant < 16 && arm_revision >= 0 && arm_revision < 16) {
    info->cpu_revision = arm_variant * 16 + arm_revision;
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
  info.sockets = CountSockets("/sys/devices/system/cpu");
  info.persistent_memory = HasPersistentMemory("/sys/firmware/acpi/tables/NFIT");
  // Arm: the MIDR the kernel shows is exact where /proc/cpuinfo's fields may be missing.
  std::ifstream midr("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1");
  std::string midr_text;
  if (std::getline(midr, midr_text)) {
    if (const int revision = CpuRevisionFromMidr(midr_text); revision >= 0) info.cpu_revision = revision;
  }
  return info;
}

}  // namespace td

#include "tools/td/doctor/facts.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/event_selection.h"
#include "runtime/counters/papi_backend.h"
#include "runtime/uarch/definitions.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace td::doctor {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The integer a sysfs or procfs file holds; -1 when absent or not a number.
int ReadInt(const std::string& path) {
  int value = -1;
  return absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadText(path)), &value) ? value : -1;
}

void ReadCpuid(Facts* facts) {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  facts->hypervisor = ((c >> 31) & 1) != 0;
  if (facts->hypervisor) {
    __cpuid(0x40000000, a, b, c, d);
    char signature[13] = {};
    std::memcpy(signature, &b, 4);
    std::memcpy(signature + 4, &c, 4);
    std::memcpy(signature + 8, &d, 4);
    facts->hypervisor_signature = signature;
  }
  // Leaf 0xA is Intel's; AMD reports its counters elsewhere (and Linux's
  // probe below covers both).
  if (facts->machine.cpu_vendor == "GenuineIntel" && __get_cpuid_max(0, nullptr) >= 0xA) {
    __cpuid(0xA, a, b, c, d);
    facts->perfmon_version = static_cast<int>(a & 0xff);
    facts->cpuid_general_counters = static_cast<int>((a >> 8) & 0xff);
    facts->cpuid_fixed_counters = facts->perfmon_version >= 2 ? static_cast<int>(d & 0x1f) : 0;
  }
#else
  (void)facts;
#endif
}

// The key's Level 1–N events as td would open them (hybrid: both core types).
std::vector<EventInfo> TreeEvents(const DefinitionLibrary& library, const Facts& facts, const std::string& sysfs) {
  SelectionInput input;
  input.level = facts.events_level;
  input.hardware_available = true;
  input.memory = MemoryMode::kOff;
  input.sysfs_devices = sysfs + "/bus/event_source/devices";
  input.machine_constants = ConstantsOf(facts.machine);
  const EventSelection selection = SelectForCoreTypes(input, library, facts.uarch);
  std::vector<EventInfo> events;
  absl::flat_hash_set<std::string> seen;
  for (const auto& group : selection.groups) {
    for (const EventInfo& e : group) {
      if (!e.hardware || e.time_of_group >= 0) continue;
      if (seen.insert(e.core_type + "/" + e.name).second) events.push_back(e);
    }
  }
  return events;
}

}  // namespace

std::string KindOfPmu(const std::string& name) {
  if (name == "cpu" || name == "cpu_core" || name == "cpu_atom" || name.rfind("armv8", 0) == 0 ||
      name.rfind("armv9", 0) == 0) {
    return "core";
  }
  if (name.rfind("uncore_imc", 0) == 0 || name == "amd_df" || name.rfind("amd_umc", 0) == 0 ||
      name.rfind("arm_cmn", 0) == 0 || name.rfind("arm_dmc", 0) == 0) {
    return "memory";
  }
  if (name == "software" || name == "tracepoint" || name == "breakpoint" || name == "kprobe" ||
      name == "uprobe") {
    return "software";
  }
  return "other";
}

std::vector<SysfsPmu> ListPmus(const std::string& sysfs) {
  std::vector<SysfsPmu> pmus;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(sysfs + "/bus/event_source/devices", ec)) {
    SysfsPmu pmu;
    pmu.name = entry.path().filename().string();
    pmu.type = ReadInt(entry.path().string() + "/type");
    pmu.kind = KindOfPmu(pmu.name);
    pmus.push_back(std::move(pmu));
  }
  std::sort(pmus.begin(), pmus.end(), [](const SysfsPmu& a, const SysfsPmu& b) { return a.name < b.name; });
  return pmus;
}

void ParseStatus(const std::string& status_text, Facts* facts) {
  for (absl::string_view line : absl::StrSplit(status_text, '\n')) {
    absl::string_view value = line;
    if (absl::ConsumePrefix(&value, "Seccomp:")) {
      (void)absl::SimpleAtoi(absl::StripAsciiWhitespace(value), &facts->seccomp);
    } else if (absl::ConsumePrefix(&value, "Seccomp_filters:")) {
      (void)absl::SimpleAtoi(absl::StripAsciiWhitespace(value), &facts->seccomp_filters);
    } else if (absl::ConsumePrefix(&value, "CapEff:")) {
      uint64_t caps = 0;
      if (absl::SimpleHexAtoi(absl::StripAsciiWhitespace(value), &caps)) {
        constexpr uint64_t kSysAdmin = uint64_t{1} << 21;
        constexpr uint64_t kPerfmon = uint64_t{1} << 38;
        facts->privileged = (caps & (kSysAdmin | kPerfmon)) != 0;
      }
    }
  }
}

Facts Gather(const Roots& roots, PerfEventOpenFn open_fn) {
  Facts facts;
  facts.machine = DescribeThisMachine();
  ReadCpuid(&facts);
  facts.pmus = ListPmus(roots.sysfs);
  facts.paranoid = ReadInt(roots.proc + "/sys/kernel/perf_event_paranoid");
  facts.nmi_watchdog = ReadInt(roots.proc + "/sys/kernel/nmi_watchdog");
  ParseStatus(ReadText(roots.proc + "/self/status"), &facts);
  const std::string devices = roots.sysfs + "/bus/event_source/devices";
  for (const char* core : {"cpu", "cpu_core", "armv8_pmuv3_0"}) {
    if (const int rdpmc = ReadInt(devices + "/" + core + "/rdpmc"); rdpmc >= 0) {
      facts.rdpmc = rdpmc;
      break;
    }
  }

  const ProbeFacts probe = ProbeMachine(open_fn);
  facts.software_errno = probe.software_errno;
  facts.hardware_errno = probe.hardware_errno;

  auto library = DefinitionLibrary::Load("");
  if (library.ok()) {
    facts.uarch = UarchForCpu(*library, facts.machine.cpu_vendor, facts.machine.cpu_family,
                              facts.machine.cpu_model, facts.machine.cpu_stepping);
    if (const MetricSet* set = library->Find(library->UarchForPmu(facts.uarch, "cpu_core"))) {
      facts.tma_version = set->tma_version;
      facts.model_general_counters = facts.machine.smt_active == 0 && set->counters.general_without_smt > 0
                                         ? set->counters.general_without_smt
                                         : set->counters.general;
    }
    facts.events = ProbeEventsAlone(TreeEvents(*library, facts, roots.sysfs), open_fn);
  }
  if (facts.hardware_errno == 0) {
    facts.probed_general_counters = ProbeGroupCapacity(GeneralCounterProbeEvent(), open_fn);
  }
  facts.papi = PapiUnusableReason();
  facts.papi_components = PapiComponentLines();
  return facts;
}

}  // namespace td::doctor

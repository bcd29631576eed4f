#include "runtime/counters/memory_selection.h"

#include <dirent.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/counters/event_spec.h"
#include "runtime/machine/kernel_files.h"

namespace td {
namespace {

// Instances of `pattern` ("uncore_imc_*" or an exact name), in numeric order.
std::vector<std::string> MatchingPmus(const std::string& sysfs, const std::string& pattern) {
  std::vector<std::pair<int, std::string>> found;
  if (!absl::EndsWith(pattern, "*")) {
    if (ReadFirstLine(sysfs + "/" + pattern + "/type")) found.push_back({0, pattern});
  } else if (DIR* dir = opendir(sysfs.c_str())) {
    const std::string prefix = pattern.substr(0, pattern.size() - 1);
    while (const dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      int number = 0;
      if (absl::StartsWith(name, prefix) && absl::SimpleAtoi(name.substr(prefix.size()), &number)) {
        found.push_back({number, name});
      }
    }
    closedir(dir);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& f : found) names.push_back(std::move(f.second));
  return names;
}

// Bytes per count of a sysfs alias from its .scale and .unit ("6.103515625e-5"
// "MiB" = 64 B); `fallback` when they are missing or in another unit.
double AliasBytesPerCount(const std::string& pmu_dir, const std::string& terms, double fallback) {
  if (terms.find('=') != std::string::npos) return fallback;
  const std::optional<std::string> scale_text = ReadFirstLine(pmu_dir + "/events/" + terms + ".scale");
  const std::string unit = ReadFirstLine(pmu_dir + "/events/" + terms + ".unit").value_or("");
  double scale = 0;
  if (!scale_text || !absl::SimpleAtod(*scale_text, &scale)) return fallback;
  if (unit == "MiB") return scale * 1024 * 1024;
  if (unit == "KiB") return scale * 1024;
  if (unit == "B" || unit == "bytes") return scale;
  return fallback;
}

// One controller's groups: per PMU instance and socket CPU, its events in one
// group, or each alone when the definition says they outnumber the counters.
absl::StatusOr<SocketCounters> ResolveController(const MemoryControllerDefinition& controller,
                                                 const std::string& sysfs, const EventResolver& resolver) {
  const std::vector<std::string> pmus = MatchingPmus(sysfs, controller.pmu);
  if (pmus.empty()) return absl::NotFoundError(controller.pmu + " is not present");
  SocketCounters out;
  size_t sockets = 0;
  for (const std::string& pmu : pmus) {
    const std::optional<std::string> cpumask = ReadFirstLine(sysfs + "/" + pmu + "/cpumask");
    const std::vector<int> cpus = ParseCpuList(cpumask ? *cpumask : std::string());
    if (cpus.empty()) {
      return absl::FailedPreconditionError(
          absl::StrFormat("memory controller %s: no CPU in its cpumask to count it on", pmu));
    }
    sockets = std::max(sockets, cpus.size());
    std::vector<EventInfo> events;
    for (const MemoryEventDefinition& def : controller.events) {
      auto event = resolver.Resolve(absl::StrFormat("%s/%s/", pmu, def.terms));
      if (!event.ok()) {
        return absl::FailedPreconditionError(
            absl::StrFormat("memory controller %s: %s", pmu, event.status().message()));
      }
      event->traffic = def.traffic;
      event->bytes_per_count = AliasBytesPerCount(sysfs + "/" + pmu, def.terms, def.bytes_per_count);
      event->unit = "count";
      events.push_back(*std::move(event));
    }
    for (int cpu : cpus) {
      std::vector<EventInfo> group = events;
      for (size_t i = 0; i < group.size(); ++i) {
        group[i].cpu = cpu;
        group[i].name = absl::StrFormat("%s.%s%s@cpu%d", pmu, group[i].traffic,
                                        controller.separate_groups ? absl::StrFormat("%d", i) : "", cpu);
      }
      if (controller.separate_groups) {
        for (EventInfo& e : group) out.groups.push_back({std::move(e)});
      } else {
        out.groups.push_back(std::move(group));
      }
    }
  }
  out.description = absl::StrFormat("%s%s on %d socket%s", pmus.front(),
                                    pmus.size() > 1 ? absl::StrCat("..", pmus.back().substr(controller.pmu.size() - 1)) : "",
                                    sockets, sockets == 1 ? "" : "s");
  if (!controller.description.empty()) out.description += " (" + controller.description + ")";
  return out;
}

}  // namespace

std::vector<int> ParseCpuList(const std::string& text) {
  std::vector<int> cpus;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    const std::vector<std::string> range = absl::StrSplit(absl::StripAsciiWhitespace(part), '-');
    int first = 0, last = 0;
    if (range.size() == 1 && absl::SimpleAtoi(range[0], &first)) {
      cpus.push_back(first);
    } else if (range.size() == 2 && absl::SimpleAtoi(range[0], &first) && absl::SimpleAtoi(range[1], &last) &&
               first <= last) {
      for (int c = first; c <= last; ++c) cpus.push_back(c);
    }
  }
  return cpus;
}

bool SystemWideCountingPermitted(int perf_event_paranoid) {
  if (geteuid() == 0 || (perf_event_paranoid >= -1 && perf_event_paranoid <= 0)) return true;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
  constexpr int kCapPerfmon = 38;  // CAP_PERFMON, Linux 5.8+
  return has(CAP_SYS_ADMIN) || has(kCapPerfmon);
}

absl::StatusOr<SocketCounters> ResolveSocketCounters(const MemoryModel& model, const std::string& sysfs) {
  EventResolver resolver;
  resolver.sysfs_devices = sysfs;
  absl::Status last_error = absl::NotFoundError("no memory-controller PMU of this CPU is present");
  for (const MemoryControllerDefinition& controller : model.controllers) {
    auto counters = ResolveController(controller, sysfs, resolver);
    if (counters.ok()) return counters;
    if (!absl::IsNotFound(counters.status())) last_error = counters.status();  // present but unusable
  }
  return last_error;
}

}  // namespace td

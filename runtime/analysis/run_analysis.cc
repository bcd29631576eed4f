#include "runtime/analysis/run_analysis.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "runtime/analysis/event_names.h"
#include "runtime/analysis/perf_case.h"

namespace td {

std::optional<double> ScaledRegionCount(const RunData& data, const Region& region,
                                        size_t event_index) {
  const size_t group = [&] {
    for (size_t g = 0; g < data.layout.groups.size(); ++g) {
      const GroupInfo& info = data.layout.groups[g];
      if (event_index >= info.first_event && event_index < info.first_event + info.num_events) {
        return g;
      }
    }
    return data.layout.groups.size();
  }();
  double total = 0;
  bool measured = false;
  for (const RegionOnThread& t : region.threads) {
    if (t.events.size() != data.layout.events.size() || group >= t.groups.size()) continue;
    const GroupTimes& times = t.groups[group];
    if (times.running_ns == 0) continue;  // never ran in this region: not measured, not 0
    measured = true;
    total += static_cast<double>(t.events[event_index].inclusive) *
             static_cast<double>(times.enabled_ns) / static_cast<double>(times.running_ns);
  }
  return measured ? std::optional<double>(total) : std::nullopt;
}

RunAnalysis AnalyzeRun(const RunData& data, const DefinitionLibrary& library,
                       const std::string& uarch_override) {
  RunAnalysis analysis;
  const bool any_hardware = std::any_of(data.layout.events.begin(), data.layout.events.end(),
                                        [](const EventInfo& e) { return e.hardware; });
  if (!any_hardware) {
    analysis.unavailable = data.availability.hardware_counters
                               ? "no hardware events were recorded"
                               : "no hardware counters: " + data.availability.hardware_reason;
    return analysis;
  }
  if (!uarch_override.empty()) {
    analysis.uarch = uarch_override;
  } else {
    auto key = library.Identify(data.machine.cpu_vendor, data.machine.cpu_family,
                                data.machine.cpu_model, data.machine.cpu_stepping);
    if (!key.ok()) {
      analysis.unavailable = std::string(key.status().message());
      return analysis;
    }
    analysis.uarch = *key;
  }
  // Hybrid parts: a recording of one core type's PMU. The core PMU is the default.
  auto set = library.ForUarch(UarchForPmu(analysis.uarch, "cpu_core"));
  if (!set.ok()) {
    analysis.unavailable = std::string(set.status().message());
    return analysis;
  }
  std::vector<std::string> recorded;
  for (const EventInfo& e : data.layout.events) recorded.push_back(NormalizeEventName(e.name));
  for (const Region& region : data.regions) {
    // Formulas use perf stat's units: task-clock in ms, elapsed time in s.
    const double elapsed_s = static_cast<double>(Totals(region, 0).wall_inclusive_ns) / 1e9;
    auto lookup = [&](const std::vector<std::string>& spellings,
                      std::string*) -> std::optional<double> {
      for (const std::string& s : spellings) {
        if (s == "seconds_time_elapsed") return elapsed_s;
        const auto at = std::find(recorded.begin(), recorded.end(), s);
        if (at == recorded.end()) continue;
        const auto index = static_cast<size_t>(at - recorded.begin());
        const std::optional<double> count = ScaledRegionCount(data, region, index);
        const bool nanoseconds = data.layout.events[index].unit == "ns";
        return count && nanoseconds ? std::optional<double>(*count / 1e6) : count;
      }
      return std::nullopt;
    };
    TopDownResult result = AnalyzeCounts(*set, lookup);
    Diagnose(static_cast<int>(region.threads.size()), &result);
    analysis.regions.push_back(std::move(result));
  }
  return analysis;
}

}  // namespace td

#include "runtime/analysis/run_analysis.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "runtime/uarch/event_names.h"
#include "runtime/analysis/perf_case.h"

namespace td {

std::optional<double> GroupCoverage(const Region& region, size_t group) {
  double enabled = 0;
  double running = 0;
  for (const RegionOnThread& t : region.threads) {
    if (group >= t.groups.size()) continue;
    enabled += static_cast<double>(t.groups[group].enabled_ns);
    running += static_cast<double>(t.groups[group].running_ns);
  }
  if (enabled <= 0) return std::nullopt;
  return running / enabled;
}

std::optional<size_t> EventNamed(const RunData& data, const std::string& name) {
  if (const auto exact = data.EventIndex(name)) return exact;
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kAliases = {
      {"instructions", {"INST_RETIRED.ANY", "INST_RETIRED.ANY_P", "ex_ret_instr", "INST_RETIRED", "sim.instructions"}},
      {"cycles", {"cpu-cycles", "CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.CORE", "ls_not_halted_cyc", "CPU_CYCLES"}},
  };
  for (const auto& [alias, events] : kAliases) {
    if (!absl::EqualsIgnoreCase(alias, name)) continue;
    for (const std::string& event : events) {
      for (size_t i = 0; i < data.layout.events.size(); ++i) {
        if (absl::EqualsIgnoreCase(data.layout.events[i].name, event)) return i;
      }
    }
  }
  return std::nullopt;
}

std::optional<double> ScaledRegionCount(const RunData& data, const Region& region,
                                        size_t event_index, bool exclusive) {
  const size_t group = data.layout.GroupOf(event_index);
  double total = 0;
  bool measured = false;
  for (const RegionOnThread& t : region.threads) {
    if (t.events.size() != data.layout.events.size() || group >= t.groups.size()) continue;
    const GroupTimes& times = t.groups[group];
    if (times.running_ns == 0) continue;  // never ran in this region: not measured, not 0
    measured = true;
    const EventDelta& delta = t.events[event_index];
    total += static_cast<double>(exclusive ? delta.exclusive : delta.inclusive) *
             static_cast<double>(times.enabled_ns) / static_cast<double>(times.running_ns);
  }
  return measured ? std::optional<double>(total) : std::nullopt;
}

void AddSocketTraffic(const RunData& data, const Region& region, bool exclusive, TopDownResult* result) {
  double read = 0, write = 0, total = 0;
  bool measured = false;
  for (size_t e = 0; e < data.layout.events.size(); ++e) {
    const EventInfo& event = data.layout.events[e];
    if (!event.system_wide() || event.bytes_per_count <= 0) continue;
    const std::optional<double> count = ScaledRegionCount(data, region, e, exclusive);
    if (!count) continue;
    measured = true;
    const double bytes = *count * event.bytes_per_count;
    (event.traffic == "read" ? read : event.traffic == "write" ? write : total) += bytes;
  }
  if (!measured) return;
  if (read > 0 || write > 0) {
    result->metrics.push_back({"Socket_Read_Bytes", read});
    result->metrics.push_back({"Socket_Write_Bytes", write});
  }
  result->metrics.push_back({"Socket_Memory_Bytes", read + write + total});
}

// Hybrid: the share of the region's time its threads ran on `core_type`,
// from the groups of that PMU (they count only there).
void AddCoreTypeShare(const RunData& data, const Region& region, const std::string& core_type,
                      TopDownResult* result) {
  double share = -1;
  for (size_t g = 0; g < data.layout.groups.size(); ++g) {
    const GroupInfo& group = data.layout.groups[g];
    if (group.num_events == 0 || data.layout.events[group.first_event].core_type != core_type) continue;
    share = std::max(share, GroupCoverage(region, g).value_or(0));
  }
  if (share < 0) return;
  result->metrics.push_back({"Core_Type_Time_Share", share});
  result->notes.push_back(absl::StrFormat(
      "%s: counted while the region's threads ran on %s cores, %.0f%% of its time (counts of each core type are "
      "kept apart, not mixed)",
      core_type, core_type == "cpu_atom" ? "efficiency" : "performance", 100 * share));
}

// The trees of every region from the events of one core type ("" = all).
void AnalyzeRegions(const RunData& data, const MetricSet& set, const std::string& core_type,
                    RunAnalysis* analysis) {
  std::vector<std::string> recorded;
  for (const EventInfo& e : data.layout.events) {
    // Another core type's copy of an event must never be found.
    const bool usable = core_type.empty() || e.core_type.empty() || e.core_type == core_type;
    recorded.push_back(usable ? NormalizeEventName(e.name) : std::string());
  }
  EvaluationOptions options;
  if (data.machine.smt_active >= 0) options.constants["SMT_on"] = data.machine.smt_active;
  if (data.machine.smt_active == 0) options.constants["Core_Wide"] = 1;  // as ConstantsOf (event_selection.cc)
  if (data.machine.cpu_revision >= 0) options.constants["CPU_Revision"] = data.machine.cpu_revision;
  if (data.machine.sockets > 0) options.constants["Sockets"] = data.machine.sockets;
  if (data.machine.persistent_memory >= 0) options.constants["Has_PMEM"] = data.machine.persistent_memory;
  options.not_opened.insert(data.availability.events_not_opened.begin(), data.availability.events_not_opened.end());
  for (const Region& region : data.regions) {
    for (const bool exclusive : {false, true}) {
      if (exclusive && region.children.empty()) {
        analysis->exclusive.emplace_back();
        continue;
      }
      // Formulas use perf stat's units: task-clock in ms, elapsed time in s.
      const RegionTotals totals = Totals(region, 0);
      const double elapsed_s =
          static_cast<double>(exclusive ? totals.wall_exclusive_ns : totals.wall_inclusive_ns) / 1e9;
      auto lookup = [&](const std::vector<std::string>& spellings,
                        std::string*) -> std::optional<double> {
        for (const std::string& s : spellings) {
          if (s == "seconds_time_elapsed") return elapsed_s;
          // The planner may have put an event in several groups: take the
          // copy whose group counted longest in this region.
          std::optional<size_t> best;
          double best_coverage = -1;
          for (size_t index = 0; index < recorded.size(); ++index) {
            if (recorded[index] != s) continue;
            const double coverage = GroupCoverage(region, data.layout.GroupOf(index)).value_or(0);
            if (coverage > best_coverage) {
              best = index;
              best_coverage = coverage;
            }
          }
          if (!best) continue;
          const std::optional<double> count = ScaledRegionCount(data, region, *best, exclusive);
          const bool nanoseconds = data.layout.events[*best].unit == "ns";
          return count && nanoseconds ? std::optional<double>(*count / 1e6) : count;
        }
        return std::nullopt;
      };
      TopDownResult result = AnalyzeCounts(set, lookup, options);
      if (!core_type.empty()) AddCoreTypeShare(data, region, core_type, &result);
      // Memory controllers count the socket, whatever core type ran: once, with the first.
      if (core_type.empty() || core_type == "cpu_core") AddSocketTraffic(data, region, exclusive, &result);
      Diagnose(static_cast<int>(region.threads.size()), analysis->peak_gbps, &result);
      (exclusive ? analysis->exclusive : analysis->regions).push_back(std::move(result));
    }
  }
}

RunAnalysis AnalyzeRun(const RunData& data, const DefinitionLibrary& library,
                       const std::string& uarch_override, std::optional<double> peak_gbps) {
  RunAnalysis analysis;
  analysis.peak_gbps = peak_gbps;
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
    if (key.ok()) {
      analysis.uarch = *key;
    } else {
      // Unknown CPU: Level 1 from Linux's own topdown events, if they were
      // recorded; otherwise there is no tree and the message says why.
      analysis.uarch = "generic";
      analysis.unknown_cpu = std::string(key.status().message());
    }
  }
  // Hybrid parts record each core type's events on its own PMU: every core
  // type gets its own trees from its own events, never a mix.
  std::vector<std::string> core_types;
  for (const EventInfo& e : data.layout.events) {
    if (!e.core_type.empty() && std::find(core_types.begin(), core_types.end(), e.core_type) == core_types.end()) {
      core_types.push_back(e.core_type);
    }
  }
  std::sort(core_types.begin(), core_types.end(), std::greater<>());  // cpu_core first
  if (core_types.empty()) core_types.push_back("");
  const std::string whole_part = analysis.uarch;
  for (const std::string& core_type : core_types) {
    RunAnalysis* target = &analysis;
    if (core_type != core_types.front()) {
      analysis.other_core_types.emplace_back();
      target = &analysis.other_core_types.back();
      target->peak_gbps = peak_gbps;
    }
    target->core_type = core_type;
    target->uarch = library.UarchForPmu(whole_part, core_type.empty() ? "cpu_core" : core_type);
    const MetricSet* set = library.Find(target->uarch);
    if (set == nullptr) {
      target->unavailable = std::string(library.ForUarch(target->uarch).status().message());
      continue;
    }
    target->tma_version = set->tma_version;
    AnalyzeRegions(data, *set, core_type, target);
  }
  if (!analysis.unavailable.empty()) return analysis;
  if (!analysis.unknown_cpu.empty() &&
      std::none_of(analysis.regions.begin(), analysis.regions.end(),
                   [](const TopDownResult& r) { return r.AnyMeasured(); })) {
    analysis.unavailable = analysis.unknown_cpu;  // nothing generic was recorded either
    analysis.regions.clear();
    analysis.exclusive.clear();
  }
  return analysis;
}

}  // namespace td

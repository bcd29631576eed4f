// td report --json: the analysis of a run as one JSON document.
#include "runtime/report/analysis_json.h"

#include "runtime/base/byte_strings.h"
#include "runtime/analysis/measurement_conditions.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/analysis/thread_spread.h"
#include "runtime/report/call_times_text.h"

namespace td {
namespace {

// Integers stay integers (counts, nanoseconds); not measured is null.
nlohmann::json SoftwareValueJson(const SoftwareMetric& m) {
  if (!m.value) return nullptr;
  if (m.unit == SoftwareUnit::kCpus) return *m.value;
  return SoftwareIntegerValue(*m.value);
}

// Calls, wall times and the software metrics, inclusive and exclusive: the
// same totals the text report prints (threads summed, wall = longest thread).
void AddMeasuredJson(const RunData& data, const Region& region, nlohmann::json* out) {
  const RegionTotals totals = Totals(region, 0);
  (*out)["calls"] = totals.calls;
  (*out)["wall_inclusive_ns"] = totals.wall_inclusive_ns;
  (*out)["wall_exclusive_ns"] = totals.wall_exclusive_ns;
  const std::vector<SoftwareMetric> inclusive = RegionSoftwareMetrics(data, region, false);
  const std::vector<SoftwareMetric> exclusive = RegionSoftwareMetrics(data, region, true);
  nlohmann::json software = nlohmann::json::object();
  for (size_t m = 0; m < inclusive.size(); ++m) {
    nlohmann::json& entry = software[inclusive[m].key];
    entry["inclusive"] = SoftwareValueJson(inclusive[m]);
    // A ratio of two exclusive differences is noise, not a measurement: left out.
    if (inclusive[m].unit != SoftwareUnit::kCpus) entry["exclusive"] = SoftwareValueJson(exclusive[m]);
  }
  (*out)["software"] = std::move(software);
}

// The spread over the threads (thread_spread.h), null where one thread ran
// the region; the team CPU, null where no team threads' copies were added.
void AddThreadsJson(const RunData& data, const ThreadSpread& s, const TeamCpu& cpu, nlohmann::json* out) {
  using nlohmann::json;
  json spread = nullptr;
  if (s.threads >= 2) {
    json copies = json::array();
    for (const size_t c : s.copies) copies.push_back(data.regions[c].path);
    spread = {{"threads", s.threads},
              {"wall_min_ns", s.min},
              {"wall_mean_ns", s.mean},
              {"wall_max_ns", s.max},
              {"imbalance", s.Imbalance()},
              {"slowest_thread", s.slowest},
              {"slowest_openmp_thread", s.slowest_openmp >= 0 ? json(s.slowest_openmp) : json(nullptr)},
              {"nested_copies", std::move(copies)},
              {"outer_copy_threads", s.outer_copies}};
  }
  (*out)["across_threads"] = std::move(spread);
  json team = nullptr;
  if (!cpu.team_paths.empty() && cpu.team_ns) {
    team = {{"task_clock_ns", SoftwareIntegerValue(*cpu.team_ns)},
            {"own_task_clock_ns", cpu.own_ns ? json(SoftwareIntegerValue(*cpu.own_ns)) : json(nullptr)},
            {"added_regions", cpu.team_paths}};
  }
  (*out)["team_cpu"] = std::move(team);
}

}  // namespace

nlohmann::json RunAnalysisToJson(const RunData& data, const RunAnalysis& analysis) {
  using nlohmann::json;
  json out = {{"uarch", analysis.uarch},
              {"available", analysis.HasTrees()},
              {"unavailable_reason", analysis.unavailable},
              {"peak_gbps", analysis.peak_gbps ? json(*analysis.peak_gbps) : json(nullptr)},
              {"regions", json::array()}};
  auto result_json = [&](const TopDownResult& r) {
    json tree = json::array();
    for (const TreeNode& n : r.tree) {
      tree.push_back({{"name", n.name},
                      {"parent", n.parent},
                      {"level", n.level},
                      {"kind", NodeKindName(n.kind)},
                      {"value", n.value ? json(*n.value) : json(nullptr)},
                      {"no_samples", n.no_samples},
                      {"threshold", n.threshold ? json(*n.threshold) : json(nullptr)},
                      {"flagged", n.flagged},
                      {"critical", n.critical},
                      {"not_measured_because", n.why_not},
                      {"estimated", n.estimated.empty() ? json(nullptr) : json(n.estimated)},
                      {"formula_version", n.formula_version.empty() ? json(nullptr) : json(n.formula_version)},
                      {"formerly", n.former_names}});
    }
    json metrics = json::object();
    for (const Metric& m : r.metrics) {
      metrics[m.name] = m.value;
      // Former names too, for readers of older output (docs/analysis.md).
      for (const std::string& old : m.former_names) {
        if (!metrics.contains(old)) metrics[old] = m.value;
      }
    }
    json diagnoses = json::array();
    for (const Diagnosis& d : r.diagnoses) {
      diagnoses.push_back({{"id", d.id}, {"title", d.title}, {"evidence", d.evidence}, {"advice", d.advice}});
    }
    return json{{"tree", tree}, {"metrics", metrics}, {"diagnoses", diagnoses}, {"notes", r.notes}};
  };
  // Every region has an entry with what was measured, tree or not; the
  // trees are null when there is none (no hardware counts).
  const std::vector<ThreadSpread> spreads = TeamSpreads(data);
  const std::vector<TeamCpu> team_cpu = TeamTaskClock(data, spreads);
  for (size_t i = 0; i < data.regions.size(); ++i) {
    json region = {{"path", data.regions[i].path}, {"threads", data.regions[i].threads.size()}};
    AddMeasuredJson(data, data.regions[i], &region);
    AddThreadsJson(data, spreads[i], team_cpu[i], &region);
    const std::optional<CallTimeSummary> call_times = RegionCallTimes(data, data.regions[i]);
    region["call_times"] = call_times ? CallTimesJson(*call_times) : json(nullptr);
    const bool has_tree = analysis.HasTrees() && i < analysis.regions.size();
    region["inclusive"] = has_tree ? result_json(analysis.regions[i]) : json(nullptr);
    const bool has_exclusive = has_tree && i < analysis.exclusive.size() && !analysis.exclusive[i].tree.empty();
    region["exclusive"] = has_exclusive ? result_json(analysis.exclusive[i]) : json(nullptr);
    out["regions"].push_back(std::move(region));
  }
  out["measurement_conditions"] = json::array();
  for (const ConditionWarning& w : CheckMeasurementConditions(data)) {
    out["measurement_conditions"].push_back({{"region", w.region}, {"id", w.id}, {"text", w.text}});
  }
  if (!analysis.core_type.empty()) {
    out["core_type"] = analysis.core_type;
    out["other_core_types"] = json::array();
    for (const RunAnalysis& other : analysis.other_core_types) {
      out["other_core_types"].push_back(RunAnalysisToJson(data, other));
    }
  }
  MakeJsonStringsValid(&out);  // paths and notes may carry a program's bytes: never a throwing dump
  return out;
}

}  // namespace td

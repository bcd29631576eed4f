#include "runtime/report/csv_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/analysis/measurement_conditions.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/analysis/thread_spread.h"
#include "runtime/base/text_format.h"
#include "runtime/counters/simulated_backend.h"
#include "runtime/recorded/call_time_summary.h"

namespace td {
namespace {

void Row(std::string* out, const std::string& region, const char* kind, const std::string& name,
         const std::string& value, bool flagged = false, bool critical = false) {
  absl::StrAppendFormat(out, "%s,%s,%s,%s,%d,%d\n", CsvField(region), kind, CsvField(name), value,
                        flagged ? 1 : 0, critical ? 1 : 0);
}

// What a node's value rests on besides its counts (an estimate, an older
// version's formula), "" when nothing.
std::string NodeNote(const TreeNode& n) {
  std::string note = n.estimated.empty() ? "" : "estimated: " + n.estimated;
  if (!n.formula_version.empty()) note += (note.empty() ? "" : "; ") + FormulaVersionText(n.formula_version);
  return note;
}

std::string Number(double v) { return absl::StrFormat("%.10g", v); }

// Kind "threads": the spread over the threads (thread_spread.h), where more
// than one ran the region, and each nested copy it counts; then the team
// CPU where team threads' copies were added to the region's own.
void ThreadRows(const RunData& data, const Region& region, const ThreadSpread& s, const TeamCpu& cpu,
                std::string* out) {
  if (s.threads >= 2) {
    Row(out, region.path, "threads", "threads", absl::StrCat(s.threads));
    Row(out, region.path, "threads", "wall_min_ns", absl::StrCat(s.min));
    Row(out, region.path, "threads", "wall_mean_ns", Number(s.mean));
    Row(out, region.path, "threads", "wall_max_ns", absl::StrCat(s.max));
    Row(out, region.path, "threads", "imbalance", Number(s.Imbalance()));
    Row(out, region.path, "threads", "slowest_thread", absl::StrCat(s.slowest));
    Row(out, region.path, "threads", "slowest_openmp_thread", s.slowest_openmp >= 0 ? absl::StrCat(s.slowest_openmp) : "");
    for (const size_t c : s.copies) Row(out, region.path, "threads", "nested_copy", CsvField(data.regions[c].path));
  }
  if (!cpu.team_paths.empty() && cpu.team_ns) {
    Row(out, region.path, "time", "team_task_clock_ns", absl::StrCat(SoftwareIntegerValue(*cpu.team_ns)));
  }
}

}  // namespace

std::string FormatCsvReport(const RunData& data, const RunAnalysis* analysis) {
  std::string out = "region,kind,name,value,flagged,critical\n";
  const size_t num_events = data.layout.events.size();
  const std::vector<ThreadSpread> spreads = TeamSpreads(data);
  const std::vector<TeamCpu> team_cpu = TeamTaskClock(data, spreads);
  for (size_t r = 0; r < data.regions.size(); ++r) {
    const Region& region = data.regions[r];
    const RegionTotals totals = Totals(region, num_events);
    Row(&out, region.path, "time", "calls", absl::StrCat(totals.calls));
    Row(&out, region.path, "time", "wall_inclusive_ns", absl::StrCat(totals.wall_inclusive_ns));
    Row(&out, region.path, "time", "wall_exclusive_ns", absl::StrCat(totals.wall_exclusive_ns));
    // The counts below are raw; CPU utilisation is the one derived software
    // value (the text report's CPUs column).
    for (const SoftwareMetric& m : RegionSoftwareMetrics(data, region)) {
      if (m.unit == SoftwareUnit::kCpus) Row(&out, region.path, "time", m.key, m.value ? Number(*m.value) : "");
    }
    ThreadRows(data, region, spreads[r], team_cpu[r], &out);
    if (const std::optional<CallTimeSummary> c = RegionCallTimes(data, region)) {  // usage.md#per-call-times
      Row(&out, region.path, "call_times", "calls", absl::StrCat(c->calls));
      for (const auto& [name, ns] : {std::pair{"min_ns", c->min_ns}, std::pair{"median_ns", c->median_ns},
                                     std::pair{"p95_ns", c->p95_ns}, std::pair{"max_ns", c->max_ns}}) {
        Row(&out, region.path, "call_times", name, absl::StrFormat("%.0f", ns));
      }
      Row(&out, region.path, "call_times", "calls_over_twice_median", absl::StrCat(c->calls_over_twice_median));
    }
    for (size_t e = 0; e < num_events; ++e) {
      const std::string& name = data.layout.events[e].name;
      if (IsSimulatedEvent(name)) {  // tdsim's counts: never multiplexed, and never a PMU's
        Row(&out, region.path, "simulated", name,
            totals.counters_measured ? absl::StrCat(totals.events[e].inclusive) : "");
        continue;
      }
      Row(&out, region.path, "count", name,
          totals.counters_measured ? absl::StrCat(totals.events[e].inclusive) : "");
      const auto scaled = ScaledRegionCount(data, region, e);
      Row(&out, region.path, "scaled", name, scaled ? Number(*scaled) : "");
    }
    if (analysis == nullptr || !analysis->HasTrees() || r >= analysis->regions.size()) continue;
    const TopDownResult& result = analysis->regions[r];
    // Values are numbers, empty when not measured, "no samples" when a 0 / 0 went into them.
    for (const TreeNode& n : result.tree) {
      Row(&out, region.path, "node", n.name, !n.value ? "" : n.no_samples ? "no samples" : Number(*n.value),
          n.flagged, n.critical);
      if (const std::string note = NodeNote(n); n.value && !note.empty()) {
        Row(&out, region.path, "node_note", n.name, CsvField(note));
      }
    }
    for (const Metric& m : result.metrics) {
      Row(&out, region.path, "metric", m.name, m.no_samples ? "no samples" : Number(m.value));
    }
  }
  for (const ConditionWarning& w : CheckMeasurementConditions(data)) Row(&out, w.region, "condition", w.id, CsvField(w.text));
  return out;
}

}  // namespace td

#include "runtime/report/csv_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/analysis/measurement_conditions.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/base/text_format.h"
#include "runtime/counters/simulated_backend.h"

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

}  // namespace

std::string FormatCsvReport(const RunData& data, const RunAnalysis* analysis) {
  std::string out = "region,kind,name,value,flagged,critical\n";
  const size_t num_events = data.layout.events.size();
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

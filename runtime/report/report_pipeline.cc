#include "runtime/report/report_pipeline.h"

namespace td {

std::string ReportPipeline::Text(const RunData& run, const TextReportOptions& options, std::string* problem) {
  if (TakesOutMarkerCost(run)) {
    RunData without = run;
    TakeOutMarkerCost(&without);
    return Text(without, options, problem);
  }
  if (!HasHardwareCounts(run)) return FormatTextReport(run, nullptr, options);
  absl::StatusOr<RunAnalysis> analysis = Analyze(run);
  if (!analysis.ok()) {
    *problem = std::string(analysis.status().message());
    return FormatTextReport(run, nullptr, options);
  }
  return FormatTextReport(run, &*analysis, options);
}

}  // namespace td

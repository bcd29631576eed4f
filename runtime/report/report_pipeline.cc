#include "runtime/report/report_pipeline.h"

#include <algorithm>

#include "runtime/machine/bandwidth_calibration.h"
#include "runtime/base/status_macros.h"

namespace td {

absl::StatusOr<const DefinitionLibrary*> ReportPipeline::Definitions() {
  if (!library_) library_ = DefinitionLibrary::Load(settings_.metrics_dir);
  if (!library_->ok()) return library_->status();
  return &**library_;
}

namespace {

bool HoldsMarkerCost(const RunData& run) { return run.marker_cost && !run.marker_cost->taken_out; }

}  // namespace

absl::StatusOr<RunAnalysis> ReportPipeline::Analyze(const RunData& run) {
  if (settings_.compensate && HoldsMarkerCost(run)) {
    RunData without = run;
    TakeOutMarkerCost(&without);
    return Analyze(without);
  }
  TD_ASSIGN_OR_RETURN(const DefinitionLibrary* library, Definitions());
  return AnalyzeRun(run, *library, settings_.uarch, CachedPeakGbps(run.machine, settings_.calibration_file));
}

std::string ReportPipeline::Text(const RunData& run, const TextReportOptions& options, std::string* problem) {
  if (settings_.compensate && HoldsMarkerCost(run)) {
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

bool HasHardwareCounts(const RunData& run) {
  return std::any_of(run.layout.events.begin(), run.layout.events.end(),
                     [](const EventInfo& e) { return e.hardware; });
}

}  // namespace td

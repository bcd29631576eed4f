#include "runtime/analysis/analysis_pipeline.h"

#include <algorithm>

#include "runtime/base/status_macros.h"
#include "runtime/machine/bandwidth_calibration.h"

namespace td {

absl::StatusOr<const DefinitionLibrary*> AnalysisPipeline::Definitions() {
  if (!library_) library_ = DefinitionLibrary::Load(settings_.metrics_dir);
  if (!library_->ok()) return library_->status();
  return &**library_;
}

bool AnalysisPipeline::TakesOutMarkerCost(const RunData& run) const {
  return settings_.compensate && run.marker_cost && !run.marker_cost->taken_out;
}

absl::StatusOr<RunAnalysis> AnalysisPipeline::Analyze(const RunData& run) {
  if (TakesOutMarkerCost(run)) {
    RunData without = run;
    TakeOutMarkerCost(&without);
    return Analyze(without);
  }
  TD_ASSIGN_OR_RETURN(const DefinitionLibrary* library, Definitions());
  return AnalyzeRun(run, *library, settings_.uarch, CachedPeakGbps(run.machine, settings_.calibration_file));
}

bool HasHardwareCounts(const RunData& run) {
  return std::any_of(run.layout.events.begin(), run.layout.events.end(),
                     [](const EventInfo& e) { return e.hardware; });
}

}  // namespace td

// Recorded run -> analysis: the one way the runtime at exit, `td report`,
// `td compare`, `td run` and a job's loader analyse a run, so that what they
// print about the same run agrees (which definitions, which CPU, which
// bandwidth peak). Rendering the result is report/'s (ReportPipeline).
#ifndef TD_RUNTIME_ANALYSIS_ANALYSIS_PIPELINE_H_
#define TD_RUNTIME_ANALYSIS_ANALYSIS_PIPELINE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"
#include "runtime/uarch/definitions.h"

namespace td {

// The settings analysis depends on (from td's configuration or flags).
struct AnalysisSettings {
  std::string metrics_dir;       // TD_METRICS_DIR; "" = the built-in definitions
  std::string uarch;             // TD_UARCH or --uarch; "" = the CPU the run recorded
  std::string calibration_file;  // where `td calibrate` keeps each machine's bandwidth peak
  bool compensate = true;        // TD_COMPENSATE: td's own marker cost taken out (TakeOutMarkerCost)
};

class AnalysisPipeline {
 public:
  explicit AnalysisPipeline(AnalysisSettings settings) : settings_(std::move(settings)) {}
  const AnalysisSettings& settings() const { return settings_; }

  // The definitions, loaded on first use and kept; the error names the file.
  absl::StatusOr<const DefinitionLibrary*> Definitions();

  // The run analysed with this pipeline's definitions and CPU, and the
  // recording machine's calibrated peak bandwidth when it has one. td's
  // marker cost is taken out of a copy of `run` first where
  // TakesOutMarkerCost says so.
  absl::StatusOr<RunAnalysis> Analyze(const RunData& run);

  // Whether the settings ask for td's marker cost to be taken out and `run`
  // has it and still holds raw values.
  bool TakesOutMarkerCost(const RunData& run) const;

 private:
  AnalysisSettings settings_;
  std::optional<absl::StatusOr<DefinitionLibrary>> library_;
};

// Whether any recorded event is a hardware event (what trees are made from).
bool HasHardwareCounts(const RunData& run);

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_ANALYSIS_PIPELINE_H_

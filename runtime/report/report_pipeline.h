// Recorded run -> analysis -> report: the one path the runtime at exit,
// `td report`, `td compare` and `td run` all take, so what they print about
// the same run agrees (which definitions, which CPU, which bandwidth peak).
#ifndef TD_RUNTIME_REPORT_REPORT_PIPELINE_H_
#define TD_RUNTIME_REPORT_REPORT_PIPELINE_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/model/run_data.h"
#include "runtime/report/text_report.h"
#include "runtime/uarch/definitions.h"

namespace td {

// The settings analysis depends on (from td's configuration or flags).
struct AnalysisSettings {
  std::string metrics_dir;       // TD_METRICS_DIR; "" = the built-in definitions
  std::string uarch;             // TD_UARCH or --uarch; "" = the CPU the run recorded
  std::string calibration_file;  // where `td calibrate` keeps each machine's bandwidth peak
  bool compensate = true;        // TD_COMPENSATE: td's own marker cost taken out (TakeOutMarkerCost)
};

class ReportPipeline {
 public:
  explicit ReportPipeline(AnalysisSettings settings) : settings_(std::move(settings)) {}

  const AnalysisSettings& settings() const { return settings_; }

  // The definitions, loaded on first use and kept; the error names the file.
  absl::StatusOr<const DefinitionLibrary*> Definitions();

  // Both take td's marker cost out of a copy of `run` first when the settings
  // say so and the run has it and still holds raw values.
  //
  // The run analysed with this pipeline's definitions and CPU, and the
  // recording machine's calibrated peak bandwidth when it has one.
  absl::StatusOr<RunAnalysis> Analyze(const RunData& run);

  // The text report. Top-Down trees need hardware counts: a run without any
  // gets the report without trees and no definitions are loaded. When the
  // definitions do not load, `*problem` says why and the report has no trees.
  std::string Text(const RunData& run, const TextReportOptions& options, std::string* problem);

 private:
  AnalysisSettings settings_;
  std::optional<absl::StatusOr<DefinitionLibrary>> library_;
};

// Whether any recorded event is a hardware event (what trees are made from).
bool HasHardwareCounts(const RunData& run);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_REPORT_PIPELINE_H_

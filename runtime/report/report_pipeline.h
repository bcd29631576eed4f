// Recorded run -> analysis -> text report: the analysis pipeline
// (runtime/analysis/analysis_pipeline.h) with the text report on top, so that
// the runtime at exit, `td report`, `td compare` and `td run` print the same
// report of the same run.
#ifndef TD_RUNTIME_REPORT_REPORT_PIPELINE_H_
#define TD_RUNTIME_REPORT_REPORT_PIPELINE_H_

#include <string>
#include <utility>

#include "runtime/analysis/analysis_pipeline.h"
#include "runtime/recorded/run_data.h"
#include "runtime/report/text_report.h"

namespace td {

class ReportPipeline : public AnalysisPipeline {
 public:
  explicit ReportPipeline(AnalysisSettings settings) : AnalysisPipeline(std::move(settings)) {}

  // The text report. Top-Down trees need hardware counts: a run without any
  // gets the report without trees and no definitions are loaded. When the
  // definitions do not load, `*problem` says why and the report has no trees.
  std::string Text(const RunData& run, const TextReportOptions& options, std::string* problem);
};

}  // namespace td

#endif  // TD_RUNTIME_REPORT_REPORT_PIPELINE_H_

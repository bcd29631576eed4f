// The analysis of a run as JSON (td report --json).
#ifndef TD_RUNTIME_REPORT_ANALYSIS_JSON_H_
#define TD_RUNTIME_REPORT_ANALYSIS_JSON_H_

#include "nlohmann/json.hpp"
#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"

namespace td {

// One entry per region with its calls, wall times and software metrics
// (task-clock, cpu_utilization, page faults, …), and the tree with values
// (null when not measured), flags, critical path, metrics, diagnoses, notes —
// the trees null without hardware counts.
nlohmann::json RunAnalysisToJson(const RunData& data, const RunAnalysis& analysis);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_ANALYSIS_JSON_H_

// The Top-Down part of the text report: a Level-1 bar per region, the
// flagged path, diagnoses with their evidence, and what was not measured.
#ifndef TD_RUNTIME_REPORT_TOPDOWN_TEXT_H_
#define TD_RUNTIME_REPORT_TOPDOWN_TEXT_H_

#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"

namespace td {

struct TextReportOptions;
std::string FormatTopDownSection(const RunData& data, const RunAnalysis& analysis,
                                 const TextReportOptions& options);

// Explanations of every node flagged and every diagnosis made in the run.
std::string FormatExplanations(const RunAnalysis& analysis);

// A bar of `width` characters, one letter per Level-1 category in
// proportion to its share: F(rontend) S(peculation) R(etiring) B(ackend).
std::string LevelOneBar(const TopDownResult& result, int width);

// "iron law: 1.2e+09 instructions × 0.80 CPI ÷ 3.10 GHz = 310 ms of CPU
// time", the text report's line under a region (the HTML page shows it too);
// "" when the tree lacks one of the three.
std::string IronLawText(const TopDownResult& result);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_TOPDOWN_TEXT_H_

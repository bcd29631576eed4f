// The report printed at exit: regions as a tree with their times and counts.
#ifndef TD_RUNTIME_REPORT_TEXT_REPORT_H_
#define TD_RUNTIME_REPORT_TEXT_REPORT_H_

#include <cstdint>
#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/model/run_data.h"

namespace td {

struct TextReportOptions {
  int max_level = 0;      // deepest Top-Down level shown on the flagged path; 0 = all
  std::string region;     // only this region (path or unique name) and what it contains
  bool per_thread = true; // a row per thread under each region (when more than one)
  bool color = false;     // ANSI colour: flagged values red, the flagged path bold
};

// Whether a region passes the --region filter: its path or name, or inside it.
bool RegionSelected(const RunData& data, size_t index, const std::string& filter);

// `analysis` adds the Top-Down section; null leaves it out.
std::string FormatTextReport(const RunData& data, const RunAnalysis* analysis = nullptr,
                             const TextReportOptions& options = {});

// "850 ns", "12.3 µs", "4.56 ms", "1.234 s".
std::string HumanDuration(int64_t ns);
// 1234567 -> "1,234,567".
std::string WithThousands(uint64_t value);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_TEXT_REPORT_H_

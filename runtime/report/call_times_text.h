// Per-call times in the reports (docs/usage.md#per-call-times): the text
// report's section, for the regions whose calls vary enough to say more
// than their total, and the JSON every region carries (the CSV rows are
// csv_report.cc's).
#ifndef TD_RUNTIME_REPORT_CALL_TIMES_TEXT_H_
#define TD_RUNTIME_REPORT_CALL_TIMES_TEXT_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "runtime/recorded/call_time_summary.h"
#include "runtime/recorded/run_data.h"

namespace td {

// `shown`: per region, whether the report shows it. Empty when no shown
// region's calls vary (CallTimesWorthShowing).
std::string FormatCallTimesSection(const RunData& data, const std::vector<bool>& shown);

// {"calls", "mean_ns", "min_ns", "median_ns", "p95_ns", "max_ns",
// "calls_over_twice_median", "varies"} (docs/json-schema.md).
nlohmann::json CallTimesJson(const CallTimeSummary& summary);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_CALL_TIMES_TEXT_H_

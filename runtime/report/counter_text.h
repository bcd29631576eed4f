// The "counters" section of the text report: every event beyond the default
// software group, per region, scaled for multiplexing, with each group's
// coverage (the share of the region's time the group was on the PMU).
#ifndef TD_RUNTIME_REPORT_COUNTER_TEXT_H_
#define TD_RUNTIME_REPORT_COUNTER_TEXT_H_

#include <optional>
#include <string>

#include "runtime/recorded/run_data.h"
#include "runtime/report/text_report.h"

namespace td {

// Regions whose counts rest on fewer instructions per call than this are
// marked: below it, the read overhead and skid are a large part of the count.
inline constexpr double kShortRegionInstructions = 12000;

// Empty when the run counted only the default software group.
std::string FormatCounterSection(const RunData& data, const TextReportOptions& options);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_COUNTER_TEXT_H_

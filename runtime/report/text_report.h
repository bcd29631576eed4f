// The report printed at exit: regions as a tree with their times and counts.
#ifndef TD_RUNTIME_REPORT_TEXT_REPORT_H_
#define TD_RUNTIME_REPORT_TEXT_REPORT_H_

#include <cstdint>
#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/report/run_data.h"

namespace td {

// `analysis` adds the Top-Down section; null leaves it out.
std::string FormatTextReport(const RunData& data, const RunAnalysis* analysis = nullptr);

// "850 ns", "12.3 µs", "4.56 ms", "1.234 s".
std::string HumanDuration(int64_t ns);
// 1234567 -> "1,234,567".
std::string WithThousands(uint64_t value);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_TEXT_REPORT_H_

// The run as tidy CSV: one row per region and quantity — times, raw and
// scaled event counts, Top-Down nodes, metrics — ready for pandas or R.
#ifndef TD_RUNTIME_REPORT_CSV_REPORT_H_
#define TD_RUNTIME_REPORT_CSV_REPORT_H_

#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"

namespace td {

// Columns: region,kind,name,value,flagged,critical. kind is time (calls,
// wall times and cpu_utilization = task-clock / wall, when recorded), count
// (raw inclusive, summed over threads), scaled (multiplex-scaled), node or
// metric. Not measured is an empty value, never 0.
std::string FormatCsvReport(const RunData& data, const RunAnalysis* analysis);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_CSV_REPORT_H_

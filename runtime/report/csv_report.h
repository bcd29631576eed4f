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
// metric; threads (where several threads ran the region: threads,
// wall_min_ns, wall_mean_ns, wall_max_ns, imbalance, slowest_thread,
// slowest_openmp_thread, one nested_copy row per nested copy counted;
// thread_spread.h), and time team_task_clock_ns where team threads' copies
// add to the region's CPU time. Not measured is an empty value, never 0.
std::string FormatCsvReport(const RunData& data, const RunAnalysis* analysis);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_CSV_REPORT_H_

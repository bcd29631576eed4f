// Parts of the HTML report (html_report.cc) that stand on their own: the
// stylesheet every page starts with, the spread of each region's wall time
// across threads, and the sweep plots.
#ifndef TD_RUNTIME_REPORT_HTML_SECTIONS_H_
#define TD_RUNTIME_REPORT_HTML_SECTIONS_H_

#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"

namespace td {

// The stylesheet of every page td writes (the run's report, the job view).
extern const char kPageStyle[];

// The text report's "across threads" section as a table (class "threads"):
// each region that ran on more than one thread with its wall time's min,
// mean and max over the threads, imbalance (max / mean) and the slowest
// thread. Nothing when no region ran on several threads.
void AppendAcrossThreads(const RunData& data, std::string* out);
// Per-call times (call_time_summary.h) of the regions called more than
// once, as a table (class "call-times"; rows that vary: class "varies").
void AppendCallTimes(const RunData& data, std::string* out);

// An inline SVG line plot of `metric` against the parameter for each sweep
// (the regions at one path that differ only in their parameter), with its
// axes labelled and ticks at round values.
void AppendSweeps(const RunData& data, const RunAnalysis& analysis, const std::string& metric, std::string* out);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_HTML_SECTIONS_H_

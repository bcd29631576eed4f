// Where the run's wall time went, drawn at the top of the HTML report with
// or without hardware counters: an icicle of the region tree. Each region is
// a bar whose width is its inclusive wall time (longest thread) as a share
// of the run's, its children in the row below, so the part of a bar with
// nothing under it is the region's exclusive time. Plain HTML and CSS; the
// page's script only hides labels that do not fit their bar.
#ifndef TD_RUNTIME_REPORT_HTML_TIME_CHART_H_
#define TD_RUNTIME_REPORT_HTML_TIME_CHART_H_

#include <string>

#include "runtime/recorded/run_data.h"

namespace td {

// Regions narrower than this share of the run are left out of the chart
// (their subtrees too), and the page says how many: a run with thousands of
// small regions would otherwise draw thousands of unreadable slivers.
inline constexpr double kChartMinShare = 0.005;
// Rows below this depth are left out for the same reason.
inline constexpr int kChartMaxDepth = 24;

// The chart's CSS, for the page's <style>.
extern const char kTimeChartStyle[];

// The chart's script: fits each label to its bar (the name alone where name
// and time do not fit, none where neither does) now and on resize, and
// defines timeChartSelfTest(), which returns {"width": the chart's px,
// "left_out": n, "bars": [{"path", "share", "left_share", "width", "left",
// "label", "label_fits"}, …]} for the page's #selftest.
extern const char kTimeChartScript[];

// Appends the chart (a heading, a line saying how to read it and what was
// left out, the bars); nothing when the run has no region with wall time.
void AppendTimeChart(const RunData& data, std::string* out);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_HTML_TIME_CHART_H_

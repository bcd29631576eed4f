// A self-contained HTML report (no network, no external files): a chart of
// where the wall time went (html_time_chart.h), the regions as a nested table
// with calls, wall times and software metrics (task-clock, CPUs, page
// faults, …), their spread across threads, and a section for each region
// with more to show than the table (stacked Level-1 bars, IPC and iron law, a
// collapsible tree with the flagged path highlighted, explanations as
// tooltips, per-thread tables, diagnoses), measurement notes and sweep plots.
#ifndef TD_RUNTIME_REPORT_HTML_REPORT_H_
#define TD_RUNTIME_REPORT_HTML_REPORT_H_

#include <optional>
#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/base/text_format.h"  // HtmlEscape, used beside the report
#include "runtime/recorded/run_data.h"
#include "runtime/job/job_view.h"

namespace td {

// Opened with "#selftest" in its URL, the page measures its own bars and
// writes {"bars": [{"expected": px, "actual": px}, …], "regions": [{"path",
// "depth", "left": px of the name, "cells": {key: {"value", "text",
// "visible"}}}, …], "chart": the time chart's bars (kTimeChartScript),
// "sections": the ids of the region sections drawn, "scroll_width" and
// "client_width": the page's, in px} into <pre id="selftest">, so a headless
// browser can check the layout.
// `plot_metric` picks what sweeps (parameterised regions) are plotted against
// their parameter: "wall_per_call" (default), or a node or metric name.
std::string FormatHtmlReport(const RunData& data, const RunAnalysis& analysis,
                             const std::string& plot_metric = "wall_per_call");

// What the job view's heat map colours its cells by: the region's wall time
// on the rank (share of the region's slowest rank), its CPU time
// (task-clock, share of the rank with the most), or the share of its wall
// time spent in MPI calls (0 to 100 %).
enum class HeatMetric { kWall, kCpu, kMpi };
// "wall", "cpu", "mpi"; none for another name.
std::optional<HeatMetric> HeatMetricNamed(const std::string& name);

// An MPI job's ranks side by side (td report DIR --html OUT.html;
// docs/hpc.md): a heat map with one row per region and one column per rank,
// each cell coloured in ten steps (class h0 … h9) by `heat` where the page
// opens, with a selector that recolours it by each of the three metrics the
// ranks' files hold (data-h: the cell's step under wall, CPU and MPI, '-'
// where it has none; data-t: the letters w, c, m of the metrics it is the
// region's top rank by, marked ▲ and class "slowest"; data-ns, data-c,
// data-m: its wall, CPU and MPI times in ns), a rank that did not run the region grey (class
// "none"); then the job table and the Level-1 spreads. Opened with
// "#selftest", the page writes {"rows": [{"path", "name", "cells": [{"rank",
// "ns", "cpu_ns", "mpi_ns", "cls", "bg", "mark", "width"}, …]}, …], "scale":
// [the ten steps' colours], "metric": the one shown, "by_metric": {metric:
// per row, per cell {"cls", "bg", "mark"} with the page switched to it}}
// into <pre id="selftest">.
std::string FormatJobHtml(const JobView& view, HeatMetric heat = HeatMetric::kWall);

// In the <head> of every page td writes, so that `td report X.json --html`
// knows an X.html it may replace (its own) from one it must leave alone.
inline constexpr char kTdPageMark[] = "<meta name=\"generator\" content=\"td\">";


}  // namespace td

#endif  // TD_RUNTIME_REPORT_HTML_REPORT_H_

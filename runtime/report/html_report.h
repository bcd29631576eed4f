// A self-contained HTML report (no network, no external files): a chart of
// where the wall time went (html_time_chart.h), the regions as a nested table
// with calls, wall times and software metrics (task-clock, CPUs, page
// faults, …), their spread across threads, and a section for each region
// with more to show than the table (stacked Level-1 bars, IPC and iron law, a
// collapsible tree with the flagged path highlighted, explanations as
// tooltips, per-thread tables, diagnoses), measurement notes and sweep plots.
#ifndef TD_RUNTIME_REPORT_HTML_REPORT_H_
#define TD_RUNTIME_REPORT_HTML_REPORT_H_

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

// An MPI job's ranks side by side (td report DIR --html OUT.html;
// docs/hpc.md): a heat map with one row per region and one column per rank,
// each cell the region's wall time on that rank coloured by its share of the
// region's slowest rank (ten steps, class h0 … h9; data-ns holds the time),
// the slowest rank's cell marked (class "slowest", ▲), a rank that did not
// run the region grey (class "none"); then the job table and the Level-1
// spreads. Opened with "#selftest", the page writes {"rows": [{"path",
// "name", "cells": [{"rank", "ns", "cls", "bg", "mark", "width"}, …]}, …],
// "scale": [the ten steps' colours]} into <pre id="selftest">.
std::string FormatJobHtml(const JobView& view);

// In the <head> of every page td writes, so that `td report X.json --html`
// knows an X.html it may replace (its own) from one it must leave alone.
inline constexpr char kTdPageMark[] = "<meta name=\"generator\" content=\"td\">";


}  // namespace td

#endif  // TD_RUNTIME_REPORT_HTML_REPORT_H_

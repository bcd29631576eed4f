// A self-contained HTML report (no network, no external files): the regions
// as a nested table with calls, wall times and software metrics (task-clock,
// CPUs, page faults, …), per-region stacked Level-1 bars, a collapsible tree
// with the flagged path highlighted, explanations as tooltips, per-thread
// tables, diagnoses and measurement notes.
#ifndef TD_RUNTIME_REPORT_HTML_REPORT_H_
#define TD_RUNTIME_REPORT_HTML_REPORT_H_

#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/model/run_data.h"

namespace td {

// Opened with "#selftest" in its URL, the page measures its own bars and
// writes {"bars": [{"expected": px, "actual": px}, …], "regions": [{"path",
// "depth", "left": px of the name, "cells": {key: {"value", "text",
// "visible"}}}, …]} into <pre id="selftest">, so a headless browser can
// check the layout.
// `plot_metric` picks what sweeps (parameterised regions) are plotted against
// their parameter: "wall_per_call" (default), or a node or metric name.
std::string FormatHtmlReport(const RunData& data, const RunAnalysis& analysis,
                             const std::string& plot_metric = "wall_per_call");

// &, <, > and " as entities; invalid UTF-8 and control bytes as \xHH (Printable).
std::string HtmlEscape(const std::string& text);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_HTML_REPORT_H_

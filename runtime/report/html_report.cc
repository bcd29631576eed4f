#include "runtime/report/html_report.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/base/byte_strings.h"
#include "runtime/report/explanations.h"
#include "runtime/report/html_sections.h"
#include "runtime/report/html_time_chart.h"
#include "runtime/report/topdown_text.h"
#include "absl/strings/ascii.h"
#include "runtime/report/run_identity.h"
#include "runtime/report/simulated_text.h"
#include "runtime/analysis/measurement_conditions.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/report/text_report.h"
#include "runtime/base/text_format.h"

namespace td {

const char kPageStyle[] = R"(
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.note { color: #8a4b00; } .muted { color: #666; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border-bottom: 1px solid #ddd; padding: .2em .6em; text-align: right; }
td { white-space: nowrap; }
td:first-child, th:first-child { text-align: left; }
.bar { display: flex; width: 600px; height: 22px; border: 1px solid #999; }
.seg { height: 100%; }
.fe { background: #7aa6d8; } .bs { background: #e07b7b; }
.rt { background: #8cc68c; } .be { background: #e8b65a; }
.legend span { display: inline-block; width: 1em; height: 1em; margin: 0 .3em 0 1em; vertical-align: middle; }
.wide { overflow-x: auto; max-width: 100%; }
tr.varies td { font-weight: 600; }
p { overflow-wrap: anywhere; }
.ipc { margin: .3em 0; }
details { margin-left: 1.2em; } summary { cursor: pointer; }
.node.flagged > summary { color: #b00; font-weight: 600; }
.node.critical > summary { background: #ffe9a8; }
.diagnosis { border-left: 4px solid #b00; padding: .3em .8em; margin: .5em 0; background: #fff4f4; }
)";

namespace {

// Opened as report.html#selftest, the page reports its own bar geometry.
constexpr char kSelfTest[] = R"(
if (location.hash === '#selftest') {
  const bars = [];
  for (const seg of document.querySelectorAll('.seg')) {
    const total = seg.parentElement.clientWidth;
    bars.push({expected: total * parseFloat(seg.dataset.share),
               actual: seg.getBoundingClientRect().width});
  }
  const regions = [];
  for (const row of document.querySelectorAll('table.regions tr[data-region]')) {
    const name = row.querySelector('td.name > *');
    const cells = {};
    for (const cell of row.querySelectorAll('td[data-key]')) {
      cells[cell.dataset.key] = {value: cell.dataset.value, text: cell.textContent,
                                 visible: cell.getBoundingClientRect().width > 0};
    }
    regions.push({path: row.dataset.region, depth: parseInt(row.dataset.depth),
                  left: name.getBoundingClientRect().left, cells: cells});
  }
  const page = document.documentElement;
  const out = document.createElement('pre');
  out.id = 'selftest';
  out.hidden = true;  // out of the screenshot taken in the same load
  out.textContent = JSON.stringify({bars: bars, regions: regions, chart: timeChartSelfTest(),
                                    sections: [...document.querySelectorAll('h2[id^=region-]')].map(h => h.id),
                                    scroll_width: page.scrollWidth, client_width: page.clientWidth});
  document.body.appendChild(out);
}
)";



std::string Tooltip(const std::string& name) {
  const Explanation* e = ExplanationFor(name);
  return e == nullptr ? "" : HtmlEscape(std::string(e->meaning) + " When flagged: " + e->to_try);
}

// The tree as nested <details>; the flagged path starts open.
void AppendTree(const TopDownResult& r, const std::string& parent, std::string* out) {
  for (const TreeNode& n : r.tree) {
    if (n.parent != parent) continue;
    std::string classes = "node";
    if (n.flagged) classes += " flagged";
    if (n.critical) classes += " critical";
    const std::string value = NodeValueText(n);
    absl::StrAppendFormat(out, "<details class=\"%s\" data-node=\"%s\"%s><summary title=\"%s\">%s — %s%s%s</summary>",
                          classes, HtmlEscape(n.name), n.critical ? " open" : "",
                          Tooltip(n.name), HtmlEscape(n.ShortName()), value,
                          (n.estimated.empty() ? "" : " (estimated: " + HtmlEscape(n.estimated) + ")") +
                              (n.formula_version.empty() ? "" : " (" + HtmlEscape(FormulaVersionText(n.formula_version)) + ")"),
                          n.flagged ? " (flagged)" : "");
    AppendTree(r, n.name, out);
    *out += "</details>\n";
  }
}

// A software metric as a table cell; data-value holds the unrounded number
// ("" when not measured) for scripts and tests.
void AppendSoftwareCell(const SoftwareMetric& m, std::string* out) {
  std::string raw;
  if (m.value) {
    raw = m.unit == SoftwareUnit::kCpus ? absl::StrFormat("%.6g", *m.value)
                                        : absl::StrCat(SoftwareIntegerValue(*m.value));  // clamped
  }
  absl::StrAppendFormat(out, "<td data-key=\"%s\" data-value=\"%s\">%s</td>", HtmlEscape(m.key), raw,
                        FormatSoftwareValue(m));
}

// Whether a region's section would say more than the table and the chart:
// without counters, a single thread and no simulated counts it would only
// repeat "1 call, 3 ms wall".
bool HasSection(const RunData& data, const Region& region, const TopDownResult* result) {
  return region.threads.size() > 1 || !SimulatedCountsText(data, region).empty() ||
         (result != nullptr && result->AnyMeasured());
}

// `anchor` tells apart the same region's blocks of different core types.
void AppendRegion(const RunData& data, size_t index, const TopDownResult* result, std::string* out,
                  const std::string& anchor = "") {
  const Region& region = data.regions[index];
  const RegionTotals totals = Totals(region, data.layout.events.size());
  absl::StrAppendFormat(out, "<h2 id=\"region-%d%s\">%s</h2>\n<p class=\"muted\">%d call%s, %s wall (longest thread), %d thread%s</p>\n",
                        index, anchor, HtmlEscape(region.path), totals.calls, totals.calls == 1 ? "" : "s",
                        HumanDuration(totals.wall_inclusive_ns), region.threads.size(),
                        region.threads.size() == 1 ? "" : "s");
  if (const std::string counts = SimulatedCountsText(data, region); !counts.empty()) {
    const std::string rates(absl::StripAsciiWhitespace(SimulatedRatesLine(data, region)));
    absl::StrAppendFormat(out, "<p class=\"simulated\">%s<br>%s</p>\n", HtmlEscape(counts), HtmlEscape(rates));
  }
  if (result != nullptr && result->AnyMeasured()) {
    *out += "<div class=\"bar\" role=\"img\" aria-label=\"Level 1\">";
    for (const LevelOneCategory& c : kLevelOneCategories) {
      const TreeNode* n = result->Find(c.node);
      if (n == nullptr || !n->value || n->no_samples) continue;
      const double share = std::max(0.0, *n->value);
      absl::StrAppendFormat(out, "<div class=\"seg %s\" data-share=\"%.6f\" style=\"width: %.4f%%\" title=\"%s %s\"></div>",
                            c.css, share, 100 * share, c.label, PercentText(share));
    }
    *out += "</div>\n";
    // The text report's IPC column and iron-law line.
    const Metric* ipc = result->FindMetric("IPC");
    std::string figures = ipc == nullptr ? "" : ipc->no_samples ? "IPC: no samples" : absl::StrFormat("IPC %.2f", ipc->value);
    if (const std::string law = IronLawText(*result); !law.empty()) {
      absl::StrAppend(&figures, figures.empty() ? "" : "; ", law);
    }
    if (!figures.empty()) absl::StrAppendFormat(out, "<p class=\"ipc\">%s</p>\n", HtmlEscape(figures));
    for (const Diagnosis& d : result->diagnoses) {
      absl::StrAppendFormat(out, "<div class=\"diagnosis\"><b>%s</b>: %s<br><i>Try:</i> %s</div>\n",
                            HtmlEscape(d.title), HtmlEscape(d.evidence), HtmlEscape(d.advice));
    }
    *out += "<div class=\"tree\">\n";
    AppendTree(*result, "", out);
    *out += "</div>\n";
  }
  if (region.threads.size() > 1) {
    *out += "<div class=\"wide\"><table><tr><th>thread</th><th>calls</th><th>wall incl</th><th>wall excl</th>";
    for (const SoftwareMetric& m : SoftwareMetricColumns(data)) absl::StrAppend(out, "<th>", HtmlEscape(m.label), "</th>");
    *out += "</tr>\n";
    for (const RegionOnThread& t : region.threads) {
      absl::StrAppendFormat(out, "<tr><td>%d</td><td>%d</td><td>%s</td><td>%s</td>", t.thread,
                            t.calls, HumanDuration(t.wall_inclusive_ns),
                            HumanDuration(t.wall_exclusive_ns));
      const bool measured = t.events.size() == data.layout.events.size();
      for (const SoftwareMetric& m :
           SoftwareMetricsOf(data, measured ? absl::MakeConstSpan(t.events) : absl::Span<const EventDelta>(), t.wall_inclusive_ns)) {
        AppendSoftwareCell(m, out);
      }
      *out += "</tr>\n";
    }
    *out += "</table></div>\n";
  }
}

const TopDownResult* ResultOf(const RunAnalysis& analysis, size_t index) {
  return analysis.HasTrees() && index < analysis.regions.size() ? &analysis.regions[index] : nullptr;
}

// The region tree as one table, nested as in the text report, with what was
// measured in each region: there whether or not a Top-Down tree is. A name
// links to the region's section where it has one.
void AppendRegionTable(const RunData& data, const RunAnalysis& analysis, std::string* out) {
  *out += "<h2>Regions</h2>\n<div class=\"wide\"><table class=\"regions\">\n<tr><th>region</th><th>calls</th>"
          "<th>wall incl</th><th>wall excl</th>";
  for (const SoftwareMetric& m : SoftwareMetricColumns(data)) absl::StrAppend(out, "<th>", HtmlEscape(m.label), "</th>");
  *out += "</tr>\n";
  for (const RegionInTree& node : RegionTreeOrder(data)) {
    const Region& region = data.regions[node.index];
    const RegionTotals totals = Totals(region, 0);
    absl::StrAppendFormat(out,
                          "<tr data-region=\"%s\" data-depth=\"%d\"><td class=\"name\" style=\"padding-left:%.1fem\">"
                          "%s</td><td data-key=\"calls\" data-value=\"%d\">%s</td>"
                          "<td data-key=\"wall_inclusive_ns\" data-value=\"%d\">%s</td>"
                          "<td data-key=\"wall_exclusive_ns\" data-value=\"%d\">%s</td>",
                          HtmlEscape(region.path), node.depth, 0.6 + 1.4 * node.depth,
                          HasSection(data, region, ResultOf(analysis, node.index))
                              ? absl::StrFormat("<a href=\"#region-%d\">%s</a>", node.index, HtmlEscape(region.name))
                              : "<span>" + HtmlEscape(region.name) + "</span>",
                          totals.calls, WithThousands(totals.calls),
                          totals.wall_inclusive_ns, HumanDuration(totals.wall_inclusive_ns),
                          totals.wall_exclusive_ns, HumanDuration(totals.wall_exclusive_ns));
    for (const SoftwareMetric& m : RegionSoftwareMetrics(data, region)) AppendSoftwareCell(m, out);
    *out += "</tr>\n";
  }
  *out += "</table></div>\n";
}

}  // namespace

std::string FormatHtmlReport(const RunData& data, const RunAnalysis& analysis,
                             const std::string& plot_metric) {
  std::string out = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", kTdPageMark, "\n");
  absl::StrAppendFormat(&out, "<title>td report: %s</title>\n<style>%s</style></head><body>\n",
                        HtmlEscape(data.program.name), std::string(kPageStyle) + kTimeChartStyle);
  absl::StrAppendFormat(&out, "<h1>td report: %s (pid %d)</h1>\n", HtmlEscape(data.program.name),
                        data.program.pid);
  // The same identity as the text report's header, one line each.
  std::vector<std::string> identity;
  for (absl::string_view line : absl::StrSplit(RunIdentityLines(data, &analysis), '\n', absl::SkipEmpty())) {
    identity.push_back(HtmlEscape(std::string(line)));
  }
  if (!identity.empty()) {
    absl::StrAppendFormat(&out, "<p class=\"identity\">%s</p>\n", absl::StrJoin(identity, "<br>"));
  }
  absl::StrAppendFormat(&out, "<p>%s (%s family %d model %d), %d logical CPUs; backend %s</p>\n",
                        HtmlEscape(data.machine.cpu_model_name), HtmlEscape(data.machine.cpu_vendor),
                        data.machine.cpu_family, data.machine.cpu_model, data.machine.logical_cpus,
                        HtmlEscape(data.backend));
  // The chart first: where the time went is what a reader looks for, with
  // or without counters; the notes below qualify it.
  AppendTimeChart(data, &out);
  absl::StrAppendFormat(&out, "<p>Measured: %s</p>\n", HtmlEscape(data.availability.measured));
  if (!data.availability.hardware_counters) {
    absl::StrAppendFormat(&out, "<p class=\"note\">Hardware counters unavailable: %s</p>\n",
                          HtmlEscape(data.availability.hardware_reason));
  }
  for (const ConditionWarning& w : CheckMeasurementConditions(data)) {
    absl::StrAppendFormat(&out, "<p class=\"note\">Measurement conditions: %s</p>\n", HtmlEscape(w.text));
  }
  if (!analysis.HasTrees() && !data.availability.hardware_counters) {
    // The reason is the line above; saying it twice buries it.
    out += "<p class=\"note\">Top-Down: not available without hardware counters; the table shows what was "
           "measured.</p>\n";
  } else if (!analysis.HasTrees()) {
    absl::StrAppendFormat(&out, "<p class=\"note\">Top-Down: not available — %s</p>\n",
                          HtmlEscape(analysis.unavailable));
  } else {
    absl::StrAppendFormat(&out, "<p>Top-Down definitions: <b>%s</b>. Bars are shares of pipeline slots; "
                          "hover a node for what it means.</p>\n<p class=\"legend\">", HtmlEscape(analysis.uarch));
    for (const LevelOneCategory& c : kLevelOneCategories) {
      absl::StrAppendFormat(&out, "<span class=\"%s\"></span>%s", c.css, c.label);
    }
    out += "</p>\n";
  }
  // Before the table: a short section that a table of thousands of regions
  // would push out of sight.
  AppendAcrossThreads(data, &out);
  AppendCallTimes(data, &out);
  AppendRegionTable(data, analysis, &out);
  if (!analysis.core_type.empty()) {
    absl::StrAppendFormat(&out, "<h2>%s cores (%s)</h2>\n",
                          analysis.core_type == "cpu_atom" ? "Efficiency" : "Performance",
                          HtmlEscape(analysis.core_type));
  }
  size_t collapsed = 0;
  for (size_t i = 0; i < data.regions.size(); ++i) collapsed += !HasSection(data, data.regions[i], ResultOf(analysis, i));
  if (collapsed > 0) {
    // Said once rather than as a section per region repeating the table.
    absl::StrAppendFormat(&out, "<p class=\"muted collapsed\">%d region%s without a section of %s own: a region's "
                          "section shows its Top-Down tree, IPC and diagnoses, which need hardware counters, or its "
                          "threads when it ran on several; calls and wall times are in the table and the chart "
                          "above.</p>\n", collapsed, collapsed == 1 ? "" : "s", collapsed == 1 ? "its" : "their");
  }
  for (size_t i = 0; i < data.regions.size(); ++i) {
    const TopDownResult* result = ResultOf(analysis, i);
    if (HasSection(data, data.regions[i], result)) AppendRegion(data, i, result, &out);
  }
  // Hybrid: the other core types' trees, each from its own counters.
  for (const RunAnalysis& other : analysis.other_core_types) {
    absl::StrAppendFormat(&out, "<h2>%s cores (%s): definitions <b>%s</b></h2>\n",
                          other.core_type == "cpu_atom" ? "Efficiency" : "Performance",
                          HtmlEscape(other.core_type), HtmlEscape(other.uarch));
    for (size_t i = 0; i < data.regions.size(); ++i) {
      const TopDownResult* result = ResultOf(other, i);
      if (HasSection(data, data.regions[i], result)) AppendRegion(data, i, result, &out, "-" + other.core_type);
    }
  }
  AppendSweeps(data, analysis, plot_metric, &out);
  for (const Diagnostic& d : data.diagnostics) {
    if (d.severity != Severity::kNotice) {
      absl::StrAppendFormat(&out, "<p class=\"note\">%s: %s</p>\n", SeverityName(d.severity),
                            HtmlEscape(d.message));
    }
  }
  absl::StrAppendFormat(&out, "<script>%s%s</script>\n</body></html>\n", kTimeChartScript, kSelfTest);
  return out;
}

}  // namespace td

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

namespace {

constexpr char kStyle[] = R"(
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
p { overflow-wrap: anywhere; }
.ipc { margin: .3em 0; }
details { margin-left: 1.2em; } summary { cursor: pointer; }
.node.flagged > summary { color: #b00; font-weight: 600; }
.node.critical > summary { background: #ffe9a8; }
.diagnosis { border-left: 4px solid #b00; padding: .3em .8em; margin: .5em 0; background: #fff4f4; }
)";

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
           SoftwareMetricsOf(data, measured ? t.events : std::vector<EventDelta>{}, t.wall_inclusive_ns)) {
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
                        HtmlEscape(data.program.name), std::string(kStyle) + kTimeChartStyle);
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

namespace {

constexpr char kJobStyle[] = R"(
.heat-wrap { overflow-x: auto; max-width: 100%; }
table.heatmap { border-collapse: separate; border-spacing: 1px; }
table.heatmap th, table.heatmap td { border: 0; padding: 0 .3em; font-size: .8em; }
table.heatmap th.rank { text-align: center; font-weight: normal; color: #555; min-width: 1.4em; }
table.heatmap td.name, table.heatmap tr.ranks th:first-child { position: sticky; left: 0; background: #fff; white-space: nowrap; }
table.heatmap td.cell { min-width: 1.4em; height: 1.3em; padding: 0; text-align: center; cursor: default; }
table.heatmap.dense th.rank { min-width: 6px; padding: 0; font-size: .6em; }
table.heatmap.dense td.cell { min-width: 6px; font-size: .6em; }
table.heatmap td.none { background: repeating-linear-gradient(45deg, #e4e4e4 0 3px, #f6f6f6 3px 6px); }
table.heatmap td.slowest { outline: 2px solid #000; outline-offset: -2px; font-weight: 700; }
table.job td { white-space: nowrap; }
.scale span { display: inline-block; width: 1.6em; height: 1em; vertical-align: middle; }
)";

constexpr char kJobScript[] = R"(
const heat = document.querySelector('table.heatmap');
const ranks = heat ? [...heat.querySelectorAll('tr.ranks th[data-rank]')].map(th => th.dataset.rank) : [];
function duration(ns) {
  if (ns < 1e3) return ns + ' ns';
  if (ns < 1e6) return (ns / 1e3).toFixed(1) + ' µs';
  if (ns < 1e9) return (ns / 1e6).toFixed(2) + ' ms';
  return (ns / 1e9).toFixed(2) + ' s';
}
if (heat) heat.addEventListener('mouseover', event => {
  const cell = event.target.closest('td.cell');
  if (!cell || cell.title) return;
  const row = cell.parentElement;
  const rank = ranks[cell.cellIndex - 1];
  if (cell.dataset.ns === undefined) {
    cell.title = row.dataset.region + ', rank ' + rank + ': not run there';
    return;
  }
  const ns = Number(cell.dataset.ns), max = Number(row.dataset.maxNs);
  cell.title = row.dataset.region + ', rank ' + rank + ': ' + duration(ns) +
      (max > 0 ? ' (' + (100 * ns / max).toFixed(1) + '% of the slowest)' : '');
});
if (location.hash === '#selftest') {
  const rows = [];
  for (const row of document.querySelectorAll('table.heatmap tr[data-region]')) {
    const cells = [];
    row.querySelectorAll('td.cell').forEach((cell, i) => {
      cells.push({rank: ranks[i], ns: cell.dataset.ns === undefined ? null : cell.dataset.ns, cls: cell.className,
                  bg: getComputedStyle(cell).backgroundColor, mark: cell.textContent,
                  width: cell.getBoundingClientRect().width});
    });
    rows.push({path: row.dataset.region, name: row.querySelector('td.name').textContent, cells: cells});
  }
  const out = document.createElement('pre');
  out.id = 'selftest';
  const scale = [...document.querySelectorAll('.scale span')].map(span => getComputedStyle(span).backgroundColor);
  out.textContent = JSON.stringify({rows: rows, scale: scale});
  document.body.appendChild(out);
}
)";

constexpr int kHeatSteps = 10;

// Step `step` of the heat scale: pale for a small share of the region's
// slowest rank, dark red for the slowest.
std::string HeatColor(int step) {
  struct Rgb {
    double r, g, b;
  };
  constexpr Rgb kLow{255, 246, 226}, kMid{246, 150, 62}, kHigh{150, 16, 24};
  const double t = (step + 0.5) / kHeatSteps;
  const Rgb& a = t < 0.5 ? kLow : kMid;
  const Rgb& b = t < 0.5 ? kMid : kHigh;
  const double u = t < 0.5 ? t / 0.5 : (t - 0.5) / 0.5;
  return absl::StrFormat("#%02x%02x%02x", static_cast<int>(a.r + (b.r - a.r) * u),
                         static_cast<int>(a.g + (b.g - a.g) * u), static_cast<int>(a.b + (b.b - a.b) * u));
}

int HeatStep(double share) {
  if (!(share > 0)) return 0;
  return std::min(kHeatSteps - 1, static_cast<int>(share * kHeatSteps));
}

std::string LastName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

void AppendHeatMap(const JobView& view, std::string* out) {
  const bool dense = view.present.size() > 64;
  *out += "<h2>Wall time per rank</h2>\n<p>One row per region, one column per rank: the region's wall time on the "
          "rank (its longest thread), coloured by its share of the region's slowest rank, which is marked "
          "&#9650;. Hatched: the rank did not run the region. Hover a cell for its time.</p>\n<p class=\"scale\">";
  for (int step = 0; step < kHeatSteps; ++step) {
    absl::StrAppendFormat(out, "<span class=\"h%d\" title=\"%d–%d%% of the slowest\"></span>", step,
                          100 * step / kHeatSteps, 100 * (step + 1) / kHeatSteps);
  }
  *out += " 0 → 100% of the region's slowest rank</p>\n";
  absl::StrAppendFormat(out, "<div class=\"heat-wrap\"><table class=\"heatmap%s\">\n<tr class=\"ranks\"><th>region</th>",
                        dense ? " dense" : "");
  for (const int64_t rank : view.present) {
    const bool label = !dense || rank % 16 == 0;
    absl::StrAppendFormat(out, "<th class=\"rank\" data-rank=\"%d\">%s</th>", rank,
                          label ? absl::StrCat(rank) : "");
  }
  *out += "</tr>\n";
  std::vector<const RegionOnRank*> by_column(view.present.size());
  for (const RegionAcrossRanks& r : view.regions) {
    const double max = r.wall_ns.max;
    absl::StrAppendFormat(out,
                          "<tr data-region=\"%s\" data-depth=\"%d\" data-max-ns=\"%d\"><td class=\"name\" "
                          "style=\"padding-left:%.1fem\">%s</td>",
                          HtmlEscape(r.path), r.depth, static_cast<int64_t>(max), 0.3 + 1.2 * r.depth,
                          HtmlEscape(LastName(r.path)));
    // Each row to its rank's column (view.present is in rank order).
    std::fill(by_column.begin(), by_column.end(), nullptr);
    for (const RegionOnRank& on : r.ranks) {
      const auto at = std::lower_bound(view.present.begin(), view.present.end(), on.rank);
      if (at != view.present.end() && *at == on.rank) by_column[static_cast<size_t>(at - view.present.begin())] = &on;
    }
    for (size_t column = 0; column < view.present.size(); ++column) {
      const RegionOnRank* on = by_column[column];
      if (on == nullptr) {
        *out += "<td class=\"cell none\"></td>";
        continue;
      }
      const bool slowest = on->rank == r.slowest_rank;
      const int step = HeatStep(max > 0 ? static_cast<double>(on->wall_ns) / max : 0);
      // The rank's own spread over its threads, where several ran the region.
      const std::string threads =
          on->threads >= 2 && on->thread_imbalance
              ? absl::StrFormat(" data-threads=\"%d\" data-thread-imbalance=\"%.4f\" title=\"%d threads, thread "
                                "imbalance %.2f\"",
                                on->threads, *on->thread_imbalance, on->threads, *on->thread_imbalance)
              : "";
      absl::StrAppendFormat(out, "<td class=\"cell h%d%s\" data-ns=\"%d\"%s>%s</td>", step,
                            slowest ? " slowest" : "", on->wall_ns, threads, slowest ? "&#9650;" : "");
    }
    *out += "</tr>\n";
  }
  *out += "</table></div>\n";
}

// Imbalance by wall and CPU time per region, and where the ranks' MPI calls
// were timed, the efficiencies and the late rank (docs/hpc.md#wait-states-and-efficiencies).
void AppendJobEfficiencies(const JobView& view, std::string* out) {
  *out += "<h2>Imbalance and efficiencies</h2>\n<p class=\"muted\">imbalance % = 100 × (max − mean) / max; lost = "
          "core-seconds the other ranks idle; load balance, communication and parallel efficiency from useful "
          "(non-MPI) time; late rank = the most useful time</p>\n<table class=\"job\">\n<tr><th>region</th>"
          "<th>wall %</th><th>wall lost s</th><th>CPU imbalance</th><th>CPU %</th><th>CPU lost s</th>"
          "<th>load balance</th><th>comm</th><th>parallel</th><th>late rank</th><th>waited</th></tr>\n";
  const auto cell = [](const char* key, bool known, double value, const std::string& text) {
    if (!known) return absl::StrFormat("<td data-key=\"%s\" data-value=\"\">—</td>", key);
    return absl::StrFormat("<td data-key=\"%s\" data-value=\"%.4f\">%s</td>", key, value, text);
  };
  for (const RegionAcrossRanks& r : view.regions) {
    const Imbalance wall = ImbalanceOf(r.wall_ns), cpu = ImbalanceOf(r.task_clock_ns);
    const Efficiency& e = r.efficiency;
    const bool known = e.ranks > 0, late = known && e.late_rank >= 0;
    absl::StrAppendFormat(
        out, "<tr data-efficiency=\"%s\"><td class=\"name\">%s</td>%s%s%s%s%s%s%s%s%s%s</tr>\n",
        HtmlEscape(r.path), HtmlEscape(r.path), cell("wall_imbalance_percent", true, wall.percent, absl::StrFormat("%.1f%%", wall.percent)),
        cell("wall_lost_core_seconds", true, wall.lost_core_seconds, absl::StrFormat("%.3f", wall.lost_core_seconds)),
        cell("cpu_imbalance", cpu.ranks > 0, cpu.ratio, absl::StrFormat("%.2f", cpu.ratio)),
        cell("cpu_imbalance_percent", cpu.ranks > 0, cpu.percent, absl::StrFormat("%.1f%%", cpu.percent)),
        cell("cpu_lost_core_seconds", cpu.ranks > 0, cpu.lost_core_seconds,
             absl::StrFormat("%.3f", cpu.lost_core_seconds)),
        cell("load_balance", known, e.load_balance, absl::StrFormat("%.3f", e.load_balance)),
        cell("communication_efficiency", known, e.communication_efficiency,
             absl::StrFormat("%.3f", e.communication_efficiency)),
        cell("parallel_efficiency", known, e.parallel_efficiency, absl::StrFormat("%.3f", e.parallel_efficiency)),
        cell("late_rank", late, static_cast<double>(e.late_rank), absl::StrCat("rank ", e.late_rank)),
        cell("waited_ns", known, e.waited_ns, HumanDuration(static_cast<int64_t>(e.waited_ns))));
  }
  *out += "</table>\n";
}

void AppendJobTable(const JobView& view, std::string* out) {
  *out += "<h2>Regions across ranks</h2>\n<p class=\"muted\">imbalance = slowest rank's wall time / mean over the "
          "ranks that ran the region</p>\n<table class=\"job\">\n<tr><th>region</th><th>ranks</th><th>calls</th>"
          "<th>wall min</th><th>wall mean</th><th>wall max</th><th>slowest</th><th>imbalance</th>"
          "<th>task mean</th><th>task max</th></tr>\n";
  const auto time_cell = [](const char* key, double ns, bool known) {
    if (!known) return absl::StrFormat("<td data-key=\"%s\" data-value=\"\">—</td>", key);
    const auto value = static_cast<int64_t>(ns);
    return absl::StrFormat("<td data-key=\"%s\" data-value=\"%d\">%s</td>", key, value, HumanDuration(value));
  };
  for (const RegionAcrossRanks& r : view.regions) {
    const bool task = r.task_clock_ns.ranks > 0;
    absl::StrAppendFormat(out,
                          "<tr data-region=\"%s\"><td class=\"name\" style=\"padding-left:%.1fem\">%s</td>"
                          "<td data-key=\"ranks\" data-value=\"%d\">%d</td><td data-key=\"calls\" data-value=\"%d\">%s</td>"
                          "%s%s%s<td data-key=\"slowest_rank\" data-value=\"%d\">rank %d</td>"
                          "<td data-key=\"imbalance\" data-value=\"%.4f\">%.2f</td>%s%s</tr>\n",
                          HtmlEscape(r.path), 0.6 + 1.4 * r.depth, HtmlEscape(LastName(r.path)), r.wall_ns.ranks,
                          r.wall_ns.ranks, r.calls, WithThousands(r.calls), time_cell("wall_min_ns", r.wall_ns.min, true),
                          time_cell("wall_mean_ns", r.wall_ns.mean, true), time_cell("wall_max_ns", r.wall_ns.max, true),
                          r.slowest_rank, r.slowest_rank, r.imbalance, r.imbalance,
                          time_cell("task_mean_ns", r.task_clock_ns.mean, task),
                          time_cell("task_max_ns", r.task_clock_ns.max, task));
  }
  *out += "</table>\n";
  AppendJobEfficiencies(view, out);
  bool any_tree = false;
  for (const RegionAcrossRanks& r : view.regions) any_tree |= !r.level1.empty();
  if (!any_tree) {
    *out += "<p class=\"note\">No Top-Down trees: the ranks' files hold no hardware counts (<code>td report "
            "FILE</code> says why).</p>\n";
    return;
  }
  *out += "<h2>Level 1 across ranks</h2>\n<table class=\"level1\">\n<tr><th>region</th><th>node</th><th>min</th>"
          "<th>mean</th><th>max</th><th>rank of the max</th></tr>\n";
  for (const RegionAcrossRanks& r : view.regions) {
    for (const auto& [node, spread] : r.level1) {
      absl::StrAppendFormat(out, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td></tr>\n",
                            HtmlEscape(r.path), HtmlEscape(node), PercentText(spread.min), PercentText(spread.mean),
                            PercentText(spread.max), spread.max_rank);
    }
  }
  *out += "</table>\n";
}

}  // namespace

std::string FormatJobHtml(const JobView& view) {
  std::string out = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", kTdPageMark, "\n");
  std::string style = std::string(kStyle) + kJobStyle;
  for (int step = 0; step < kHeatSteps; ++step) {
    absl::StrAppendFormat(&style, ".h%d { background: %s; color: %s; }\n", step, HeatColor(step),
                          step >= 6 ? "#fff" : "#000");
  }
  absl::StrAppendFormat(&out, "<title>td job report: %s</title>\n<style>%s</style></head><body>\n",
                        HtmlEscape(view.program), style);
  absl::StrAppendFormat(&out, "<h1>td job report: %s, job %s</h1>\n", HtmlEscape(view.program),
                        view.job.empty() ? "(unnamed)" : HtmlEscape(view.job));
  absl::StrAppendFormat(&out, "<p>%d rank%s", view.present.size(), view.present.size() == 1 ? "" : "s");
  if (view.size > 0) absl::StrAppendFormat(&out, " of %d", view.size);
  std::string hosts;
  for (const std::string& host : view.hosts) absl::StrAppend(&hosts, hosts.empty() ? "" : ", ", host);
  absl::StrAppendFormat(&out, " on %d host%s (%s)</p>\n", view.hosts.size(), view.hosts.size() == 1 ? "" : "s",
                        HtmlEscape(hosts));
  if (!view.missing.empty()) {
    std::string missing;
    for (const int64_t rank : view.missing) absl::StrAppend(&missing, missing.empty() ? "" : ", ", rank);
    absl::StrAppendFormat(&out, "<p class=\"note\">Missing ranks (no file given for them): %s</p>\n", missing);
  }
  bool rows = false;
  for (const RegionAcrossRanks& r : view.regions) rows |= !r.ranks.empty();
  if (rows) {
    AppendHeatMap(view, &out);
  } else {
    out += "<p class=\"note\">No heat map: the job file keeps no per-rank rows (TD_MPI_RANKS; docs/hpc.md); "
           "<code>td report</code> prints each region's wall-time histogram.</p>\n";
  }
  AppendJobTable(view, &out);
  absl::StrAppendFormat(&out, "<script>%s</script>\n</body></html>\n", kJobScript);
  return out;
}

}  // namespace td

// The job view as one HTML page (FormatJobHtml, html_report.h): the heat map
// of ranks × regions, coloured by wall time, CPU time or MPI share (a
// selector on the page switches between them, no re-run needed), then the
// job table, the imbalance and efficiencies, and the Level-1 spreads.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/base/text_format.h"
#include "runtime/job/job_metrics.h"
#include "runtime/report/html_report.h"
#include "runtime/report/html_sections.h"

namespace td {
namespace {

constexpr char kJobStyle[] = R"(
.heat-wrap { overflow-x: auto; max-width: 100%; }
.heat-pick label { margin-right: 1em; } .heat-pick label.off { color: #999; }
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

// Each cell carries its step under every metric (data-h: one character per
// metric in kHeatMetrics' order, '-' where the rank has no such value) and
// the metrics it is the top rank of (data-t: their letters), so switching
// only swaps classes; its times (data-ns wall, data-c CPU, data-m MPI; short
// names, as a page of 1,024 ranks has 200,000 cells) are there for the
// tooltip.
constexpr char kJobScript[] = R"(
const heat = document.querySelector('table.heatmap');
const ranks = heat ? [...heat.querySelectorAll('tr.ranks th[data-rank]')].map(th => th.dataset.rank) : [];
const metrics = ['wall', 'cpu', 'mpi'], letters = 'wcm';
const picks = [...document.querySelectorAll('input[name="heat"]')];
function duration(ns) {
  if (ns < 1e3) return ns + ' ns';
  if (ns < 1e6) return (ns / 1e3).toFixed(1) + ' µs';
  if (ns < 1e9) return (ns / 1e6).toFixed(2) + ' ms';
  return (ns / 1e9).toFixed(2) + ' s';
}
function show(metric) {
  const i = metrics.indexOf(metric), pick = picks.find(p => p.value === metric);
  if (!heat || i < 0 || !pick || pick.disabled) return;
  heat.dataset.metric = metric;
  pick.checked = true;
  for (const key of ['title', 'legend', 'scale']) {
    document.getElementById('heat-' + key).textContent = pick.dataset[key];
  }
  for (const cell of heat.querySelectorAll('td.cell[data-h]')) {
    const step = cell.dataset.h[i], top = (cell.dataset.t || '').includes(letters[i]);
    cell.className = 'cell ' + (step === '-' ? 'none' : 'h' + step) + (top ? ' slowest' : '');
    cell.textContent = top ? '\u25b2' : '';
  }
}
picks.forEach(pick => pick.addEventListener('change', () => show(pick.value)));
function tip(cell) {
  const row = cell.parentElement, where = row.dataset.region + ', rank ' + ranks[cell.cellIndex - 1] + ': ';
  if (cell.dataset.ns === undefined) return where + 'not run there';
  const ns = Number(cell.dataset.ns), metric = heat.dataset.metric;
  if (metric === 'cpu') {
    if (cell.dataset.c === undefined) return where + 'no CPU time (task-clock) in its file';
    const cpu = Number(cell.dataset.c), max = Number(row.dataset.maxCpuNs);
    return where + 'CPU ' + duration(cpu) + (max > 0 ? ' (' + (100 * cpu / max).toFixed(1) + '% of the most)' : '');
  }
  if (metric === 'mpi') {
    if (cell.dataset.m === undefined) return where + 'no MPI times in its file';
    const mpi = Number(cell.dataset.m);
    return where + 'MPI ' + duration(mpi) + (ns > 0 ? ', ' + (100 * mpi / ns).toFixed(1) + '% of its wall time ' +
        duration(ns) : '');
  }
  const max = Number(row.dataset.maxNs);
  return where + duration(ns) + (max > 0 ? ' (' + (100 * ns / max).toFixed(1) + '% of the slowest)' : '');
}
if (heat) heat.addEventListener('mouseover', event => {
  const cell = event.target.closest('td.cell');
  if (cell) cell.title = tip(cell);
});
function cellsShown() {
  return [...heat.querySelectorAll('tr[data-region]')].map(row => [...row.querySelectorAll('td.cell')].map(cell =>
      ({cls: cell.className, bg: getComputedStyle(cell).backgroundColor, mark: cell.textContent})));
}
if (location.hash === '#selftest') {
  const rows = [], byMetric = {}, first = heat ? heat.dataset.metric : null;
  if (heat) {
    for (const row of heat.querySelectorAll('tr[data-region]')) {
      const cells = [];
      row.querySelectorAll('td.cell').forEach((cell, i) => {
        const value = key => cell.dataset[key] === undefined ? null : cell.dataset[key];
        cells.push({rank: ranks[i], ns: value('ns'), cpu_ns: value('c'), mpi_ns: value('m'),
                    cls: cell.className, bg: getComputedStyle(cell).backgroundColor, mark: cell.textContent,
                    width: cell.getBoundingClientRect().width});
      });
      rows.push({path: row.dataset.region, name: row.querySelector('td.name').textContent, cells: cells});
    }
    for (const pick of picks) {
      if (pick.disabled) continue;
      show(pick.value);
      byMetric[pick.value] = cellsShown();
    }
    show(first);
  }
  const out = document.createElement('pre');
  out.id = 'selftest';
  out.hidden = true;  // out of the screenshot taken in the same load
  const scale = [...document.querySelectorAll('.scale span')].map(span => getComputedStyle(span).backgroundColor);
  out.textContent = JSON.stringify({rows: rows, scale: scale, metric: first, by_metric: byMetric});
  document.body.appendChild(out);
}
)";

constexpr int kHeatSteps = 10;

// Step `step` of the heat scale: pale for a small share, dark red for the
// largest.
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

// What the heat map can be coloured by, in the order of a cell's data-h.
struct HeatMetricText {
  HeatMetric metric;
  const char* key;     // the selector's value, --heat's name
  char letter;         // in data-t
  const char* label;   // beside the selector's button
  const char* title;   // the section's heading
  const char* legend;  // what a cell shows
  const char* scale;   // the end of the colour scale
};
constexpr std::array<HeatMetricText, 3> kHeatMetrics = {{
    {HeatMetric::kWall, "wall", 'w', "wall time", "Wall time per rank",
     "One row per region, one column per rank: the region's wall time on the rank (its longest thread), coloured "
     "by its share of the region's slowest rank, which is marked \u25b2. Hatched: the rank did not run the region. "
     "Hover a cell for its time.",
     "0 \u2192 100% of the region's slowest rank"},
    {HeatMetric::kCpu, "cpu", 'c', "CPU time", "CPU time per rank",
     "One row per region, one column per rank: the region's CPU time (task-clock, summed over the rank's threads) "
     "on the rank, coloured by its share of the rank with the most, which is marked \u25b2. Hatched: the rank did "
     "not run the region, or its file has no task-clock. Hover a cell for its time.",
     "0 \u2192 100% of the region's most CPU time"},
    {HeatMetric::kMpi, "mpi", 'm', "MPI share", "MPI share per rank",
     "One row per region, one column per rank: the share of the region's wall time on the rank spent in MPI calls "
     "(timed by libtd-mpi), from 0 to 100%; the rank with the largest share is marked \u25b2. Hatched: the rank did "
     "not run the region, or its file has no MPI times. Hover a cell for its times.",
     "0 \u2192 100% of the rank's wall time in MPI"},
}};

// Whether any rank of any region has a value of `metric`.
bool HasValues(const JobView& view, HeatMetric metric) {
  for (const RegionAcrossRanks& r : view.regions) {
    if (r.ranks.empty()) continue;
    if (metric == HeatMetric::kWall || (metric == HeatMetric::kCpu && r.task_clock_ns.ranks > 0) ||
        (metric == HeatMetric::kMpi && r.mpi_share.ranks > 0)) {
      return true;
    }
  }
  return false;
}

// A cell's step under `metric` (none where the rank has no such value), and
// whether it is the region's top rank by it.
std::optional<int> StepOf(const RegionAcrossRanks& r, const RegionOnRank& on, HeatMetric metric, bool* top) {
  switch (metric) {
    case HeatMetric::kWall:
      *top = on.rank == r.slowest_rank;
      return HeatStep(r.wall_ns.max > 0 ? static_cast<double>(on.wall_ns) / r.wall_ns.max : 0);
    case HeatMetric::kCpu:
      *top = on.task_clock_ns && on.rank == r.task_clock_ns.max_rank;
      if (!on.task_clock_ns) return std::nullopt;
      return HeatStep(r.task_clock_ns.max > 0 ? *on.task_clock_ns / r.task_clock_ns.max : 0);
    case HeatMetric::kMpi:
      *top = on.mpi && on.wall_ns > 0 && on.rank == r.mpi_share.max_rank;
      if (!on.mpi || on.wall_ns <= 0) return std::nullopt;
      return HeatStep(static_cast<double>(on.mpi->ns) / static_cast<double>(on.wall_ns));
  }
  return std::nullopt;
}

std::string HeatCell(const RegionAcrossRanks& r, const RegionOnRank& on, size_t shown) {
  std::string steps, tops, shown_class;
  for (size_t m = 0; m < kHeatMetrics.size(); ++m) {
    bool top = false;
    const std::optional<int> step = StepOf(r, on, kHeatMetrics[m].metric, &top);
    steps += step ? static_cast<char>('0' + *step) : '-';
    if (top) tops += kHeatMetrics[m].letter;
    if (m == shown) shown_class = absl::StrCat(step ? absl::StrCat("h", *step) : "none", top ? " slowest" : "");
  }
  std::string cell = absl::StrFormat("<td class=\"cell %s\" data-ns=\"%d\"", shown_class, on.wall_ns);
  if (on.task_clock_ns) absl::StrAppend(&cell, " data-c=\"", SoftwareIntegerValue(*on.task_clock_ns), "\"");
  if (on.mpi) absl::StrAppend(&cell, " data-m=\"", on.mpi->ns, "\"");
  // The rank's own spread over its threads, where several ran the region.
  if (on.threads >= 2 && on.thread_imbalance) {
    absl::StrAppendFormat(&cell, " data-threads=\"%d\" data-thread-imbalance=\"%.4f\" title=\"%d threads, thread imbalance %.2f\"",
                          on.threads, *on.thread_imbalance, on.threads, *on.thread_imbalance);
  }
  absl::StrAppend(&cell, " data-h=\"", steps, "\"", tops.empty() ? "" : absl::StrCat(" data-t=\"", tops, "\""), ">",
                  shown_class.find("slowest") != std::string::npos ? "&#9650;" : "", "</td>");
  return cell;
}

// The metric selector; `shown` is checked, a metric no rank has is disabled.
void AppendHeatPicker(const JobView& view, size_t shown, std::string* out) {
  *out += "<p class=\"heat-pick\">Colour by: ";
  for (size_t m = 0; m < kHeatMetrics.size(); ++m) {
    const HeatMetricText& t = kHeatMetrics[m];
    const bool has = HasValues(view, t.metric);
    absl::StrAppendFormat(out,
                          "<label%s><input type=\"radio\" name=\"heat\" value=\"%s\" data-title=\"%s\" "
                          "data-legend=\"%s\" data-scale=\"%s\"%s%s> %s%s</label>",
                          has ? "" : " class=\"off\"", t.key, t.title, t.legend, t.scale, m == shown ? " checked" : "",
                          has ? "" : " disabled", t.label, has ? "" : " (not in the files)");
  }
  *out += "</p>\n";
}

void AppendHeatMap(const JobView& view, HeatMetric metric, std::string* out) {
  size_t shown = 0;
  while (kHeatMetrics[shown].metric != metric) ++shown;
  if (!HasValues(view, metric)) {
    absl::StrAppendFormat(out, "<p class=\"note\">No %s in these files: the heat map shows wall time.</p>\n",
                          kHeatMetrics[shown].label);
    shown = 0;
  }
  const HeatMetricText& text = kHeatMetrics[shown];
  const bool dense = view.present.size() > 64;
  absl::StrAppendFormat(out, "<h2 id=\"heat-title\">%s</h2>\n", text.title);
  AppendHeatPicker(view, shown, out);
  absl::StrAppendFormat(out, "<p id=\"heat-legend\">%s</p>\n<p class=\"scale\">", text.legend);
  for (int step = 0; step < kHeatSteps; ++step) {
    absl::StrAppendFormat(out, "<span class=\"h%d\" title=\"step %d of %d\"></span>", step, step + 1, kHeatSteps);
  }
  absl::StrAppendFormat(out, " <em id=\"heat-scale\">%s</em></p>\n", text.scale);
  absl::StrAppendFormat(out,
                        "<div class=\"heat-wrap\"><table class=\"heatmap%s\" data-metric=\"%s\">\n<tr "
                        "class=\"ranks\"><th>region</th>",
                        dense ? " dense" : "", text.key);
  for (const int64_t rank : view.present) {
    const bool label = !dense || rank % 16 == 0;
    absl::StrAppendFormat(out, "<th class=\"rank\" data-rank=\"%d\">%s</th>", rank, label ? absl::StrCat(rank) : "");
  }
  *out += "</tr>\n";
  std::vector<const RegionOnRank*> by_column(view.present.size());
  for (const RegionAcrossRanks& r : view.regions) {
    absl::StrAppendFormat(out,
                          "<tr data-region=\"%s\" data-depth=\"%d\" data-max-ns=\"%d\" data-max-cpu-ns=\"%d\"><td "
                          "class=\"name\" style=\"padding-left:%.1fem\">%s</td>",
                          HtmlEscape(r.path), r.depth, static_cast<int64_t>(r.wall_ns.max),
                          SoftwareIntegerValue(r.task_clock_ns.max), 0.3 + 1.2 * r.depth,
                          HtmlEscape(LastName(r.path)));
    // Each row to its rank's column (view.present is in rank order).
    std::fill(by_column.begin(), by_column.end(), nullptr);
    for (const RegionOnRank& on : r.ranks) {
      const auto at = std::lower_bound(view.present.begin(), view.present.end(), on.rank);
      if (at != view.present.end() && *at == on.rank) by_column[static_cast<size_t>(at - view.present.begin())] = &on;
    }
    for (const RegionOnRank* on : by_column) {
      *out += on == nullptr ? "<td class=\"cell none\"></td>" : HeatCell(r, *on, shown);
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

std::optional<HeatMetric> HeatMetricNamed(const std::string& name) {
  for (const HeatMetricText& t : kHeatMetrics) {
    if (name == t.key) return t.metric;
  }
  return std::nullopt;
}

std::string FormatJobHtml(const JobView& view, HeatMetric heat) {
  std::string out = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">", kTdPageMark, "\n");
  std::string style = std::string(kPageStyle) + kJobStyle;
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
    AppendHeatMap(view, heat, &out);
  } else {
    out += "<p class=\"note\">No heat map: the job file keeps no per-rank rows (TD_MPI_RANKS; docs/hpc.md); "
           "<code>td report</code> prints each region's wall-time histogram.</p>\n";
  }
  AppendJobTable(view, &out);
  absl::StrAppendFormat(&out, "<script>%s</script>\n</body></html>\n", kJobScript);
  return out;
}

}  // namespace td

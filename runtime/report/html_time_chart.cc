#include "runtime/report/html_time_chart.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_format.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/base/text_format.h"

namespace td {

const char kTimeChartStyle[] = R"(
.icicle { position: relative; width: 100%; margin: .4em 0 .2em; }
.icicle .ib { position: absolute; height: 21px; box-sizing: border-box; border: solid #fff; border-width: 0 1px 1px 0;
  overflow: hidden; white-space: nowrap; font-size: 12px; line-height: 20px; padding: 0 3px; color: #111; cursor: default; }
.icicle .ib.run { background: #d6d6d6; }
.icicle .lb { display: inline-block; }
)";

const char kTimeChartScript[] = R"(
function fitChartLabels() {
  for (const label of document.querySelectorAll('.icicle .lb')) {
    const room = label.parentElement.clientWidth - 6;
    label.style.display = '';
    label.textContent = label.dataset.full;
    if (label.offsetWidth > room) label.textContent = label.dataset.short;
    if (label.offsetWidth > room) label.style.display = 'none';
  }
}
fitChartLabels();
addEventListener('resize', fitChartLabels);
function timeChartSelfTest() {
  const chart = document.querySelector('.icicle');
  if (!chart) return null;
  const bars = [];
  for (const bar of chart.querySelectorAll('.ib')) {
    const box = bar.getBoundingClientRect(), label = bar.querySelector('.lb');
    const shown = label !== null && label.style.display !== 'none';
    bars.push({path: bar.dataset.path, share: parseFloat(bar.dataset.share), left_share: parseFloat(bar.dataset.left),
               width: box.width, left: box.left - chart.getBoundingClientRect().left, title: bar.title,
               label: shown ? label.textContent : null,
               label_fits: !shown || label.getBoundingClientRect().right <= box.right + 0.5});
  }
  return {width: chart.clientWidth, left_out: parseInt(chart.dataset.leftOut), bars: bars};
}
)";

namespace {

struct Bar {
  int region = -1;  // -1: the whole run
  double left = 0;  // shares of the run
  double width = 0;
  int row = 0;
};

// Lays `kids` side by side in [left, left + width): each its share of the
// parent's time, or of the children's sum where that is larger (siblings on
// different threads can together outlast the parent's longest thread).
void Place(const RunData& data, const std::vector<int64_t>& inclusive, const std::vector<int>& kids, double left,
           double width, int64_t parent_ns, int row, int depth, std::vector<bool>* placed, std::vector<Bar>* bars) {
  const auto valid = [&](int k) { return k >= 0 && static_cast<size_t>(k) < inclusive.size(); };
  int64_t sum = 0;
  for (const int k : kids) sum += valid(k) ? inclusive[static_cast<size_t>(k)] : 0;
  const double denom = static_cast<double>(std::max(parent_ns, sum));
  if (denom <= 0) return;
  double x = left;
  for (const int k : kids) {
    if (!valid(k)) continue;
    const double w = width * static_cast<double>(inclusive[static_cast<size_t>(k)]) / denom;
    // `placed`: a file whose tree loops back draws each region once.
    if (w >= kChartMinShare && depth < kChartMaxDepth && !(*placed)[static_cast<size_t>(k)]) {
      (*placed)[static_cast<size_t>(k)] = true;
      bars->push_back({k, x, w, row});
      Place(data, inclusive, data.regions[static_cast<size_t>(k)].children, x, w,
            inclusive[static_cast<size_t>(k)], row + 1, depth + 1, placed, bars);
    }
    x += w;
  }
}

// A colour per name, so a function looks the same wherever it is called.
std::string ColourOf(const std::string& name) {
  uint32_t hash = 2166136261u;
  for (const char c : name) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return absl::StrFormat("hsl(%d, 50%%, 74%%)", hash % 360);
}

}  // namespace

void AppendTimeChart(const RunData& data, std::string* out) {
  std::vector<int64_t> inclusive(data.regions.size());
  std::vector<int> top;
  int64_t top_sum = 0;
  for (size_t i = 0; i < data.regions.size(); ++i) {
    inclusive[i] = std::max<int64_t>(0, Totals(data.regions[i], 0).wall_inclusive_ns);
    const int parent = data.regions[i].parent;
    if (parent < 0 || static_cast<size_t>(parent) >= data.regions.size()) {
      top.push_back(static_cast<int>(i));
      top_sum += inclusive[i];
    }
  }
  // The whole run, from the program's start to its exit, where the file says:
  // its bar's uncovered part is the time spent outside every region.
  const int64_t program_ns = data.program.end_unix_ns > data.program.start_unix_ns && data.program.start_unix_ns > 0
                                 ? data.program.end_unix_ns - data.program.start_unix_ns
                                 : 0;
  const int64_t run_ns = std::max(program_ns, top_sum);
  if (run_ns <= 0) return;
  std::vector<Bar> bars;
  if (program_ns > 0) bars.push_back({-1, 0, 1, 0});
  std::vector<bool> placed(data.regions.size());
  Place(data, inclusive, top, 0, 1, run_ns, program_ns > 0 ? 1 : 0, 0, &placed, &bars);
  int rows = 0;
  for (const Bar& b : bars) rows = std::max(rows, b.row + 1);
  const size_t drawn = bars.size() - (program_ns > 0 ? 1 : 0);
  const size_t left_out = data.regions.size() - drawn;

  *out += "<h2>Where the wall time went</h2>\n<p class=\"muted\">Each bar is a region's inclusive wall time (its "
          "longest thread) as a share of the run, its children in the row below: the part of a bar with nothing "
          "under it is the region's own (exclusive) time. Hover a bar for calls, times and CPUs.";
  if (left_out > 0) {
    absl::StrAppendFormat(out, " %s region%s under %.1f%% of the run (or deeper than %d levels) left out.",
                          WithThousands(left_out),
                          left_out == 1 ? "" : "s", 100 * kChartMinShare, kChartMaxDepth);
  }
  absl::StrAppendFormat(out, "</p>\n<div class=\"icicle\" role=\"img\" aria-label=\"wall time per region\" "
                        "style=\"height: %dpx\" data-left-out=\"%d\">\n", 21 * rows, left_out);
  for (const Bar& b : bars) {
    std::string name, path, title, colour;
    int64_t ns = run_ns;
    if (b.region < 0) {
      name = data.program.name.empty() ? "whole run" : data.program.name + " (whole run)";
      title = HtmlEscape(absl::StrFormat("%s: %s from start to exit", name, HumanDuration(program_ns)));
      ns = program_ns;
    } else {
      const Region& region = data.regions[static_cast<size_t>(b.region)];
      const RegionTotals totals = Totals(region, 0);
      name = region.name;
      path = region.path;
      ns = inclusive[static_cast<size_t>(b.region)];
      colour = ColourOf(region.base_name);
      // HtmlEscape shows a newline as \x0a: the line break goes in as &#10;.
      title = absl::StrFormat("%s call%s; %s inclusive (%s of the run), %s exclusive",
                              WithThousands(totals.calls), totals.calls == 1 ? "" : "s", HumanDuration(ns),
                              PercentText(static_cast<double>(ns) / static_cast<double>(run_ns)),
                              HumanDuration(totals.wall_exclusive_ns));
      for (const SoftwareMetric& m : RegionSoftwareMetrics(data, region)) {
        if (m.key == "cpu_utilization" && m.value) absl::StrAppendFormat(&title, "; %s CPUs", FormatSoftwareValue(m));
      }
      if (region.threads.size() > 1) absl::StrAppendFormat(&title, "; %d threads", region.threads.size());
      title = HtmlEscape(region.path) + "&#10;" + HtmlEscape(title);
    }
    absl::StrAppendFormat(out, "<div class=\"ib%s\" data-path=\"%s\" data-share=\"%.6f\" data-left=\"%.6f\" "
                          "style=\"left: %.4f%%; width: %.4f%%; top: %dpx%s\" title=\"%s\">",
                          b.region < 0 ? " run" : "", HtmlEscape(path), b.width, b.left, 100 * b.left, 100 * b.width,
                          21 * b.row, colour.empty() ? "" : "; background: " + colour, title);
    // Bars too narrow for any label at a desktop width get the title only;
    // the script hides the others' labels where the page is narrower.
    if (b.width >= 0.03) {
      const std::string full = absl::StrFormat("%s · %s", name, HumanDuration(ns));
      absl::StrAppendFormat(out, "<span class=\"lb\" data-full=\"%s\" data-short=\"%s\">%s</span>", HtmlEscape(full),
                            HtmlEscape(name), HtmlEscape(full));
    }
    *out += "</div>\n";
  }
  *out += "</div>\n";
}

}  // namespace td

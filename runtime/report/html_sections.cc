#include "runtime/report/html_sections.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/analysis/thread_spread.h"
#include "runtime/base/text_format.h"
#include "runtime/recorded/call_time_summary.h"
#include "runtime/report/text_report.h"

namespace td {

void AppendAcrossThreads(const RunData& data, std::string* out) {
  std::string rows;
  const std::vector<ThreadSpread> spreads = TeamSpreads(data);
  for (const RegionInTree& node : RegionTreeOrder(data)) {
    const Region& region = data.regions[node.index];
    const ThreadSpread& s = spreads[node.index];
    if (s.threads < 2) continue;
    std::string copies;
    for (const size_t c : s.copies) absl::StrAppend(&copies, copies.empty() ? "" : ", ", HtmlEscape(data.regions[c].path));
    absl::StrAppendFormat(&rows,
                          "<tr data-region=\"%s\"><td style=\"padding-left:%.1fem\">%s</td>"
                          "<td data-key=\"threads\" data-value=\"%d\">%d</td>"
                          "<td data-key=\"wall_min_ns\" data-value=\"%d\">%s</td>"
                          "<td data-key=\"wall_mean_ns\" data-value=\"%.0f\">%s</td>"
                          "<td data-key=\"wall_max_ns\" data-value=\"%d\">%s</td>"
                          "<td data-key=\"imbalance\" data-value=\"%.4f\">%s</td><td>%s</td><td>%s</td></tr>\n",
                          HtmlEscape(region.path), 0.6 + 1.4 * node.depth, HtmlEscape(region.name), s.threads, s.threads, s.min,
                          HumanDuration(s.min), s.mean, HumanDuration(static_cast<int64_t>(s.mean + 0.5)), s.max,
                          HumanDuration(s.max), s.Imbalance(),
                          s.mean > 0 ? absl::StrFormat("%.2f", s.Imbalance()) : "—",
                          HtmlEscape(ThreadLabel(data, s.slowest)), copies);
  }
  if (rows.empty()) return;
  *out += "<h2>Across threads</h2>\n<p class=\"muted\">imbalance = the slowest thread's wall time / the mean over "
          "the threads that ran the region</p>\n<div class=\"wide\"><table class=\"threads\">\n<tr><th>region</th>"
          "<th>threads</th><th>wall min</th><th>wall mean</th><th>wall max</th><th>imbalance</th><th>slowest</th>"
          "<th>nested copies counted</th></tr>\n";
  *out += rows + "</table></div>\n";
}

void AppendCallTimes(const RunData& data, std::string* out) {
  std::string rows;
  for (const RegionInTree& node : RegionTreeOrder(data)) {
    const Region& region = data.regions[node.index];
    const std::optional<CallTimeSummary> s = RegionCallTimes(data, region);
    if (!s || s->calls < 2) continue;
    const auto cell = [](const char* key, double ns) {
      return absl::StrFormat("<td data-key=\"%s\" data-value=\"%.0f\">%s</td>", key, ns,
                             HumanDuration(static_cast<int64_t>(std::llround(ns))));
    };
    absl::StrAppendFormat(&rows, "<tr data-region=\"%s\"%s><td style=\"padding-left:%.1fem\">%s</td>"
                          "<td data-key=\"calls\" data-value=\"%d\">%s</td>%s%s%s%s<td>%s</td></tr>\n",
                          HtmlEscape(region.path), CallTimesWorthShowing(*s) ? " class=\"varies\"" : "",
                          0.6 + 1.4 * node.depth, HtmlEscape(region.name), s->calls, WithThousands(s->calls),
                          cell("min_ns", s->min_ns), cell("median_ns", s->median_ns), cell("p95_ns", s->p95_ns),
                          cell("max_ns", s->max_ns), WithThousands(s->calls_over_twice_median));
  }
  if (rows.empty()) return;
  *out += "<h2>Per-call times</h2>\n<p class=\"muted\">each value the mean of the calls within a quarter octave of it; rows in bold vary: "
          "p95 ≥ 1.5 × median or max ≥ 4 × median</p>\n<div class=\"wide\"><table class=\"call-times\">\n"
          "<tr><th>region</th><th>calls</th><th>min</th><th>median</th><th>p95</th><th>max</th>"
          "<th>calls ≥ 2 × median</th></tr>\n";
  *out += rows + "</table></div>\n";
}

namespace {

// One value per region for the sweep plot, or nullopt; `share` says the
// value is a Top-Down node's share of slots (plotted in %).
std::optional<double> PlotValue(const RunData& data, const RunAnalysis& analysis, size_t index,
                                const std::string& metric, bool* share) {
  *share = false;
  if (metric == "wall_per_call") {
    const RegionTotals t = Totals(data.regions[index], 0);
    return t.calls == 0 ? std::nullopt
                        : std::optional<double>(static_cast<double>(t.wall_inclusive_ns) / 1e3 /
                                                static_cast<double>(t.calls));
  }
  if (!analysis.HasTrees() || index >= analysis.regions.size()) return std::nullopt;
  const TopDownResult& r = analysis.regions[index];
  *share = true;
  if (const TreeNode* n = r.Find(metric)) return n->value ? std::optional<double>(100 * *n->value) : std::nullopt;
  for (const TreeNode& n : r.tree) {
    if (n.ShortName() == metric) return n.value ? std::optional<double>(100 * *n.value) : std::nullopt;
  }
  *share = false;
  return r.MetricValue(metric);
}

// A round step (1, 2 or 5 times a power of ten) giving about `ticks` ticks
// over `range`.
double NiceStep(double range, int ticks) {
  const double raw = range / ticks;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  return (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * magnitude;
}

// Tick labels short enough to sit side by side: 0.25, 16384, 131k, 1.05M.
std::string TickText(double v) {
  const double a = std::fabs(v);
  if (a >= 1e6) return absl::StrFormat("%.3gM", v / 1e6);
  if (a >= 1e5) return absl::StrFormat("%.3gk", v / 1e3);
  if (v == std::floor(v)) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.3g", v);
}

}  // namespace

void AppendSweeps(const RunData& data, const RunAnalysis& analysis, const std::string& metric, std::string* out) {
  auto base_of = [](const Region& r) { return r.path.substr(0, r.path.rfind('[')); };
  std::vector<std::string> bases;
  for (const Region& r : data.regions) {
    if (r.parameter && std::find(bases.begin(), bases.end(), base_of(r)) == bases.end()) bases.push_back(base_of(r));
  }
  for (const std::string& base : bases) {
    std::vector<std::pair<long long, double>> points;
    bool share = false;
    for (size_t i = 0; i < data.regions.size(); ++i) {
      const Region& r = data.regions[i];
      if (!r.parameter || base_of(r) != base) continue;
      if (auto v = PlotValue(data, analysis, i, metric, &share)) points.emplace_back(*r.parameter, *v);
    }
    if (points.size() < 2) continue;
    std::sort(points.begin(), points.end());
    const double x0 = static_cast<double>(points.front().first), x1 = static_cast<double>(points.back().first);
    // Parameters spanning orders of magnitude (sizes 64 … 1M) on a log axis,
    // where a linear one would pile the small ones on the left edge.
    const bool log_x = x0 > 0 && x1 / x0 >= 16;
    double y_max = 0;
    for (const auto& p : points) y_max = std::max(y_max, p.second);
    const double y_step = NiceStep(y_max > 0 ? y_max : 1, 4);
    y_max = std::max(y_step, std::ceil(y_max / y_step) * y_step);
    constexpr double kLeft = 64, kTop = 12, kW = 500, kH = 200, kBottom = 48;
    const auto px = [&](double x) {
      if (x1 == x0) return kLeft + kW / 2;
      const double t = log_x ? std::log(x / x0) / std::log(x1 / x0) : (x - x0) / (x1 - x0);
      return kLeft + t * kW;
    };
    const auto py = [&](double y) { return kTop + kH - y / y_max * kH; };
    const std::string unit = metric == "wall_per_call" ? "wall time per call (µs)"
                             : share                   ? metric + " (% of pipeline slots)"
                                                       : metric;
    const std::string name = base.substr(base.rfind('/') + 1);
    absl::StrAppendFormat(out, "<h2>Sweep: %s</h2>\n<svg class=\"sweep\" data-base=\"%s\" viewBox=\"0 0 %g %g\" "
                          "width=\"%g\" style=\"max-width: 100%%; height: auto\" role=\"img\" aria-label=\"%s against "
                          "the parameter\" font-size=\"11\">\n",
                          HtmlEscape(base), HtmlEscape(base), kLeft + kW + 24, kTop + kH + kBottom, kLeft + kW + 24,
                          HtmlEscape(unit));
    for (double y = 0; y <= y_max + y_step / 2; y += y_step) {
      absl::StrAppendFormat(out, "<line x1=\"%g\" x2=\"%g\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>"
                            "<text class=\"ytick\" x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                            kLeft, kLeft + kW, py(y), py(y), kLeft - 4, py(y) + 4, TickText(y));
    }
    // x ticks: the swept values themselves on a log axis, round values on a
    // linear one; a tick closer than 36 px to the last one drawn is skipped.
    std::vector<double> xticks;
    if (log_x || x1 == x0) {
      for (const auto& p : points) xticks.push_back(static_cast<double>(p.first));
    } else {
      const double step = NiceStep(x1 - x0, 6);
      for (double x = std::ceil(x0 / step) * step; x <= x1 + step / 1e6; x += step) xticks.push_back(x);
    }
    double last = -1e9;
    for (const double x : xticks) {
      if (px(x) - last < 36) continue;
      last = px(x);
      absl::StrAppendFormat(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" y2=\"%g\" stroke=\"#999\"/>"
                            "<text class=\"xtick\" x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%s</text>\n",
                            px(x), px(x), kTop + kH, kTop + kH + 4, px(x), kTop + kH + 16, TickText(x));
    }
    absl::StrAppendFormat(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#999\"/>"
                          "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#999\"/>\n",
                          kLeft, kTop + kH, kLeft + kW, kTop + kH, kLeft, kTop, kLeft, kTop + kH);
    absl::StrAppendFormat(out, "<text class=\"xlabel\" x=\"%g\" y=\"%g\" text-anchor=\"middle\">parameter N of "
                          "%s[N]%s</text><text class=\"ylabel\" transform=\"translate(14 %g) rotate(-90)\" "
                          "text-anchor=\"middle\">%s</text>\n",
                          kLeft + kW / 2, kTop + kH + 36, HtmlEscape(name), log_x ? " (log scale)" : "", kTop + kH / 2,
                          HtmlEscape(unit));
    std::string polyline, dots;
    for (const auto& [x, y] : points) {
      absl::StrAppendFormat(&polyline, "%.1f,%.1f ", px(static_cast<double>(x)), py(y));
      absl::StrAppendFormat(&dots, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"#3a6fb0\" data-x=\"%d\" "
                            "data-y=\"%.6g\"><title>%s[%d]: %.4g %s</title></circle>",
                            px(static_cast<double>(x)), py(y), x, y, HtmlEscape(base), x, y, HtmlEscape(unit));
    }
    absl::StrAppendFormat(out, "<polyline fill=\"none\" stroke=\"#3a6fb0\" points=\"%s\"/>%s\n</svg>\n", polyline,
                          dots);
  }
}

}  // namespace td

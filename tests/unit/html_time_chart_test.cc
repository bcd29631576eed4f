// The HTML report without and with counters: the time chart (an icicle of
// inclusive wall time), regions left out of it, the across-threads table,
// sections collapsed where they would only repeat the table, the IPC and
// iron-law line, and the sweep plot's axes.
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/report/html_report.h"
#include "runtime/report/html_time_chart.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::NoPmuRun;
using sample_runs::NoTree;

// NoPmuRun without the program's start and end: the run is then its one
// top-level region, outer (2 ms on its longest thread).
RunData RegionsOnly() {
  RunData data = NoPmuRun();
  data.program.start_unix_ns = data.program.end_unix_ns = 0;
  return data;
}

std::string Chart(const RunData& data) {
  std::string out;
  AppendTimeChart(data, &out);
  return out;
}

TEST(TimeChart, BarsAreSharesOfTheRunChildrenUnderTheirParent) {
  const std::string chart = Chart(RegionsOnly());
  // outer is the whole run; inner 1.5 of its 2 ms, in the row below.
  EXPECT_NE(chart.find("data-path=\"outer\" data-share=\"1.000000\" data-left=\"0.000000\" "
                       "style=\"left: 0.0000%; width: 100.0000%; top: 0px"),
            std::string::npos)
      << chart;
  EXPECT_NE(chart.find("data-path=\"outer/inner\" data-share=\"0.750000\" data-left=\"0.000000\" "
                       "style=\"left: 0.0000%; width: 75.0000%; top: 21px"),
            std::string::npos)
      << chart;
  EXPECT_NE(chart.find("<span class=\"lb\" data-full=\"inner · 1.50 ms\" data-short=\"inner\">"), std::string::npos);
  EXPECT_NE(chart.find("title=\"outer/inner&#10;4 calls; 1.50 ms inclusive (75.0% of the run), 1.50 ms exclusive; "
                       "1.00 CPUs\""),
            std::string::npos)
      << chart;
  // outer's exclusive time: thread 1's 1.5 ms, the longest (Totals).
  EXPECT_NE(chart.find("title=\"outer&#10;3 calls; 2.00 ms inclusive (100.0% of the run), 1.50 ms exclusive; 0.95 CPUs; "
                       "2 threads\""),
            std::string::npos)
      << chart;
  EXPECT_EQ(chart.find("left out"), std::string::npos);
  EXPECT_EQ(chart.find("whole run"), std::string::npos) << "no program times, no bar for the run";
}

TEST(TimeChart, TheWholeRunIsTheTopBarWhereTheFileHasItsTimes) {
  RunData data = RegionsOnly();
  data.program.start_unix_ns = 1'000'000'000;
  data.program.end_unix_ns = 1'004'000'000;  // 4 ms: outer is half of it
  const std::string chart = Chart(data);
  EXPECT_NE(chart.find("class=\"ib run\" data-path=\"\" data-share=\"1.000000\""), std::string::npos) << chart;
  EXPECT_NE(chart.find("data-full=\"app (whole run) · 4.00 ms\""), std::string::npos) << chart;
  EXPECT_NE(chart.find("data-path=\"outer\" data-share=\"0.500000\" data-left=\"0.000000\" "
                       "style=\"left: 0.0000%; width: 50.0000%; top: 21px"),
            std::string::npos)
      << chart;
  EXPECT_NE(chart.find("data-path=\"outer/inner\" data-share=\"0.375000\""), std::string::npos);
}

TEST(TimeChart, RegionsTooSmallToSeeAreLeftOutAndCounted) {
  RunData data = RegionsOnly();
  for (int i = 0; i < 3000; ++i) {  // 3,000 regions of 1 µs in inner
    Region r = sample_runs::MakeRegion(absl::StrCat("t", i), absl::StrCat("outer/inner/t", i), 1, {});
    r.threads.push_back({0, 1, 0, 0, 0, 1000, 1000, {}, {}});
    data.regions[1].children.push_back(static_cast<int>(data.regions.size()));
    data.regions.push_back(r);
  }
  // One of 2 % with a child of 0.4 %: drawn without a label; its child not drawn.
  Region wide = sample_runs::MakeRegion("w", "outer/inner/w", 1, {static_cast<int>(data.regions.size()) + 1});
  wide.threads.push_back({0, 1, 0, 0, 0, 40'000, 32'000, {}, {}});
  data.regions[1].children.push_back(static_cast<int>(data.regions.size()));
  data.regions.push_back(wide);
  Region narrow = sample_runs::MakeRegion("n", "outer/inner/w/n", static_cast<int>(data.regions.size()) - 1, {});
  narrow.threads.push_back({0, 1, 0, 0, 0, 8'000, 8'000, {}, {}});
  data.regions.push_back(narrow);
  const std::string chart = Chart(data);
  EXPECT_NE(chart.find("3,001 regions under 0.5% of the run (or deeper than 24 levels) left out."), std::string::npos)
      << chart.substr(0, 600);
  EXPECT_NE(chart.find("data-left-out=\"3001\""), std::string::npos);
  EXPECT_EQ(chart.find("data-path=\"outer/inner/t0\""), std::string::npos);
  EXPECT_EQ(chart.find("data-path=\"outer/inner/w/n\""), std::string::npos);
  // inner's children (3 ms of 1 µs regions and w) lie after one another: w
  // starts where the 3,000 small ones end, 3 ms in, which with inner's 1.5 ms
  // scales the children to fit inner (their sum, 3.04 ms, exceeds it).
  const size_t w = chart.find("data-path=\"outer/inner/w\" data-share=\"0.009868\" data-left=\"0.740132\"");
  ASSERT_NE(w, std::string::npos) << chart.substr(chart.size() - 800);
  EXPECT_EQ(chart.substr(w, chart.find("</div>", w) - w).find("class=\"lb\""), std::string::npos)
      << "a bar under 3 % has its title only";
}

TEST(TimeChart, DeepTreesAreCutAtTheirTwentyFourthLevel) {
  RunData data = RegionsOnly();
  data.regions.clear();
  std::string path;
  for (int depth = 0; depth < 30; ++depth) {  // a chain of 30, each all of its parent's time
    path += (depth == 0 ? "" : "/") + absl::StrCat("d", depth);
    Region r = sample_runs::MakeRegion(absl::StrCat("d", depth), path, depth - 1, {});
    if (depth < 29) r.children = {depth + 1};
    r.threads.push_back({0, 1, 0, 0, 0, 1'000'000, depth < 29 ? 0 : 1'000'000, {}, {}});
    data.regions.push_back(r);
  }
  data.regions[29].children = {0};  // a file whose tree loops back: the cap ends the walk
  const std::string chart = Chart(data);
  EXPECT_NE(chart.find("6 regions under 0.5% of the run (or deeper than 24 levels) left out."), std::string::npos)
      << chart.substr(0, 600);
  EXPECT_NE(chart.find("top: 483px"), std::string::npos) << "the 24th row, at 23 × 21 px";
  EXPECT_EQ(chart.find("top: 504px"), std::string::npos);
  EXPECT_NE(chart.find("style=\"height: 504px\""), std::string::npos);
  RunData loop = RegionsOnly();
  loop.regions[1].children = {1};  // inner inside itself
  const std::string once = Chart(loop);
  EXPECT_EQ(once.find("data-path=\"outer/inner\""), once.rfind("data-path=\"outer/inner\"")) << once;
  EXPECT_EQ(once.find("left out"), std::string::npos) << once;
}

TEST(HtmlReport, WithoutCountersOnlyRegionsOnSeveralThreadsHaveASection) {
  const std::string html = FormatHtmlReport(RegionsOnly(), NoTree());
  EXPECT_NE(html.find("<h2 id=\"region-0\">outer</h2>"), std::string::npos) << "outer ran on two threads";
  EXPECT_EQ(html.find("<h2 id=\"region-1\">"), std::string::npos) << "inner would only repeat the table";
  EXPECT_NE(html.find("<p class=\"muted collapsed\">1 region without a section of its own"), std::string::npos);
  EXPECT_NE(html.find("<span>inner</span>"), std::string::npos) << "no link to a section that is not there";
  EXPECT_NE(html.find("<a href=\"#region-0\">outer</a>"), std::string::npos);
  // Across threads: outer's 2 and 1.5 ms.
  const size_t row = html.find("<tr data-region=\"outer\"><td");
  ASSERT_NE(row, std::string::npos) << html;
  EXPECT_NE(html.find("<td data-key=\"wall_min_ns\" data-value=\"1500000\">1.50 ms</td><td data-key=\"wall_mean_ns\" "
                      "data-value=\"1750000\">1.75 ms</td><td data-key=\"wall_max_ns\" data-value=\"2000000\">2.00 ms"
                      "</td><td data-key=\"imbalance\" data-value=\"1.1429\">1.14</td><td>thread 0</td>",
                      row),
            std::string::npos)
      << html.substr(row, 600);
  EXPECT_EQ(html.find("<tr data-region=\"outer/inner\"><td"), std::string::npos) << "one thread: no spread";
  EXPECT_LT(html.find("class=\"icicle\""), html.find("<table class=\"regions\">")) << "the chart comes first";
}

TEST(HtmlReport, WithCountersEachRegionShowsItsIpcAndIronLaw) {
  RunAnalysis analysis;
  for (int i = 0; i < 2; ++i) {
    TopDownResult r;
    r.tree.push_back({.name = "Retiring", .level = 1, .value = 0.5});
    r.metrics = {{.name = "IPC", .value = 1.25}, {.name = "Instructions", .value = 2e9}, {.name = "CPI", .value = 0.8},
                 {.name = "Active_Clock_GHz", .value = 3.2}};
    analysis.regions.push_back(r);
  }
  analysis.regions[1].metrics.resize(1);  // inner: IPC only
  const std::string html = FormatHtmlReport(RegionsOnly(), analysis);
  // 2e9 × 0.8 / 3.2 GHz = 0.5 s.
  EXPECT_NE(html.find("<p class=\"ipc\">IPC 1.25; iron law: 2e+09 instructions × 0.80 CPI ÷ 3.20 GHz = 500.00 ms of CPU "
                      "time</p>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<h2 id=\"region-1\">"), std::string::npos) << "a tree gives inner a section";
  EXPECT_NE(html.find("<p class=\"ipc\">IPC 1.25</p>", html.find("<h2 id=\"region-1\">")), std::string::npos);
  EXPECT_EQ(html.find("collapsed"), std::string::npos);
}

TEST(HtmlReport, SweepAxesAreLabelledWithRoundTicks) {
  RunData data = RegionsOnly();
  data.regions.clear();
  for (long long n : {64, 256, 1024, 4096, 16384}) {
    Region r = sample_runs::MakeRegion(absl::StrCat("copy[", n, "]"), absl::StrCat("copy[", n, "]"), -1, {});
    r.base_name = "copy";
    r.parameter = n;
    r.threads.push_back({0, 1, 0, 0, 0, n * 100, n * 100, {}, {}});  // 0.1 µs per element: 6.4 … 1638.4 µs
    data.regions.push_back(r);
  }
  const std::string html = FormatHtmlReport(data, NoTree());
  EXPECT_NE(html.find(">parameter N of copy[N] (log scale)</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("rotate(-90)\" text-anchor=\"middle\">wall time per call (µs)</text>"), std::string::npos);
  // y: 0 to 2000 µs in steps of 500; x: the swept values, written out.
  for (const char* tick : {">0</text>", ">500</text>", ">1500</text>", ">2000</text>"}) {
    EXPECT_NE(html.find(absl::StrCat("class=\"ytick\" x=\"60\" y=\"")), std::string::npos);
    EXPECT_NE(html.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(html.find(">2500</text>"), std::string::npos);
  for (const char* tick : {">64</text>", ">256</text>", ">1024</text>", ">4096</text>", ">16384</text>"}) {
    EXPECT_NE(html.find(tick), std::string::npos) << tick;
  }
}

}  // namespace
}  // namespace td

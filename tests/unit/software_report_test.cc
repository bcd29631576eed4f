// Without hardware counts every output still carries what was measured:
// calls, wall times and the software metrics (task-clock, CPUs, page faults,
// …), per region, nested as the text report shows them. And the PAPI
// backend's view of its events.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/report/analysis_json.h"
#include "runtime/counters/papi_backend.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/report/compare.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/html_report.h"
#include "runtime/report/software_metrics.h"
#include "runtime/report/text_report.h"

namespace td {
namespace {

Region MakeRegion(const std::string& name, const std::string& path, int parent, std::vector<int> children) {
  Region r;
  r.name = name;
  r.base_name = name;
  r.path = path;
  r.parent = parent;
  r.children = std::move(children);
  return r;
}

// A no-PMU run: outer (two threads, one not measured) holds inner.
// Event order of SoftwareLayout: page-faults, task-clock, context-switches, cpu-migrations.
RunData NoPmuRun() {
  RunData data;
  data.program = {"app", 77, {"./app"}, 1'000'000'000, 3'000'000'000};
  data.backend = "perf_event";
  data.layout = SoftwareLayout();
  data.availability.software_counters = true;
  data.availability.hardware_reason = "no hardware PMU here";
  data.threads = {{0, 100, false, true, ""}, {1, 101, false, false, "EMFILE"}};
  Region outer = MakeRegion("outer", "outer", -1, {1});
  RegionOnThread t0{0, 2, 0, 0, 0, 2'000'000, 500'000, {}, {}};
  t0.events = {{10, 5}, {1'900'000, 400'000}, {3, 2}, {1, 0}};
  t0.groups = {{2'000'000, 2'000'000}};
  outer.threads.push_back(t0);
  outer.threads.push_back({1, 1, 0, 0, 0, 1'500'000, 1'500'000, {}, {}});  // not measured
  Region inner = MakeRegion("inner", "outer/inner", 0, {});
  RegionOnThread i0{0, 4, 0, 0, 0, 1'500'000, 1'500'000, {}, {}};
  i0.events = {{5, 5}, {1'500'000, 1'500'000}, {1, 1}, {1, 1}};
  i0.groups = {{1'500'000, 1'500'000}};
  inner.threads.push_back(i0);
  data.regions = {outer, inner};
  return data;
}

RunAnalysis NoTree() {
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counters: no hardware PMU here";
  return analysis;
}

const SoftwareMetric* Find(const std::vector<SoftwareMetric>& metrics, const std::string& key) {
  for (const SoftwareMetric& m : metrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

TEST(SoftwareMetrics, RegionTotalsAsTheTextReportShowsThem) {
  const RunData data = NoPmuRun();
  const auto outer = RegionSoftwareMetrics(data, data.regions[0]);
  ASSERT_EQ(outer.size(), 5u);
  EXPECT_EQ(outer[0].key, "task-clock");
  EXPECT_EQ(outer[1].label, "CPUs");
  EXPECT_EQ(*Find(outer, "task-clock")->value, 1'900'000);  // thread 1 was not measured
  EXPECT_DOUBLE_EQ(*Find(outer, "cpu_utilization")->value, 0.95);  // 1.9 ms over the longest wall, 2 ms
  EXPECT_EQ(*Find(outer, "page-faults")->value, 10);
  EXPECT_EQ(*Find(outer, "context-switches")->value, 3);
  const auto exclusive = RegionSoftwareMetrics(data, data.regions[0], true);
  EXPECT_EQ(*Find(exclusive, "task-clock")->value, 400'000);
  EXPECT_EQ(*Find(exclusive, "page-faults")->value, 5);
  EXPECT_FALSE(Find(exclusive, "cpu_utilization")->value) << "a ratio of differences is not measured";
  EXPECT_EQ(FormatSoftwareValue(*Find(outer, "task-clock")), "1.90 ms");
  EXPECT_EQ(FormatSoftwareValue(*Find(outer, "cpu_utilization")), "0.95");
}

TEST(SoftwareMetrics, NotMeasuredIsNoValueAndOnlyRecordedEventsAreColumns) {
  RunData data = NoPmuRun();
  const auto thread1 = SoftwareMetricsOf(data, {}, 1'500'000);
  for (const SoftwareMetric& m : thread1) EXPECT_FALSE(m.value) << m.key;
  EXPECT_EQ(FormatSoftwareValue(thread1[0]), "—");
  // A recording with task-clock only (like the replay fixture): two columns.
  data.layout = CounterLayout();
  EventInfo task_clock;
  task_clock.name = "task-clock";
  task_clock.unit = "ns";
  data.layout.AddGroup({task_clock});
  const auto columns = SoftwareMetricColumns(data);
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[1].key, "cpu_utilization");
  // No wall time: no utilisation, rather than a division by zero.
  const auto zero_wall = SoftwareMetricsOf(data, {{7, 7}}, 0);
  EXPECT_EQ(*zero_wall[0].value, 7);
  EXPECT_FALSE(zero_wall[1].value);
  data.layout = CounterLayout();
  EXPECT_TRUE(SoftwareMetricColumns(data).empty()) << "TD_BACKEND=none holds no software events";
}

// Found with run_json_fuzzer: a recording may hold counts up to 2^64 - 1, which
// a double rounds up to 2^64 (and task-clock past int64_t nanoseconds); the
// text report and `td report --json` converted them unchecked (undefined).
TEST(SoftwareMetrics, CountsPastTheIntegerRangeAreClamped) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(SoftwareIntegerValue(static_cast<double>(kMax)), kMax);
  EXPECT_EQ(SoftwareIntegerValue(1e30), kMax);
  EXPECT_EQ(SoftwareIntegerValue(-1), 0u);
  EXPECT_EQ(SoftwareIntegerValue(std::nan("")), 0u);
  EXPECT_EQ(SoftwareIntegerValue(1234.9), 1234u);
  SoftwareMetric count{"page-faults", "page-faults", SoftwareUnit::kCount, static_cast<double>(kMax)};
  EXPECT_EQ(FormatSoftwareValue(count), "18,446,744,073,709,551,615");
  SoftwareMetric ns{"task-clock", "task-clock", SoftwareUnit::kNanoseconds, static_cast<double>(kMax)};
  EXPECT_EQ(FormatSoftwareValue(ns), "9223372036.855 s");  // int64_t's largest
  RunData data = NoPmuRun();
  data.regions[0].threads[0].events[1] = {kMax, kMax};  // task-clock
  const nlohmann::json j = RunAnalysisToJson(data, NoTree());
  EXPECT_EQ(j.at("regions")[0].at("software").at("task-clock").at("inclusive").get<uint64_t>(), kMax);
  EXPECT_NE(FormatTextReport(data).find("9223372036.855 s"), std::string::npos);
}

TEST(SoftwareMetrics, TreeOrderIsDepthFirstAndIgnoresBadChildren) {
  RunData data = NoPmuRun();
  const Region second = MakeRegion("second", "second", -1, {});
  data.regions.insert(data.regions.begin() + 1, second);  // outer, second, outer/inner
  data.regions[0].children = {2, 0, 99};                  // 0 and 99 are not children of outer
  data.regions[2].parent = 0;
  const auto order = RegionTreeOrder(data);
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].index, 0u);
  EXPECT_EQ(order[1].index, 2u);
  EXPECT_EQ(order[1].depth, 1);
  EXPECT_EQ(order[2].index, 1u);
  EXPECT_EQ(order[2].depth, 0);
}

TEST(NoPmuOutputs, JsonHasEveryRegionWithWhatWasMeasured) {
  const RunData data = NoPmuRun();
  const nlohmann::json j = RunAnalysisToJson(data, NoTree());
  EXPECT_FALSE(j.at("available").get<bool>());
  ASSERT_EQ(j.at("regions").size(), 2u);
  const nlohmann::json& outer = j.at("regions")[0];
  EXPECT_EQ(outer.at("path"), "outer");
  EXPECT_EQ(outer.at("calls"), 3);
  EXPECT_EQ(outer.at("wall_inclusive_ns"), 2'000'000);
  EXPECT_EQ(outer.at("wall_exclusive_ns"), 1'500'000);
  const nlohmann::json& sw = outer.at("software");
  EXPECT_EQ(sw.at("task-clock").at("inclusive"), 1'900'000);
  EXPECT_TRUE(sw.at("task-clock").at("inclusive").is_number_unsigned()) << "counts stay integers";
  EXPECT_EQ(sw.at("task-clock").at("exclusive"), 400'000);
  EXPECT_DOUBLE_EQ(sw.at("cpu_utilization").at("inclusive").get<double>(), 0.95);
  EXPECT_FALSE(sw.at("cpu_utilization").contains("exclusive"));
  EXPECT_EQ(sw.at("page-faults").at("inclusive"), 10);
  EXPECT_EQ(sw.at("cpu-migrations").at("exclusive"), 0);
  EXPECT_TRUE(outer.at("inclusive").is_null());
  EXPECT_TRUE(outer.at("exclusive").is_null());
  EXPECT_EQ(j.at("regions")[1].at("path"), "outer/inner");
  EXPECT_EQ(j.at("regions")[1].at("software").at("task-clock").at("inclusive"), 1'500'000);
}

TEST(NoPmuOutputs, JsonSaysNotMeasuredAsNull) {
  RunData data = NoPmuRun();
  for (Region& r : data.regions) {
    for (RegionOnThread& t : r.threads) t.events.clear();
  }
  const nlohmann::json j = RunAnalysisToJson(data, NoTree());
  EXPECT_TRUE(j.at("regions")[0].at("software").at("task-clock").at("inclusive").is_null());
  EXPECT_TRUE(j.at("regions")[0].at("software").at("cpu_utilization").at("inclusive").is_null());
  EXPECT_TRUE(j.at("regions")[0].at("software").at("page-faults").at("exclusive").is_null());
  EXPECT_EQ(j.at("regions")[0].at("calls"), 3) << "calls and wall are always measured";
}

TEST(NoPmuOutputs, CsvHasCpuUtilisation) {
  const std::string csv = FormatCsvReport(NoPmuRun(), nullptr);
  EXPECT_NE(csv.find("outer,time,wall_exclusive_ns,1500000,0,0\nouter,time,cpu_utilization,0.95,0,0\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("outer/inner,time,cpu_utilization,1,0,0\n"), std::string::npos) << csv;
}

TEST(NoPmuOutputs, HtmlShowsTheRegionTreeWithTheSoftwareColumns) {
  const std::string html = FormatHtmlReport(NoPmuRun(), NoTree());
  const size_t table = html.find("<table class=\"regions\">");
  ASSERT_NE(table, std::string::npos) << html;
  EXPECT_NE(html.find("<th>task-clock</th><th>CPUs</th><th>page-faults</th>", table), std::string::npos);
  const size_t outer = html.find("<tr data-region=\"outer\" data-depth=\"0\">", table);
  const size_t inner = html.find("<tr data-region=\"outer/inner\" data-depth=\"1\">", table);
  ASSERT_NE(outer, std::string::npos) << html;
  ASSERT_NE(inner, std::string::npos) << html;
  EXPECT_LT(outer, inner);
  EXPECT_NE(html.find("<td data-key=\"task-clock\" data-value=\"1900000\">1.90 ms</td>", outer), std::string::npos);
  EXPECT_NE(html.find("<td data-key=\"cpu_utilization\" data-value=\"0.95\">0.95</td>", outer), std::string::npos);
  EXPECT_NE(html.find("<td data-key=\"wall_exclusive_ns\" data-value=\"1500000\">1.50 ms</td>", outer),
            std::string::npos);
  // The per-thread table of outer: thread 1 not measured, never 0.
  EXPECT_NE(html.find("<td>1</td><td>1</td><td>1.50 ms</td><td>1.50 ms</td><td data-key=\"task-clock\" "
                      "data-value=\"\">—</td>"),
            std::string::npos)
      << html;
}

std::vector<CompareColumn> InnerAndOuter(const RunData& data, const RunAnalysis& analysis) {
  return {MakeCompareColumn(data, 0, analysis, "outer"), MakeCompareColumn(data, 1, analysis, "inner")};
}

TEST(NoPmuOutputs, CompareNamesTheRegionsAndShowsSoftwareRatios) {
  const RunData data = NoPmuRun();
  const RunAnalysis analysis = NoTree();
  const auto columns = InnerAndOuter(data, analysis);
  EXPECT_EQ(columns[1].region, "outer/inner");
  EXPECT_EQ(columns[1].run, "app (pid 77)");
  EXPECT_EQ(columns[1].tree, nullptr);
  const std::string text = FormatComparison(columns, CompareFormat::kText);
  EXPECT_NE(text.find("outer = region outer of app (pid 77)\ninner = region outer/inner of app (pid 77)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Speedup                     1.00      1.33\n"), std::string::npos) << text;
  EXPECT_NE(text.find("task-clock               1.90 ms   1.50 ms\ntask-clock ratio            1.00      0.79\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CPUs                        0.95      1.00\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cpu-migrations ratio        1.00      1.00\n"), std::string::npos) << text;
  EXPECT_NE(text.find("(no Top-Down tree: these runs hold no hardware counts; speedup, calls and software "
                      "counters only)"),
            std::string::npos)
      << text;

  const std::string csv = FormatComparison(columns, CompareFormat::kCsv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "row,outer,inner");
  EXPECT_NE(csv.find("\nWall time,2000000,1500000\nCalls,3,4\ntask-clock,1900000,1500000\n"
                     "task-clock ratio,1.00,0.79\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nregion,outer,outer/inner\nrun,app (pid 77),app (pid 77)\n"), std::string::npos) << csv;

  const std::string html = FormatComparison(columns, CompareFormat::kHtml);
  EXPECT_NE(html.find("<tr class=\"what\"><th>region</th><th>outer</th><th>outer/inner</th></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td style=\"padding-left:0.8em\">task-clock ratio</td><td>1.00</td><td>0.79</td>"),
            std::string::npos)
      << html;
}

TEST(NoPmuOutputs, CompareRatioOfAZeroBaseIsNotMade) {
  RunData data = NoPmuRun();
  data.regions[0].threads[0].events[1] = {0, 0};  // outer: task-clock 0
  const RunAnalysis analysis = NoTree();
  const std::string csv = FormatComparison(InnerAndOuter(data, analysis), CompareFormat::kCsv);
  EXPECT_NE(csv.find("\ntask-clock ratio,,\n"), std::string::npos) << csv;
}

TEST(PapiEvents, KernelSoftwareEventsKeepTdNamesAndAreNotHardware) {
  const EventInfo task_clock = PapiEventInfo("perf::TASK-CLOCK");
  EXPECT_EQ(task_clock.name, "task-clock");
  EXPECT_EQ(task_clock.unit, "ns");
  EXPECT_FALSE(task_clock.hardware);
  EXPECT_EQ(task_clock.pmu, "papi");
  EXPECT_EQ(PapiEventInfo("perf::FAULTS").name, "page-faults") << "aliases become td's name";
  EXPECT_EQ(PapiEventInfo("perf::CONTEXT-SWITCHES:u").name, "context-switches");
  for (const char* hardware : {"PAPI_TOT_CYC", "perf::CYCLES", "skl::INST_RETIRED:ANY", "perf::NOPE"}) {
    const EventInfo e = PapiEventInfo(hardware);
    EXPECT_EQ(e.name, hardware);
    EXPECT_TRUE(e.hardware) << hardware;
  }
}

TEST(PapiEvents, HardwareCountersAreAvailableOnlyWhenAHardwareEventIsCounted) {
  Availability probed;
  probed.software_counters = true;
  probed.hardware_reason = "no hardware PMU here";
  probed.hardware_errno = "ENOENT";
  const Availability software = PapiAvailability({PapiEventInfo("perf::TASK-CLOCK")}, probed);
  EXPECT_FALSE(software.hardware_counters);
  EXPECT_EQ(software.hardware_reason, "no hardware PMU here");
  EXPECT_EQ(software.measured, "wall time, calls and, through PAPI, task-clock");
  const Availability hardware =
      PapiAvailability({PapiEventInfo("PAPI_TOT_CYC"), PapiEventInfo("perf::TASK-CLOCK")}, probed);
  EXPECT_TRUE(hardware.hardware_counters);
  EXPECT_EQ(hardware.hardware_reason, "");
  EXPECT_EQ(hardware.hardware_errno, "");
}

}  // namespace
}  // namespace td

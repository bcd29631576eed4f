// The software metrics of a region (task-clock, CPUs, page faults, …) that
// every output carries, hardware counts or not: totals, "not measured",
// clamping, the depth-first region order.
#include "runtime/analysis/software_metrics.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/report/analysis_json.h"
#include "runtime/report/text_report.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::MakeRegion;
using sample_runs::NoPmuRun;
using sample_runs::NoTree;

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

}  // namespace
}  // namespace td

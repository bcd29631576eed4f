#include "runtime/analysis/measurement_conditions.h"

#include <string>

#include "gtest/gtest.h"

namespace td {
namespace {

// One region on `threads` threads, each on the region `wall_ns` long and on
// a CPU `cpu_ns` of it (task-clock, the one event).
RunData OneRegion(int threads, int64_t wall_ns, uint64_t cpu_ns) {
  RunData data;
  data.layout.events.resize(1);
  data.layout.events[0].name = "task-clock";
  data.layout.events[0].unit = "ns";
  data.layout.groups = {{0, 0, 1}};
  Region region;
  region.name = region.base_name = region.path = "work";
  for (int t = 0; t < threads; ++t) {
    RegionOnThread on;
    on.thread = static_cast<uint32_t>(t);
    on.calls = 1;
    on.wall_inclusive_ns = on.wall_exclusive_ns = wall_ns;
    on.events = {{cpu_ns, cpu_ns}};
    on.groups = {{static_cast<uint64_t>(wall_ns), static_cast<uint64_t>(wall_ns)}};
    region.threads.push_back(on);
  }
  data.regions.push_back(region);
  return data;
}

TEST(MeasurementConditions, ThreadsThatTookTurnsAreNamed) {
  const auto warnings = CheckMeasurementConditions(OneRegion(2, 100'000'000, 30'000'000));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].id, "threads_took_turns");
  EXPECT_EQ(warnings[0].region, "work");
  EXPECT_NE(warnings[0].text.find("its 2 threads kept 0.60 CPUs busy"), std::string::npos) << warnings[0].text;
}

TEST(MeasurementConditions, ThreadsThatRanTogetherAreNot) {
  EXPECT_TRUE(CheckMeasurementConditions(OneRegion(2, 100'000'000, 95'000'000)).empty());
}

TEST(MeasurementConditions, AThreadOffItsCpuIsNamed) {
  const auto warnings = CheckMeasurementConditions(OneRegion(1, 100'000'000, 60'000'000));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].id, "off_cpu");
  EXPECT_NE(warnings[0].text.find("on a CPU 60% of the region's wall time"), std::string::npos);
  EXPECT_TRUE(CheckMeasurementConditions(OneRegion(1, 100'000'000, 90'000'000)).empty());
}

TEST(MeasurementConditions, ShortRegionsAndRunsWithoutTaskClockSayNothing) {
  EXPECT_TRUE(CheckMeasurementConditions(OneRegion(1, 500'000, 100'000)).empty());
  RunData data = OneRegion(1, 100'000'000, 10'000'000);
  data.layout.events[0].name = "page-faults";
  EXPECT_TRUE(CheckMeasurementConditions(data).empty());
}

TEST(MeasurementConditions, SpeedupsThatDisagreeAreNamed) {
  const auto line = SpeedupDisagreement("b.json", 1.9, 1.02);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find("wall time says 1.90× the first column's speed, CPU time (task-clock) 1.02×"),
            std::string::npos);
  EXPECT_FALSE(SpeedupDisagreement("b.json", 1.9, 1.7).has_value());
  EXPECT_FALSE(SpeedupDisagreement("b.json", 0, 1.7).has_value());
}

}  // namespace
}  // namespace td

// The counter section of the text report: each group's coverage, scaled
// counts, "not measured", regions too short to trust.
#include "runtime/report/counter_text.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/counters/perf_event_backend.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::MultiplexedRun;

TEST(Coverage, ScaledCountsCoverageAndNotMeasured) {
  const RunData data = MultiplexedRun();
  EXPECT_DOUBLE_EQ(*GroupCoverage(data.regions[0], 1), 0.5);
  EXPECT_DOUBLE_EQ(*GroupCoverage(data.regions[1], 1), 0.0);
  EXPECT_DOUBLE_EQ(*ScaledRegionCount(data, data.regions[0], 4), 1000000.0) << "500,000 × 1000/500";
  EXPECT_FALSE(ScaledRegionCount(data, data.regions[1], 4).has_value()) << "never ran: not 0";
  const std::string text = FormatCounterSection(data, {});
  EXPECT_NE(text.find("group 1 {instructions}: coverage  50%  instructions 1,000,000"), std::string::npos) << text;
  EXPECT_NE(text.find("never\n    group 1 {instructions}: not measured"), std::string::npos) << text;
  EXPECT_NE(text.find("too short to trust: 3,000 instructions per call"), std::string::npos) << text;
  EXPECT_EQ(text.find("half\n    group 1 {instructions}: coverage  50%  instructions 1,000,000\n    too short"),
            std::string::npos)
      << "1,000,000 instructions in one call is long enough";
}

TEST(Coverage, OnlyTheDefaultGroupPrintsNothing) {
  RunData data;
  data.layout = SoftwareLayout();
  EXPECT_EQ(FormatCounterSection(data, {}), "");
}

// On a PMU host the default group is task-clock alone (a hardware group's
// time enabled): still in the table, not a counter group of its own.
TEST(Coverage, TaskClockFromAHardwareGroupIsTheDefaultGroup) {
  CounterLayout with_hardware = SoftwareLayout();
  EventInfo cycles;
  cycles.name = "cycles";
  cycles.hardware = true;
  with_hardware.AddGroup({cycles});
  RunData data;
  data.layout = TaskClockFromHardwareGroup(with_hardware);
  data.regions.push_back(Region{});
  data.regions[0].path = "r";
  const std::string text = FormatCounterSection(data, {});
  EXPECT_EQ(text.find("{task-clock}"), std::string::npos) << text;
  EXPECT_NE(text.find("group 1 {cycles}"), std::string::npos) << text;
}

}  // namespace
}  // namespace td

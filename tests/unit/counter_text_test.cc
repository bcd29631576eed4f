// The counter section of the text report: each group's coverage, scaled
// counts, "not measured", regions too short to trust.
#include "runtime/report/counter_text.h"

#include <algorithm>
#include <string>
#include <vector>

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

// A group of 30 events with long names: its counts go on lines of their
// own, none longer than 110 columns, each count still beside its name.
TEST(Coverage, ALargeGroupIsBrokenIntoShortLines) {
  RunData data;
  data.layout = SoftwareLayout();
  std::vector<EventInfo> events;
  for (int i = 0; i < 30; ++i) {
    EventInfo e;
    e.name = "CYCLE_ACTIVITY.STALLS_EVENT_NUMBER_" + std::to_string(i);
    e.hardware = true;
    events.push_back(e);
  }
  data.layout.AddGroup(events);
  Region region;
  region.path = "r";
  RegionOnThread t;
  t.calls = 1;
  t.events.assign(data.layout.events.size(), EventDelta{1'000'000, 1'000'000});
  t.groups.assign(data.layout.groups.size(), GroupTimes{100, 100});
  region.threads.push_back(t);
  data.regions.push_back(region);
  const std::string text = FormatCounterSection(data, {});
  EXPECT_NE(text.find("    group 1, 30 events: coverage 100%\n      CYCLE_ACTIVITY.STALLS_EVENT_NUMBER_0 1,000,000"),
            std::string::npos)
      << text;
  for (int i = 0; i < 30; ++i) {
    EXPECT_NE(text.find("STALLS_EVENT_NUMBER_" + std::to_string(i) + " 1,000,000"), std::string::npos) << i;
  }
  size_t longest = 0, start = 0;
  for (size_t end = text.find('\n'); end != std::string::npos; start = end + 1, end = text.find('\n', start)) {
    longest = std::max(longest, end - start);
  }
  EXPECT_LE(longest, 110u) << text;
}

}  // namespace
}  // namespace td

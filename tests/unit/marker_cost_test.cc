// TakeOutMarkerCost (runtime/recorded/run_data.h): td's own cost per marker pair
// taken out of a recorded run, and the cost kept in the run file.
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/recorded/run_data.h"
#include "runtime/recorded/run_file.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

// Wall: 10 ns inside a region, 100 ns around it; task-clock (event 1): 20 and 200.
MarkerCost SampleCost() {
  MarkerCost cost;
  cost.pairs = 500;
  cost.inside_wall_ns = 10;
  cost.around_wall_ns = 100;
  cost.inside = {0, 20, 0, 0};
  cost.around = {0, 200, 0, 0};
  return cost;
}

// TwoThreadRun: "outer" (2 calls on thread 0, 1 on thread 1) holds "inner"
// on thread 0 (4 calls, 3 of them recursive).
TEST(MarkerCost, TakenOutPerCallAndPerPairInside) {
  RunData run = sample_runs::TwoThreadRun();
  run.marker_cost = SampleCost();
  TakeOutMarkerCost(&run);
  const RegionOnThread& outer = run.regions[0].threads[0];
  EXPECT_EQ(run.marker_cost->wall_times_held, 0u);
  // Its 2 calls × 10 inside, and the 4 pairs of "inner" run inside it × 110.
  EXPECT_EQ(outer.wall_inclusive_ns, 2'000'000 - 460);
  // Its 2 calls × 10, and its child's 1 outermost call × 100 around it.
  EXPECT_EQ(outer.wall_exclusive_ns, 500'000 - 120);
  EXPECT_EQ(outer.events[1].inclusive, 1'900'000u - 920);
  EXPECT_EQ(outer.events[1].exclusive, 400'000u - 240);
  EXPECT_EQ(outer.events[0].inclusive, 10u) << "page-faults cost nothing per pair";
  const RegionOnThread& inner = run.regions[1].threads[0];
  // 1 outermost call × 10, and its 3 recursive pairs × 110 inside it.
  EXPECT_EQ(inner.wall_inclusive_ns, 1'500'000 - 340);
  EXPECT_EQ(inner.wall_exclusive_ns, 1'500'000 - 340);
  EXPECT_EQ(inner.events[1].inclusive, 1'500'000u - 680);
  // Exclusive stays inclusive minus the children's inclusive.
  EXPECT_EQ(outer.wall_exclusive_ns, outer.wall_inclusive_ns - inner.wall_inclusive_ns);
  const RegionOnThread& unmeasured = run.regions[0].threads[1];
  EXPECT_EQ(unmeasured.wall_inclusive_ns, 1'500'000 - 10);
  EXPECT_TRUE(unmeasured.events.empty());
  EXPECT_EQ(run.regions[0].threads[0].calls, 2u) << "calls are never touched";
  ASSERT_TRUE(run.marker_cost->taken_out);
  const RunData once = run;
  TakeOutMarkerCost(&run);
  EXPECT_EQ(RunToJson(run), RunToJson(once)) << "taken out once only";
}

// TD_SAMPLE=2: of inner's 4 outermost calls 2 were read. Only those 2 pairs
// cost a pair inside outer; inner's scaled values carry the inside cost on
// all 4 calls while outer's carry it on the 2 read ones, so outer's exclusive
// values get the 2 unread calls' inside cost back.
TEST(MarkerCost, SampledRunsTakeOutTheReadPairsOnly) {
  RunData run = sample_runs::TwoThreadRun();
  run.regions[1].threads[0].recursive_calls = 0;
  run.sample_every = 2;
  run.marker_cost = SampleCost();
  TakeOutMarkerCost(&run);
  const RegionOnThread& outer = run.regions[0].threads[0];
  // 2 calls × 10 inside, 2 read pairs of inner × 110.
  EXPECT_EQ(outer.wall_inclusive_ns, 2'000'000 - 240);
  // 2 × 10, 2 read children × 100 around, minus 2 unread children × 10 inside.
  EXPECT_EQ(outer.wall_exclusive_ns, 500'000 - 200);
  EXPECT_EQ(outer.events[1].inclusive, 1'900'000u - 480);
  EXPECT_EQ(outer.events[1].exclusive, 400'000u - 400);
  EXPECT_EQ(run.regions[1].threads[0].wall_inclusive_ns, 1'500'000 - 40) << "inner: 4 calls × 10";
}

TEST(MarkerCost, ValuesStopAtZeroAndRunsWithoutItStayAsTheyAre) {
  RunData run = sample_runs::TwoThreadRun();
  const RunData before = run;
  TakeOutMarkerCost(&run);
  EXPECT_EQ(RunToJson(run), RunToJson(before));
  run.marker_cost = SampleCost();
  run.marker_cost->inside_wall_ns = 1e12;
  run.marker_cost->inside[1] = 1e12;
  TakeOutMarkerCost(&run);
  EXPECT_EQ(run.regions[1].threads[0].wall_inclusive_ns, 0);
  EXPECT_EQ(run.regions[1].threads[0].events[1].exclusive, 0u);
  EXPECT_GT(run.marker_cost->wall_times_held, 0u) << "said in the report, not silent";
}

// A cost measured at exit above what the run's pairs cost takes more from a
// region with many pairs inside than from those pairs' regions: the outer
// region still never shows less than what it contains.
TEST(MarkerCost, AnOverestimateNeverLeavesAParentBelowItsChildren) {
  RunData run = sample_runs::TwoThreadRun();
  run.marker_cost = SampleCost();
  // A pair "costs" 499,995 ns of wall and 450,000 ns of task-clock.
  run.marker_cost->around_wall_ns = 499'985;
  run.marker_cost->around[1] = 449'980;
  TakeOutMarkerCost(&run);
  const RegionOnThread& outer = run.regions[0].threads[0];
  const RegionOnThread& inner = run.regions[1].threads[0];
  EXPECT_EQ(inner.wall_inclusive_ns, 1'500'000 - 10 - 3 * 499'995);
  EXPECT_EQ(outer.wall_inclusive_ns, 5) << "2,000,000 - 20 - 4 x 499,995 = 0, raised to its child's 5";
  EXPECT_EQ(inner.events[1].inclusive, 1'500'000u - 20 - 3 * 450'000);
  EXPECT_EQ(outer.events[1].inclusive, inner.events[1].inclusive) << "99,960, raised to its child's 149,980";
  EXPECT_EQ(outer.events[0].inclusive, 10u) << "page-faults untouched";
  EXPECT_EQ(run.marker_cost->wall_times_held, 2u) << "outer's inclusive (raised to its child's) and exclusive (0)";
}

MarkerCost Scaled(MarkerCost cost, double scale) {
  cost.inside_wall_ns *= scale;
  cost.around_wall_ns *= scale;
  for (double& v : cost.inside) v *= scale;
  for (double& v : cost.around) v *= scale;
  return cost;
}

// No value below 0, no region below its children, no exclusive value above
// its inclusive less its children's: on every thread, wall and task-clock.
void ExpectConsistent(const RunData& run) {
  for (const Region& region : run.regions) {
    for (const RegionOnThread& part : region.threads) {
      int64_t children_wall = 0;
      uint64_t children_clock = 0;
      for (const int child : region.children) {
        for (const RegionOnThread& c : run.regions[static_cast<size_t>(child)].threads) {
          if (c.thread != part.thread) continue;
          children_wall += c.wall_inclusive_ns;
          if (!c.events.empty()) children_clock += c.events[1].inclusive;
        }
      }
      SCOPED_TRACE(region.path);
      EXPECT_GE(part.wall_exclusive_ns, 0);
      EXPECT_GE(part.wall_inclusive_ns, children_wall);
      EXPECT_LE(part.wall_exclusive_ns, part.wall_inclusive_ns - children_wall);
      if (part.events.empty()) continue;
      EXPECT_GE(part.events[1].inclusive, children_clock);
      EXPECT_LE(part.events[1].exclusive, part.events[1].inclusive - children_clock);
    }
  }
}

// A slow calibration injected at every scale (the measured cost × 1 to ×
// 10^6), on costs mostly around the pair (the sample's) and mostly inside it
// (the software group's read: task-clock runs on through the system call),
// and on a parent that did most of the work itself around 1,000 short child
// calls, where a cost above the child's takes the child to 0 (it loses less
// than the cost) while the parent's exclusive loses only the pairs' around.
TEST(MarkerCost, AnInjectedSlowCalibrationKeepsEveryRegionConsistent) {
  RunData busy_parent = sample_runs::TwoThreadRun();
  RegionOnThread& parent = busy_parent.regions[0].threads[0];
  parent.wall_inclusive_ns = 10'000'000;
  parent.wall_exclusive_ns = 9'000'000;
  parent.events[1] = {10'000'000, 9'000'000};
  RegionOnThread& child = busy_parent.regions[1].threads[0];
  child.calls = 1000;
  child.recursive_calls = 0;
  child.events[1] = {1'000'000, 1'000'000};
  child.wall_inclusive_ns = child.wall_exclusive_ns = 1'000'000;
  MarkerCost mostly_inside = SampleCost();
  std::swap(mostly_inside.inside_wall_ns, mostly_inside.around_wall_ns);
  std::swap(mostly_inside.inside, mostly_inside.around);
  for (const double scale : {1.0, 10.0, 15.0, 30.0, 100.0, 1e3, 1e4, 1e5, 1e6}) {
    for (const MarkerCost& measured : {SampleCost(), mostly_inside}) {
      for (const RunData& sample : {sample_runs::TwoThreadRun(), busy_parent}) {
        SCOPED_TRACE("cost ×" + std::to_string(scale));
        RunData run = sample;
        run.marker_cost = Scaled(measured, scale);
        TakeOutMarkerCost(&run);
        ExpectConsistent(run);
        if (scale >= 1e4) EXPECT_GT(run.marker_cost->wall_times_held, 0u) << "said in the report, not silent";
      }
    }
  }
}

// Counts up to 2^64 − 1 are valid in a file: taking the cost out of them
// neither wraps nor converts out of range (UBSan checks both here).
TEST(MarkerCost, CountsAtTheTopOfTheRangeStayInRange) {
  RunData run = sample_runs::TwoThreadRun();
  run.marker_cost = SampleCost();
  for (Region& region : run.regions) {
    for (RegionOnThread& part : region.threads) {
      part.wall_inclusive_ns = std::numeric_limits<int64_t>::max();
      part.calls = std::numeric_limits<uint64_t>::max();
      for (EventDelta& d : part.events) d = {std::numeric_limits<uint64_t>::max(), std::numeric_limits<uint64_t>::max()};
    }
  }
  TakeOutMarkerCost(&run);
  // 2^64 − 1 calls × 10 ns and more is more than any value: 0, not a wrapped remainder.
  const RegionOnThread& outer = run.regions[0].threads[0];
  EXPECT_EQ(outer.wall_inclusive_ns, 0);
  EXPECT_EQ(outer.events[1].inclusive, 0u);
  EXPECT_EQ(outer.events[0].inclusive, std::numeric_limits<uint64_t>::max()) << "page-faults: no cost, untouched";
  // A loss too small to move a value that large leaves it as it is.
  RunData one_call = sample_runs::TwoThreadRun();
  one_call.marker_cost = SampleCost();
  one_call.regions[1].threads[0].events[1].inclusive = std::numeric_limits<uint64_t>::max();
  TakeOutMarkerCost(&one_call);
  EXPECT_EQ(one_call.regions[1].threads[0].events[1].inclusive, std::numeric_limits<uint64_t>::max());
}

TEST(MarkerCost, KeptInTheRunFileWithRawValues) {
  RunData run = sample_runs::TwoThreadRun();
  run.marker_cost = SampleCost();
  const nlohmann::json j = nlohmann::json::parse(RunFileText(run));
  ASSERT_TRUE(j.contains("marker_cost"));
  EXPECT_EQ(j["marker_cost"]["inside"][1], 20.0);
  EXPECT_EQ(j["marker_cost"]["around_wall_ns"], 100.0);
  absl::StatusOr<RunData> back = RunFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->marker_cost);
  EXPECT_EQ(back->marker_cost->pairs, 500u);
  EXPECT_EQ(back->marker_cost->around, run.marker_cost->around);
  EXPECT_FALSE(back->marker_cost->taken_out) << "a file holds raw values";
  EXPECT_EQ(back->regions[0].threads[0].wall_inclusive_ns, 2'000'000);

  nlohmann::json bad = j;
  bad["marker_cost"]["inside"][1] = -1;
  absl::StatusOr<RunData> negative = RunFromJson(bad);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("marker_cost.inside[1]"), std::string::npos) << negative.status();
  bad = j;
  bad["marker_cost"]["around"] = nlohmann::json::array({1, 2});
  absl::StatusOr<RunData> short_list = RunFromJson(bad);
  ASSERT_FALSE(short_list.ok());
  EXPECT_NE(short_list.status().message().find("marker_cost.around has 2 values; the run has 4 events"),
            std::string::npos)
      << short_list.status();
  bad = j;
  bad.erase("marker_cost");
  absl::StatusOr<RunData> without = RunFromJson(bad);
  ASSERT_TRUE(without.ok()) << "files from before it";
  EXPECT_FALSE(without->marker_cost);
}

}  // namespace
}  // namespace td

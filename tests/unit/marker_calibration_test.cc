// CombineCalibrationRounds (runtime/driver/marker_calibration.h): td's own
// cost per marker pair from rounds that a preemption may have hit.
#include "runtime/driver/marker_calibration.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace td {
namespace {

// Inside 30 ns, outer 2,000 ns (so around 1,940 ns); task-clock 900 / 2,700.
CalibrationRound QuietRound() { return CalibrationRound{200, PerCall{30, {0, 900}}, PerCall{2000, {0, 2700}}}; }

TEST(MarkerCalibration, APreemptedRoundIsOutvotedByTheQuietOnes) {
  std::vector<CalibrationRound> rounds(5, QuietRound());
  // 10 ms lost in round 2's inner pairs (+50 µs per call to inside and to
  // outer alike) and in round 4's outer pairs.
  rounds[2].inside.wall_ns += 50'000;
  rounds[2].outer.wall_ns += 50'000;
  rounds[2].inside.events[1] += 50'000;
  rounds[2].outer.events[1] += 50'000;
  rounds[4].outer.wall_ns += 50'000;
  std::string why;
  const auto cost = CombineCalibrationRounds(rounds, &why);
  ASSERT_TRUE(cost.has_value()) << why;
  EXPECT_DOUBLE_EQ(cost->inside_wall_ns, 30);
  EXPECT_DOUBLE_EQ(cost->around_wall_ns, 1940);
  ASSERT_EQ(cost->inside.size(), 2u);
  EXPECT_DOUBLE_EQ(cost->inside[1], 900);
  EXPECT_DOUBLE_EQ(cost->around[1], 900);
  EXPECT_EQ(cost->pairs, 1000u);
}

TEST(MarkerCalibration, AnInnerPreemptionDoesNotShrinkAround) {
  // Taking the least "around" of each round would pick round 0's, made
  // small by a preemption of its inner pair: outer less twice inside.
  std::vector<CalibrationRound> rounds = {QuietRound(), QuietRound()};
  rounds[0].inside.wall_ns += 900;
  rounds[0].outer.wall_ns += 900;
  std::string why;
  const auto cost = CombineCalibrationRounds(rounds, &why);
  ASSERT_TRUE(cost.has_value()) << why;
  EXPECT_DOUBLE_EQ(cost->around_wall_ns, 1940);
}

TEST(MarkerCalibration, EveryRoundSlowIsRefusedWithOneLine) {
  std::vector<CalibrationRound> rounds(5, QuietRound());
  for (CalibrationRound& round : rounds) round.outer.wall_ns = 72'000;
  std::string why;
  EXPECT_FALSE(CombineCalibrationRounds(rounds, &why).has_value());
  EXPECT_NE(why.find("72.0 µs at best over 5 rounds"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

TEST(MarkerCalibration, NoMeasuredRoundGivesNoCost) {
  std::string why;
  EXPECT_FALSE(CombineCalibrationRounds({CalibrationRound{}}, &why).has_value());
  EXPECT_EQ(why, "no calibration round was measured");
}

TEST(MarkerCalibration, RoundsWithoutCountersKeepTheWallCostOnly) {
  std::vector<CalibrationRound> rounds(2, QuietRound());
  rounds[1].inside.events.clear();
  rounds[1].outer.events.clear();
  rounds[0].inside.events.clear();
  rounds[0].outer.events.clear();
  std::string why;
  const auto cost = CombineCalibrationRounds(rounds, &why);
  ASSERT_TRUE(cost.has_value()) << why;
  EXPECT_TRUE(cost->inside.empty());
  EXPECT_TRUE(cost->around.empty());
  EXPECT_DOUBLE_EQ(cost->around_wall_ns, 1940);
}

}  // namespace
}  // namespace td

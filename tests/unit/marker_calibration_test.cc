// CombineCalibrationRounds (runtime/driver/marker_calibration.h): td's own
// cost per marker pair from rounds that a preemption may have hit.
#include "runtime/driver/marker_calibration.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace td {
namespace {

// Inside 30 ns, a pair 1,970 ns (so around 1,940 ns); task-clock 900 / 1,800.
CalibrationRound QuietRound() { return CalibrationRound{200, PerCall{30, {0, 900}}, PerCall{1970, {0, 1800}}}; }

TEST(MarkerCalibration, PreemptedRoundsAreOutvotedByTheQuietOnes) {
  std::vector<CalibrationRound> rounds(7, QuietRound());
  // 10 ms lost in round 2's empty pairs (+50 µs per call to inside and to
  // the pair alike), in round 4's split work (pair too large) and in round
  // 5's work alone (pair below 0).
  rounds[2].inside.wall_ns += 50'000;
  rounds[2].pair.wall_ns += 50'000;
  rounds[2].inside.events[1] += 50'000;
  rounds[2].pair.events[1] += 50'000;
  rounds[4].pair.wall_ns += 50'000;
  rounds[4].pair.events[1] += 50'000;
  rounds[5].pair.wall_ns -= 50'000;
  rounds[5].pair.events[1] -= 50'000;
  std::string why;
  const auto cost = CombineCalibrationRounds(rounds, &why);
  ASSERT_TRUE(cost.has_value()) << why;
  EXPECT_DOUBLE_EQ(cost->inside_wall_ns, 30);
  EXPECT_DOUBLE_EQ(cost->around_wall_ns, 1940);
  ASSERT_EQ(cost->inside.size(), 2u);
  EXPECT_DOUBLE_EQ(cost->inside[1], 900);
  EXPECT_DOUBLE_EQ(cost->around[1], 900);
  EXPECT_EQ(cost->pairs, 1400u);
}

TEST(MarkerCalibration, TheMedianOfAnEvenCountIsTheLowerMiddle) {
  std::vector<CalibrationRound> rounds(4, QuietRound());
  for (int r = 0; r < 4; ++r) rounds[static_cast<size_t>(r)].pair.wall_ns = 1000 + 100 * r;  // 1,000 .. 1,300
  std::string why;
  const auto cost = CombineCalibrationRounds(rounds, &why);
  ASSERT_TRUE(cost.has_value()) << why;
  EXPECT_DOUBLE_EQ(cost->around_wall_ns, 1100 - 30);
}

TEST(MarkerCalibration, APairBelowItsInsideLeavesNoAroundBelowZero) {
  std::vector<CalibrationRound> rounds(3, QuietRound());
  for (CalibrationRound& round : rounds) {
    round.pair.wall_ns = 10;
    round.pair.events[1] = -400;
  }
  std::string why;
  const auto cost = CombineCalibrationRounds(rounds, &why);
  ASSERT_TRUE(cost.has_value()) << why;
  EXPECT_DOUBLE_EQ(cost->around_wall_ns, 0);
  EXPECT_DOUBLE_EQ(cost->around[1], 0);
  EXPECT_DOUBLE_EQ(cost->inside[1], 900);
}

TEST(MarkerCalibration, EveryRoundSlowIsRefusedWithOneLine) {
  std::vector<CalibrationRound> rounds(5, QuietRound());
  for (CalibrationRound& round : rounds) round.pair.wall_ns = 72'000;
  rounds[0].pair.wall_ns = 2'000;  // one quiet round does not carry the vote
  std::string why;
  EXPECT_FALSE(CombineCalibrationRounds(rounds, &why).has_value());
  EXPECT_NE(why.find("72.0 µs (median of 5 rounds)"), std::string::npos) << why;
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
  rounds[1].pair.events.clear();
  rounds[0].inside.events.clear();
  rounds[0].pair.events.clear();
  std::string why;
  const auto cost = CombineCalibrationRounds(rounds, &why);
  ASSERT_TRUE(cost.has_value()) << why;
  EXPECT_TRUE(cost->inside.empty());
  EXPECT_TRUE(cost->around.empty());
  EXPECT_DOUBLE_EQ(cost->around_wall_ns, 1940);
}

}  // namespace
}  // namespace td

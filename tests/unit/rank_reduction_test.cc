// One rank's part of the MPI job reduction (RankReduction): tables merged up
// the tree, what the reduction cost counted on the way, and a subtree that
// lost a part never written from.
#include "runtime/job/rank_reduction.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

RunData RankRun(int rank, int size) {
  RunData run = sample_runs::NoPmuRun();
  run.mpi = MpiRank{rank, size, "job-7", "node" + std::to_string(rank), "Open MPI"};
  return run;
}

// Rank `rank`'s table as the bytes it sends its parent.
std::string SentBy(int rank, int size) {
  RankReduction reduction(rank, size, 0);
  EXPECT_TRUE(reduction.Start(RankRun(rank, size), nullptr, true).ok());
  absl::StatusOr<std::string> bytes = reduction.TakeForParent();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(reduction.table().view.present.empty()) << "handed on, no longer held";
  return bytes.ok() ? *bytes : std::string();
}

TEST(RankReduction, MergesChildrenAndCountsWhatTheyCost) {
  const std::string from_1 = SentBy(1, 3);
  const std::string from_2 = SentBy(2, 3);
  RankReduction root(0, 3, 1'000'000'000);
  ASSERT_TRUE(root.Start(RankRun(0, 3), nullptr, true).ok());
  ASSERT_TRUE(root.AddChild(from_2.data(), from_2.size()).ok());
  ASSERT_TRUE(root.AddChild(from_1.data(), from_1.size()).ok());
  const JobTable& job = root.Settle(3'500'000'000);
  EXPECT_FALSE(root.failed());
  EXPECT_EQ(job.view.present, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(job.reduction.messages, 2u);
  EXPECT_EQ(job.reduction.bytes, from_1.size() + from_2.size());
  EXPECT_EQ(job.reduction.largest, std::max(from_1.size(), from_2.size()));
  EXPECT_EQ(job.reduction.root_bytes, from_1.size() + from_2.size());
  EXPECT_EQ(job.reduction.levels, 2) << "ceil(log2 3)";
  EXPECT_DOUBLE_EQ(job.reduction.root_seconds, 2.5);
  ASSERT_FALSE(job.view.regions.empty());
  EXPECT_EQ(job.view.regions[0].ranks.size(), 3u) << "a row per rank (per_rank)";
}

TEST(RankReduction, AnInnerRankCountsNoRootBytes) {
  const std::string from_3 = SentBy(3, 4);
  RankReduction inner(2, 4, 0);
  ASSERT_TRUE(inner.Start(RankRun(2, 4), nullptr, true).ok());
  ASSERT_TRUE(inner.AddChild(from_3.data(), from_3.size()).ok());
  EXPECT_EQ(inner.table().reduction.messages, 1u);
  EXPECT_EQ(inner.table().reduction.root_bytes, 0u);
  EXPECT_EQ(inner.table().view.present, (std::vector<int64_t>{2, 3}));
}

TEST(RankReduction, AChildThatSentNothingFailsTheSubtree) {
  RankReduction reduction(0, 2, 0);
  ASSERT_TRUE(reduction.Start(RankRun(0, 2), nullptr, true).ok());
  EXPECT_TRUE(reduction.AddChild(nullptr, 0).ok()) << "the child said why itself";
  EXPECT_TRUE(reduction.failed());
  EXPECT_EQ(reduction.table().reduction.messages, 1u);
  const absl::StatusOr<std::string> bytes = reduction.TakeForParent();
  EXPECT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(RankReduction, BytesThatAreNoTableAreRefusedAndFailTheSubtree) {
  RankReduction reduction(4, 8, 0);
  ASSERT_TRUE(reduction.Start(RankRun(4, 8), nullptr, true).ok());
  const std::string garbage = "{\"td_job\": 1, \"regions\": 3";
  const absl::Status added = reduction.AddChild(garbage.data(), garbage.size());
  EXPECT_FALSE(added.ok());
  EXPECT_NE(added.message().find("the table rank 4 received"), std::string::npos) << added;
  EXPECT_TRUE(reduction.failed());
}

TEST(RankReduction, ARankOfAnotherJobIsRefused) {
  RunData other = RankRun(1, 2);
  other.mpi->job = "job-8";
  RankReduction child(1, 2, 0);
  ASSERT_TRUE(child.Start(other, nullptr, true).ok());
  const std::string bytes = *child.TakeForParent();
  RankReduction root(0, 2, 0);
  ASSERT_TRUE(root.Start(RankRun(0, 2), nullptr, true).ok());
  EXPECT_FALSE(root.AddChild(bytes.data(), bytes.size()).ok());
  EXPECT_TRUE(root.failed());
}

TEST(RankReduction, ARunOutsideAnMpiJobHasNoTable) {
  RankReduction reduction(0, 1, 0);
  EXPECT_FALSE(reduction.Start(sample_runs::NoPmuRun(), nullptr, true).ok());
}

}  // namespace
}  // namespace td

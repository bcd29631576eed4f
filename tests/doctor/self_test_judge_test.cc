// The self-test's judging, on runs built here: a kernel that lands where its
// signature says passes, one that lands elsewhere fails, and what a run did
// not measure is "not judged", never a pass.
#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tools/td/doctor/self_test.h"

namespace td::doctor {
namespace {

constexpr size_t kTaskClock = 0, kInstructions = 1;

// A run of the six kernels: task-clock and instructions, one group each;
// `cpu_share` of each kernel's wall time on a CPU, `instructions` per region.
RunData KernelRuns(double cpu_share, uint64_t instructions, uint64_t running_share_percent = 100) {
  RunData run;
  run.layout.events.resize(2);
  run.layout.events[kTaskClock].name = "task-clock";
  run.layout.events[kInstructions].name = "instructions";
  run.layout.groups = {{0, 0, 1}, {4, 1, 1}};
  for (const Kernel& k : Kernels()) {
    Region region;
    region.name = region.base_name = region.path = k.region;
    for (int t = 0; t < k.threads; ++t) {
      RegionOnThread on;
      on.thread = static_cast<uint32_t>(t);
      on.calls = 1;
      on.wall_inclusive_ns = on.wall_exclusive_ns = 100'000'000;
      on.events = {{static_cast<uint64_t>(cpu_share * 1e8), 0}, {instructions, 0}};
      on.groups = {{100'000'000, 100'000'000}, {100'000'000, running_share_percent * 1'000'000}};
      region.threads.push_back(std::move(on));
    }
    run.regions.push_back(std::move(region));
  }
  return run;
}

TopDownResult Tree(double frontend, double bad, double retiring, double backend) {
  TopDownResult r;
  auto add = [&r](const std::string& name, double value) {
    TreeNode n;
    n.name = name;
    n.level = 1;
    n.value = value;
    r.tree.push_back(n);
  };
  add("Frontend_Bound", frontend);
  add("Bad_Speculation", bad);
  add("Retiring", retiring);
  add("Backend_Bound", backend);
  return r;
}

void AddNode(TopDownResult* r, const std::string& name, double value) {
  TreeNode n;
  n.name = name;
  n.level = 1 + static_cast<int>(std::count(name.begin(), name.end(), '.'));
  n.value = value;
  r->tree.push_back(n);
}

// Each kernel where its signature says it lands.
RunAnalysis AsExpected() {
  RunAnalysis a;
  TopDownResult chase = Tree(0.05, 0.02, 0.08, 0.85);
  AddNode(&chase, "Backend_Bound.Memory_Bound", 0.8);
  AddNode(&chase, "Backend_Bound.Core_Bound", 0.05);
  AddNode(&chase, "Backend_Bound.Memory_Bound.L1_Bound", 0.05);
  AddNode(&chase, "Backend_Bound.Memory_Bound.DRAM_Bound", 0.7);
  TopDownResult branch = Tree(0.1, 0.45, 0.3, 0.15);
  AddNode(&branch, "Bad_Speculation.Branch_Mispredicts", 0.44);
  TopDownResult code = Tree(0.4, 0.05, 0.35, 0.2);
  TopDownResult fma = Tree(0.05, 0.0, 0.8, 0.15);
  TopDownResult sharing = Tree(0.05, 0.0, 0.1, 0.85);
  AddNode(&sharing, "Backend_Bound.Memory_Bound.Store_Bound", 0.6);
  sharing.diagnoses.push_back({"false_sharing", "likely false sharing", "", ""});
  TopDownResult stream = Tree(0.05, 0.0, 0.2, 0.75);
  AddNode(&stream, "Backend_Bound.Memory_Bound", 0.6);
  AddNode(&stream, "Backend_Bound.Core_Bound", 0.15);
  a.regions = {chase, branch, code, fma, sharing, stream};
  return a;
}

int Count(const std::vector<SelfTestCheck>& checks, Outcome outcome) {
  int n = 0;
  for (const auto& c : checks) n += c.outcome == outcome;
  return n;
}

TEST(SelfTestJudge, SoftwarePassesWhenEveryKernelRanOncePerThread) {
  const auto checks = JudgeSoftware(KernelRuns(0.98, 0));
  ASSERT_EQ(checks.size(), 6u);
  EXPECT_EQ(Count(checks, Outcome::kPass), 6);
  EXPECT_EQ(checks[4].name, "false_sharing");
  EXPECT_NE(checks[4].measured.find("2 threads, 2 calls"), std::string::npos);
}

TEST(SelfTestJudge, SoftwareFailsAMissingRegionAndImpossibleTaskClock) {
  RunData run = KernelRuns(0.98, 0);
  run.regions.erase(run.regions.begin());  // pointer_chase never recorded
  run.regions[0].threads[0].events[kTaskClock].inclusive = 300'000'000;  // 3 × its wall time
  const auto checks = JudgeSoftware(run);
  EXPECT_EQ(checks[0].outcome, Outcome::kFail);
  EXPECT_EQ(checks[0].measured, "region not recorded");
  EXPECT_EQ(checks[1].outcome, Outcome::kFail);
  EXPECT_EQ(Count(checks, Outcome::kPass), 4);
}

TEST(SelfTestJudge, SignaturesPassWhereEachKernelLandsWhereExpected) {
  const auto checks = JudgeSignatures(KernelRuns(1, 0), AsExpected());
  ASSERT_EQ(checks.size(), 6u);
  for (const auto& c : checks) EXPECT_EQ(c.outcome, Outcome::kPass) << c.name << ": " << c.measured;
}

TEST(SelfTestJudge, SignaturesFailWhereAKernelLandsElsewhere) {
  RunAnalysis a = AsExpected();
  a.regions[0].tree[3].value = 0.2;  // pointer chase: Backend no longer largest
  a.regions[0].tree[2].value = 0.6;
  a.regions[1].tree[1].value = 0.05;  // random branch: hardly any bad speculation
  a.regions[3].tree[2].value = 0.1;   // dense FMA: Retiring not largest
  a.regions[4].diagnoses.clear();     // false sharing not flagged, though Store_Bound measured
  const auto checks = JudgeSignatures(KernelRuns(1, 0), a);
  EXPECT_EQ(checks[0].outcome, Outcome::kFail);
  EXPECT_EQ(checks[1].outcome, Outcome::kFail);
  EXPECT_EQ(checks[2].outcome, Outcome::kPass);
  EXPECT_EQ(checks[3].outcome, Outcome::kFail);
  EXPECT_EQ(checks[4].outcome, Outcome::kFail);
  EXPECT_NE(checks[0].measured.find("Backend_Bound 20.0%"), std::string::npos);
}

TEST(SelfTestJudge, DramMustLeadTheMemoryLevelsOfThePointerChase) {
  RunAnalysis a = AsExpected();
  AddNode(&a.regions[0], "Backend_Bound.Memory_Bound.L3_Bound", 0.75);
  EXPECT_EQ(JudgeSignatures(KernelRuns(1, 0), a)[0].outcome, Outcome::kFail);
}

TEST(SelfTestJudge, WhatATreeCannotShowIsNotJudged) {
  RunAnalysis a = AsExpected();
  a.regions[4] = Tree(0.05, 0.0, 0.1, 0.85);  // no sharing nodes in this key's tree
  a.regions[5] = TopDownResult{};             // nothing measured
  const auto checks = JudgeSignatures(KernelRuns(1, 0), a);
  EXPECT_EQ(checks[4].outcome, Outcome::kNotJudged);
  EXPECT_EQ(checks[5].outcome, Outcome::kNotJudged);
}

TEST(SelfTestJudge, ReadPathsAgreeWithinOnePercent) {
  const auto same = JudgeReadPaths(KernelRuns(1, 1'000'000), KernelRuns(1, 1'005'000));
  EXPECT_EQ(Count(same, Outcome::kPass), 6);
  const auto apart = JudgeReadPaths(KernelRuns(1, 1'000'000), KernelRuns(1, 1'020'000));
  EXPECT_EQ(Count(apart, Outcome::kFail), 6);
  EXPECT_NE(apart[0].measured.find("1.961% apart"), std::string::npos);
  RunData unmeasured = KernelRuns(1, 1'000'000);
  unmeasured.layout.events[kInstructions].name = "cycles";
  EXPECT_EQ(Count(JudgeReadPaths(unmeasured, unmeasured), Outcome::kNotJudged), 6);
}

TEST(SelfTestJudge, MultiplexingAllowsMoreWhereLessWasCounted) {
  RunAnalysis by_pass = AsExpected(), multiplexed = AsExpected();
  multiplexed.regions[3].tree[2].value = 0.68;  // dense FMA's Retiring 12 points lower
  // Fully counted: 5 points allowed, so 12 apart fails.
  auto full = JudgeMultiplexing(KernelRuns(1, 0, 100), multiplexed, KernelRuns(1, 0), by_pass);
  EXPECT_EQ(full[3].outcome, Outcome::kFail);
  EXPECT_EQ(Count(full, Outcome::kPass), 5);
  // Counted a quarter of the time: 5 + 37.5 points allowed.
  auto quarter = JudgeMultiplexing(KernelRuns(1, 0, 25), multiplexed, KernelRuns(1, 0), by_pass);
  EXPECT_EQ(quarter[3].outcome, Outcome::kPass);
  EXPECT_NE(quarter[3].measured.find("coverage 25%, allowed 42.5 points"), std::string::npos);
}

}  // namespace
}  // namespace td::doctor

// Every sample runs with small sizes, its variants agree on their results,
// and its regions reach the JSON. Where the recording holds hardware counts
// (a machine with a PMU), the expected Top-Down classification is checked
// too; elsewhere those checks are skipped with the reason.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/counters/availability.h"
#include "runtime/recorded/run_file.h"
#include "tests/scenarios/run_scenario.h"
#include "tests/support/build_paths.h"

namespace td::testing {
namespace {

struct Sample {
  const char* program;
  const char* args;
  const char* agreement;  // the line that says the variants agree
  std::vector<std::string> regions;
};

ScenarioRun RunSample(const Sample& s) {
  return RunScenario(std::string(TD_SAMPLES_DIR) + "/" + s.program, s.args, {"TD_OUTPUT=none"});
}

void ExpectRuns(const Sample& s) {
  const ScenarioRun run = RunSample(s);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find(s.agreement), std::string::npos) << run.out;
  ASSERT_EQ(run.reports.size(), 1u) << run.err;
  for (const std::string& region : s.regions) {
    const nlohmann::json* r = FindRegion(run.reports[0], region);
    ASSERT_NE(r, nullptr) << "no region " << region;
    EXPECT_GE(SumOverThreads(*r, "calls"), 1) << region;
    EXPECT_GT(SumOverThreads(*r, "wall_inclusive_ns"), 0) << region;
  }
}

// The tree of one region of a sample run, when hardware counts were recorded.
std::optional<TopDownResult> Tree(const ScenarioRun& run, const std::string& path, std::string* why) {
  auto data = RunFromJson(run.reports.at(0));
  auto library = DefinitionLibrary::Load();
  if (!data.ok() || !library.ok()) {
    *why = "cannot read the run";
    return std::nullopt;
  }
  const RunAnalysis analysis = AnalyzeRun(*data, *library, "");
  if (!analysis.HasTrees()) {
    *why = "skipped: " + analysis.unavailable;
    return std::nullopt;
  }
  for (size_t i = 0; i < data->regions.size(); ++i) {
    if (data->regions[i].path == path) return analysis.regions[i];
  }
  *why = "no region " + path;
  return std::nullopt;
}

std::string CriticalLevelOne(const TopDownResult& r) {
  for (const auto& n : r.tree) {
    if (n.critical && n.level == 1) return n.name;
  }
  return "";
}

const Sample kMatmul = {"td_matmul", "96", "results agree: yes",
                        {"matmul", "matmul/init", "matmul/multiply1", "matmul/multiply2", "matmul/multiply3"}};
const Sample kFalseSharing = {"td_false_sharing", "2 2", "counts correct: yes",
                              {"single_thread", "adjacent_counters", "padded_counters"}};
const Sample kPrefetch = {"td_prefetch", "16 16", "sums agree: yes", {"no_prefetch", "software_prefetch"}};
const Sample kTriad = {"td_triad", "16 2", "result correct: yes", {"init", "triad"}};
const Sample kBranches = {"td_branches", "1 2", "sums agree: yes", {"unsorted", "sorted"}};
const Sample kAliasing = {"td_aliasing4k", "8 200", "copies correct: yes",
                          {"copy[0]", "copy[1]", "copy[8]"}};
const Sample kFrontend = {"td_frontend", "5", "checksums:", {"many_functions", "one_function"}};

TEST(Samples, Matmul) { ExpectRuns(kMatmul); }
TEST(Samples, FalseSharing) { ExpectRuns(kFalseSharing); }
TEST(Samples, Prefetch) { ExpectRuns(kPrefetch); }
TEST(Samples, Triad) { ExpectRuns(kTriad); }
TEST(Samples, Branches) { ExpectRuns(kBranches); }
TEST(Samples, Aliasing4k) { ExpectRuns(kAliasing); }
TEST(Samples, Frontend) { ExpectRuns(kFrontend); }

TEST(Samples, FalseSharingRunsOnEveryThreadItWasAskedFor) {
  const ScenarioRun run = RunScenario(std::string(TD_SAMPLES_DIR) + "/td_false_sharing", "3 1",
                                      {"TD_OUTPUT=none"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json* adjacent = FindRegion(run.reports.at(0), "adjacent_counters");
  ASSERT_NE(adjacent, nullptr);
  EXPECT_EQ(adjacent->at("threads").size(), 3u);
}

TEST(Samples, BadArgumentsAreRefused) {
  for (const char* program : {"td_matmul", "td_false_sharing", "td_triad", "td_branches",
                              "td_prefetch", "td_aliasing4k", "td_frontend"}) {
    const ScenarioRun run = RunScenario(std::string(TD_SAMPLES_DIR) + "/" + program, "-5",
                                        {"TD_OUTPUT=none", "TD_JSON=0"});
    EXPECT_EQ(run.exit_code, 2) << program;
    EXPECT_NE(run.err.find("usage:"), std::string::npos) << program;
  }
}

// Hardware-gated: the classifications the samples exist to show. They need a
// PMU and hardware events in the recording; without a PMU they skip at once.
class SamplesOnHardware : public ::testing::Test {
 protected:
  void SetUp() override {
    const Availability a = DescribeAvailability(ProbeMachine(&RealPerfEventOpen));
    if (!a.hardware_counters) GTEST_SKIP() << "skipped: no hardware PMU: " << a.hardware_reason;
  }
};
TEST_F(SamplesOnHardware, MatmulMovesFromMemoryToCoreBound) {
  const ScenarioRun run = RunScenario(std::string(TD_SAMPLES_DIR) + "/td_matmul", "512",
                                      {"TD_OUTPUT=none"});
  ASSERT_EQ(run.exit_code, 0);
  std::string why;
  auto m1 = Tree(run, "matmul/multiply1", &why);
  if (!m1) GTEST_SKIP() << why;
  auto m2 = Tree(run, "matmul/multiply2", &why);
  ASSERT_TRUE(m2) << why;
  EXPECT_EQ(CriticalLevelOne(*m1), "Backend_Bound");
  const TreeNode* memory1 = m1->Find("Backend_Bound.Memory_Bound");
  const TreeNode* core2 = m2->Find("Backend_Bound.Core_Bound");
  ASSERT_NE(memory1, nullptr);
  ASSERT_NE(core2, nullptr);
  EXPECT_TRUE(memory1->critical) << "multiply1: strided B, Memory bound";
  EXPECT_TRUE(core2->critical) << "multiply2: unit stride, Core bound";
}

TEST_F(SamplesOnHardware, BranchesBadSpeculationOnUnsortedOnly) {
  const ScenarioRun run = RunSample(kBranches);
  std::string why;
  auto unsorted = Tree(run, "unsorted", &why);
  if (!unsorted) GTEST_SKIP() << why;
  auto sorted = Tree(run, "sorted", &why);
  ASSERT_TRUE(sorted) << why;
  EXPECT_TRUE(unsorted->Find("Bad_Speculation")->flagged);
  EXPECT_FALSE(sorted->Find("Bad_Speculation")->flagged);
}

TEST_F(SamplesOnHardware, FalseSharingOnAdjacentCountersOnly) {
  const ScenarioRun run = RunScenario(std::string(TD_SAMPLES_DIR) + "/td_false_sharing", "4 20",
                                      {"TD_OUTPUT=none"});
  std::string why;
  auto adjacent = Tree(run, "adjacent_counters", &why);
  if (!adjacent) GTEST_SKIP() << why;
  auto padded = Tree(run, "padded_counters", &why);
  ASSERT_TRUE(padded) << why;
  auto has = [](const TopDownResult& r) {
    for (const auto& d : r.diagnoses) {
      if (d.id == "false_sharing") return true;
    }
    return false;
  };
  EXPECT_TRUE(has(*adjacent));
  EXPECT_FALSE(has(*padded));
}

TEST_F(SamplesOnHardware, TriadIsBandwidthBound) {
  const ScenarioRun run = RunScenario(std::string(TD_SAMPLES_DIR) + "/td_triad", "256 5",
                                      {"TD_OUTPUT=none"});
  std::string why;
  auto triad = Tree(run, "triad", &why);
  if (!triad) GTEST_SKIP() << why;
  bool flagged = false;
  for (const auto& d : triad->diagnoses) flagged |= d.id == "memory_bandwidth";
  const TreeNode* bw = triad->Find("Backend_Bound.Memory_Bound.DRAM_Bound.MEM_Bandwidth");
  EXPECT_TRUE(flagged || (bw != nullptr && bw->flagged));
}

}  // namespace
}  // namespace td::testing

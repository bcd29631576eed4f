// td compare --fail-if as a CI job runs it: a recording with a planted 2 %
// instruction regression in one region fails the gate and names it; the
// same recording against itself passes; a rule no run can check fails.
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/shell_command.h"
#include "tests/support/build_paths.h"

namespace {

using Ran = td::testing::CommandOutput;

Ran Td(const std::string& args) { return td::testing::RunShellCommand(absl::StrFormat("%s %s 2>&1", TD_CLI, args)); }

class CompareGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("td-gate-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    base_ = std::string(TD_TEST_DATA_DIR) + "/replay_skl_matmul.json";
    std::ifstream in(base_);
    nlohmann::json run = nlohmann::json::parse(in);
    // multiply2 retires 2 % more instructions in the same cycles.
    for (auto& region : run["regions"]) {
      if (region["path"] != "multiply2") continue;
      for (auto& thread : region["threads"]) {
        auto& count = thread["counters"]["INST_RETIRED.ANY"];
        for (const char* part : {"inclusive", "exclusive"}) {
          count[part] = static_cast<uint64_t>(count[part].get<uint64_t>() * 1.02);
        }
      }
    }
    regressed_ = (dir_ / "regressed.json").string();
    std::ofstream(regressed_) << run.dump();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
  std::string base_, regressed_;
};

TEST_F(CompareGate, APlantedTwoPercentRegressionFailsAndNamesTheRegion) {
  const Ran r = Td("compare " + base_ + " " + regressed_ + " --fail-if 'instructions>+1%' --fail-if 'wall>+10%'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("regression: multiply2: instructions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(+2.00%; limit +1%)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("regression: multiply1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("td compare: 1 limit crossed, 0 rules not checked"), std::string::npos) << r.out;
}

TEST_F(CompareGate, AnUnchangedRunPassesAndAWiderLimitToo) {
  Ran r = Td("compare " + base_ + " " + base_ + " --fail-if 'instructions>+1%' '--fail-if=wall>+10%'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("td compare: no --fail-if limit crossed"), std::string::npos) << r.out;
  r = Td("compare " + base_ + " " + regressed_ + " --fail-if 'instructions>+3%' --fail-if 'IPC<-5%'");
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(CompareGate, ARuleNothingMeasuredFailsAndABadRuleIsAMisuse) {
  Ran r = Td("compare " + base_ + " " + base_ + " --fail-if 'page-faults>+1%'");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("not checked: --fail-if 'page-faults>+1%'"), std::string::npos) << r.out;
  r = Td("compare " + base_ + " " + base_ + " --fail-if 'instructions=1'");
  EXPECT_EQ(r.status, 2) << r.out;
  r = Td("compare " + base_ + " --regions multiply1,multiply2 --fail-if 'wall>+1%'");
  EXPECT_EQ(r.status, 2) << r.out;
}

// Two runs without --region: a table for every region both hold (here all
// five of the no-PMU matmul run), in the run's order; --csv keeps one table.
TEST(CompareRuns, EveryRegionBothRunsHoldGetsItsTable) {
  const std::string run = std::string(TD_TEST_DATA_DIR) + "/nopmu_matmul.json";
  const Ran text = Td("compare " + run + " " + run);
  ASSERT_EQ(text.status, 0) << text.out;
  size_t previous = 0;
  for (const char* path : {"matmul of", "matmul/init of", "matmul/multiply1 of", "matmul/multiply2 of",
                           "matmul/multiply3 of"}) {
    const size_t at = text.out.find(std::string("nopmu_matmul.json = region ") + path);
    ASSERT_NE(at, std::string::npos) << path << "\n" << text.out;
    EXPECT_GE(at, previous) << path;
    previous = at;
  }
  const Ran csv = Td("compare " + run + " " + run + " --csv");
  ASSERT_EQ(csv.status, 0) << csv.out;
  EXPECT_NE(csv.out.find("\nregion,matmul,matmul\n"), std::string::npos) << csv.out;
  EXPECT_EQ(csv.out.find("matmul/init"), std::string::npos) << csv.out;
}

}  // namespace

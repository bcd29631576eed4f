// End to end: a real OpenMP program (a team of 4) with regions around its
// parallel regions, and the spread over the team's threads in `td report`'s
// JSON, CSV and HTML (runtime/analysis/thread_spread.h). The machine may have
// fewer CPUs than threads: counts, threads and structure are checked, not times.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/scenarios/run_scenario.h"
#include "tests/support/build_paths.h"

namespace td::testing {
namespace {

namespace fs = std::filesystem;

// The run's JSON file.
std::string RunFile(const ScenarioRun& run) {
  for (const auto& entry : fs::directory_iterator(run.dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("td-", 0) == 0 && name.find(".trace.") == std::string::npos && entry.path().extension() == ".json") {
      return entry.path().string();
    }
  }
  return "";
}

std::string Td(const std::string& args) { return Capture(std::string("'") + TD_CLI + "' " + args + " 2>&1"); }

const nlohmann::json* Entry(const nlohmann::json& analysis, const std::string& path) {
  for (const auto& r : analysis.at("regions")) {
    if (r.at("path") == path) return &r;
  }
  return nullptr;
}

class OpenMPTeam : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new ScenarioRun(RunScenario(TD_SCENARIO_APP, "openmp_outer", {"OMP_NUM_THREADS=4", "OMP_DYNAMIC=false"}));
    file_ = new std::string(RunFile(*run_));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete file_;
  }
  static ScenarioRun* run_;
  static std::string* file_;
};
ScenarioRun* OpenMPTeam::run_ = nullptr;
std::string* OpenMPTeam::file_ = nullptr;

// What td records: the team threads' copies at the top level, the calling
// thread's nested in the region around the parallel region.
TEST_F(OpenMPTeam, RecordsTheCallingThreadsCopyNested) {
  ASSERT_EQ(run_->exit_code, 0) << run_->err;
  ASSERT_EQ(run_->reports.size(), 1u) << run_->err;
  const nlohmann::json& report = run_->reports.front();
  EXPECT_EQ(report.at("threads").size(), 4u);
  const nlohmann::json* step = FindRegion(report, "step");
  const nlohmann::json* nested = FindRegion(report, "solve/step");
  const nlohmann::json* team = FindRegion(report, "team");
  ASSERT_TRUE(step != nullptr && nested != nullptr && team != nullptr) << run_->err;
  EXPECT_EQ(step->at("threads").size(), 3u);
  EXPECT_EQ(nested->at("threads").size(), 1u);
  EXPECT_EQ(SumOverThreads(*step, "calls") + SumOverThreads(*nested, "calls"), 8);
  // The same name around and inside: the calling thread's inner BEGIN is a
  // recursive call of its open region, so "team" holds all 4 threads.
  EXPECT_EQ(team->at("threads").size(), 4u);
  EXPECT_EQ(SumOverThreads(*team, "recursive_calls"), 1);
  EXPECT_EQ(FindRegion(report, "unmarked")->at("threads").size(), 1u);
  // The text report at exit counts the nested copy in the spread of "step".
  EXPECT_NE(run_->err.find("  step                           4 "), std::string::npos) << run_->err;
  EXPECT_NE(run_->err.find("step: with the threads that ran it only nested, in solve/step"), std::string::npos)
      << run_->err;
}

TEST_F(OpenMPTeam, JsonHasTheSpreadOverTheTeamAndTheTeamCpu) {
  ASSERT_FALSE(file_->empty()) << run_->err;
  const nlohmann::json analysis = nlohmann::json::parse(Td("report '" + *file_ + "' --json"), nullptr, false);
  ASSERT_FALSE(analysis.is_discarded());
  const nlohmann::json* step = Entry(analysis, "step");
  ASSERT_NE(step, nullptr);
  const nlohmann::json& spread = step->at("across_threads");
  EXPECT_EQ(spread.at("threads"), 4);
  EXPECT_EQ(spread.at("nested_copies"), nlohmann::json::array({"solve/step"}));
  EXPECT_LE(spread.at("wall_min_ns").get<double>(), spread.at("wall_mean_ns").get<double>());
  EXPECT_LE(spread.at("wall_mean_ns").get<double>(), spread.at("wall_max_ns").get<double>());
  EXPECT_GE(spread.at("imbalance").get<double>(), 1.0);
  const nlohmann::json& team = Entry(analysis, "team")->at("across_threads");
  EXPECT_EQ(team.at("threads"), 4);
  EXPECT_EQ(team.at("outer_copy_threads"), nlohmann::json::array({0})) << "the calling thread: the same name around";
  EXPECT_TRUE(Entry(analysis, "solve/step")->at("across_threads").is_null()) << "one thread";
  // "solve"'s CPU time: its thread's plus the team threads' "step".
  const nlohmann::json& solve = Entry(analysis, "solve")->at("team_cpu");
  ASSERT_TRUE(solve.is_object()) << Entry(analysis, "solve")->dump();
  EXPECT_EQ(solve.at("added_regions"), nlohmann::json::array({"step"}));
  EXPECT_GT(solve.at("task_clock_ns").get<double>(), solve.at("own_task_clock_ns").get<double>());
  EXPECT_TRUE(Entry(analysis, "unmarked")->at("team_cpu").is_null()) << "no team copies to add";
}

TEST_F(OpenMPTeam, CsvAndHtmlHaveTheSpreadOverTheTeam) {
  ASSERT_FALSE(file_->empty()) << run_->err;
  const std::string csv = Td("report '" + *file_ + "' --csv");
  EXPECT_NE(csv.find("\nstep,threads,threads,4,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nstep,threads,nested_copy,solve/step,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nteam,threads,threads,4,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nsolve,time,team_task_clock_ns,"), std::string::npos) << csv;
  const std::string html_path = run_->dir + "/team.html";
  Td("report '" + *file_ + "' --html='" + html_path + "'");
  const std::string html = ReadFile(html_path);
  const size_t row = html.find("<tr data-region=\"step\">");
  ASSERT_NE(row, std::string::npos) << html.size();
  const std::string cells = html.substr(row, html.find("</tr>", row) - row);
  EXPECT_NE(cells.find("<td data-key=\"threads\" data-value=\"4\">4</td>"), std::string::npos) << cells;
  EXPECT_NE(cells.find("<td>solve/step</td>"), std::string::npos) << cells;
}

}  // namespace
}  // namespace td::testing

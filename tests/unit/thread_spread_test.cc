// The spread over a region's threads and the team CPU on runs built by hand
// (runtime/analysis/thread_spread.h), and how the reports and the job view
// carry them.
#include "runtime/analysis/thread_spread.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/job/job_file.h"
#include "runtime/job/job_view.h"
#include "runtime/report/analysis_json.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/html_report.h"
#include "runtime/report/text_report.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

constexpr int64_t kMs = 1'000'000;

RegionOnThread On(const RunData& data, uint32_t thread, int64_t wall_ms) {
  RegionOnThread t;
  t.thread = thread;
  t.calls = 1;
  t.wall_inclusive_ns = wall_ms * kMs;
  t.wall_exclusive_ns = wall_ms * kMs;
  t.events.resize(data.layout.events.size());
  t.events[*data.EventIndex("task-clock")] = {static_cast<uint64_t>(wall_ms * kMs), 0};
  return t;
}

// The outer-region pattern, a team of 4: thread 0 opens "solve" (10 ms) and
// runs the team's "step" inside it (4 ms); threads 1-3 (OpenMP 1-3) run
// "step" at their top level: 2, 3 and 5 ms.
RunData OuterPattern() {
  RunData data = sample_runs::TwoThreadRun();
  data.threads.clear();
  for (uint32_t t = 0; t < 4; ++t) data.threads.push_back({t, 100 + t, false, true, "", t == 0 ? -1 : static_cast<int>(t)});
  Region solve = Region{"solve", "solve", -1, {}, {}};
  solve.children = {1};
  solve.threads = {On(data, 0, 10)};
  Region nested = Region{"step", "solve/step", 0, {}, {}};
  nested.threads = {On(data, 0, 4)};
  Region step = Region{"step", "step", -1, {}, {}};
  step.threads = {On(data, 1, 2), On(data, 2, 3), On(data, 3, 5)};
  data.regions = {solve, nested, step};
  return data;
}

// A file's parts out of thread order, a thread twice (td writes neither):
// the spread is over each thread once, its parts summed, the slowest found
// in thread order as before.
TEST(OpenMPSpread, PartsOutOfThreadOrderAndRepeatedAreSummedPerThread) {
  RunData data = OuterPattern();
  data.regions[2].threads = {On(data, 3, 5), On(data, 1, 2), On(data, 3, 1), On(data, 2, 6)};
  const ThreadSpread step = TeamSpreads(data)[2];
  EXPECT_EQ(step.threads, 4u);  // threads 1, 2 and 3, and 0 from its nested copy
  EXPECT_EQ(step.min, 2 * kMs);
  EXPECT_EQ(step.max, 6 * kMs);  // thread 2's 6 ms and thread 3's 5 + 1 ms: the first in thread order
  EXPECT_EQ(step.slowest, 2u);
  EXPECT_DOUBLE_EQ(step.mean, 4.5 * kMs);  // (4 + 2 + 6 + 6) / 4
}

TEST(OpenMPSpread, CountsTheCallingThreadsNestedCopy) {
  const RunData data = OuterPattern();
  const std::vector<ThreadSpread> spreads = TeamSpreads(data);
  const ThreadSpread& step = spreads[2];
  EXPECT_EQ(step.threads, 4u);
  EXPECT_EQ(step.min, 2 * kMs);
  EXPECT_EQ(step.max, 5 * kMs);
  EXPECT_DOUBLE_EQ(step.mean, 3.5 * kMs);  // (4 + 2 + 3 + 5) / 4
  EXPECT_EQ(step.slowest, 3u);
  EXPECT_EQ(step.slowest_openmp, 3);
  EXPECT_NEAR(step.Imbalance(), 5.0 / 3.5, 1e-12);
  EXPECT_EQ(step.copies, std::vector<size_t>{1});
  EXPECT_EQ(spreads[1].threads, 1u) << "the nested copy keeps its own thread";
  EXPECT_TRUE(spreads[1].copies.empty());
  EXPECT_EQ(spreads[0].threads, 1u);
  // Its own threads only: 3 of the 4.
  EXPECT_EQ(WallAcrossThreads(data.regions[2]).threads, 3u);
}

TEST(OpenMPSpread, TeamCpuAddsTheTeamThreadsThatRanInside) {
  const RunData data = OuterPattern();
  const std::vector<TeamCpu> cpu = TeamTaskClock(data, TeamSpreads(data));
  EXPECT_EQ(*cpu[0].own_ns, 10.0 * kMs);
  EXPECT_EQ(*cpu[0].team_ns, 20.0 * kMs);  // its thread's 10 + the team's "step" 2 + 3 + 5
  EXPECT_EQ(cpu[0].team_paths, std::vector<std::string>{"step"});
  EXPECT_EQ(*cpu[1].team_ns, 14.0 * kMs);  // the calling thread's step and the team's
  EXPECT_EQ(*cpu[2].own_ns, 10.0 * kMs);
  EXPECT_EQ(*cpu[2].team_ns, 14.0 * kMs);
  EXPECT_EQ(cpu[2].team_paths, std::vector<std::string>{"solve/step"});
}

// Nested copies in two regions: the spread sums them; which region the team
// threads' time belongs to cannot be told, so none but the region itself gains it.
TEST(OpenMPSpread, CopiesInSeveralRegionsAreSummedButNotAttributed) {
  RunData data = OuterPattern();
  Region other = Region{"init", "init", -1, {}, {}};
  other.children = {4};
  other.threads = {On(data, 0, 3)};
  Region copy = Region{"step", "init/step", 3, {}, {}};
  copy.threads = {On(data, 0, 1)};
  data.regions.push_back(other);
  data.regions.push_back(copy);
  const std::vector<ThreadSpread> spreads = TeamSpreads(data);
  EXPECT_EQ(spreads[2].threads, 4u);
  EXPECT_EQ(spreads[2].copies, (std::vector<size_t>{1, 4}));
  EXPECT_DOUBLE_EQ(spreads[2].mean, 3.75 * kMs);  // thread 0: 4 + 1 ms
  const std::vector<TeamCpu> cpu = TeamTaskClock(data, spreads);
  EXPECT_TRUE(cpu[0].team_paths.empty());
  EXPECT_EQ(*cpu[0].team_ns, 10.0 * kMs);
  EXPECT_TRUE(cpu[3].team_paths.empty());
  EXPECT_EQ(*cpu[2].team_ns, 15.0 * kMs);
}

// A thread that also ran the region at its top level is counted with that
// copy only: its nested copy is not the team's.
TEST(OpenMPSpread, AThreadAtTheTopLevelKeepsItsOwnCopy) {
  RunData data = OuterPattern();
  data.regions[2].threads.push_back(On(data, 0, 7));
  const std::vector<ThreadSpread> spreads = TeamSpreads(data);
  EXPECT_EQ(spreads[2].threads, 4u);
  EXPECT_TRUE(spreads[2].copies.empty());
  EXPECT_EQ(spreads[2].max, 7 * kMs);
  EXPECT_TRUE(TeamTaskClock(data, spreads)[0].team_paths.empty());
}

// The same name around and inside the parallel region: the calling thread's
// inner BEGIN is a recursive call of its open copy, whose time is the outer
// one; the spread says which threads count that way. A recursion on every
// thread is no team's.
TEST(OpenMPSpread, SameNameAroundTheTeamIsNamed) {
  RunData data = OuterPattern();
  data.regions[2].threads.insert(data.regions[2].threads.begin(), On(data, 0, 12));
  data.regions[2].threads[0].calls = 2;
  data.regions[2].threads[0].recursive_calls = 1;
  std::vector<ThreadSpread> spreads = TeamSpreads(data);
  EXPECT_EQ(spreads[2].threads, 4u);
  EXPECT_EQ(spreads[2].outer_copies, std::vector<uint32_t>{0});
  EXPECT_EQ(spreads[2].max, 12 * kMs);
  EXPECT_NE(FormatTextReport(data).find("step: thread 0 also opened it around the team's (a recursive call): its time "
                                        "is the outer"),
            std::string::npos)
      << FormatTextReport(data);
  for (RegionOnThread& t : data.regions[2].threads) t.recursive_calls = 1;
  EXPECT_TRUE(TeamSpreads(data)[2].outer_copies.empty());
}

TEST(OpenMPSpread, EveryOutputCarriesIt) {
  const RunData data = OuterPattern();
  const std::string text = FormatTextReport(data);
  EXPECT_NE(text.find("  step                           4    2.00 ms    3.50 ms    5.00 ms      1.43  thread 3 (OpenMP 3)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("step: with the threads that ran it only nested, in solve/step"), std::string::npos) << text;
  EXPECT_NE(text.find("  solve                      20.00 ms (its own threads 10.00 ms; + step)"), std::string::npos)
      << text;

  const nlohmann::json json = RunAnalysisToJson(data, RunAnalysis{});
  const nlohmann::json& step = json.at("regions")[2];
  EXPECT_EQ(step.at("across_threads").at("threads"), 4);
  EXPECT_EQ(step.at("across_threads").at("slowest_thread"), 3);
  EXPECT_EQ(step.at("across_threads").at("slowest_openmp_thread"), 3);
  EXPECT_EQ(step.at("across_threads").at("nested_copies"), nlohmann::json::array({"solve/step"}));
  EXPECT_EQ(step.at("across_threads").at("wall_mean_ns"), 3.5 * kMs);
  EXPECT_TRUE(json.at("regions")[0].at("across_threads").is_null());
  EXPECT_EQ(json.at("regions")[0].at("team_cpu").at("task_clock_ns"), 20 * kMs);
  EXPECT_EQ(json.at("regions")[0].at("team_cpu").at("own_task_clock_ns"), 10 * kMs);

  const std::string csv = FormatCsvReport(data, nullptr);
  for (const char* row : {"step,threads,threads,4,0,0\n", "step,threads,wall_min_ns,2000000,0,0\n",
                          "step,threads,wall_mean_ns,3500000,0,0\n", "step,threads,imbalance,1.428571429,0,0\n",
                          "step,threads,slowest_thread,3,0,0\n", "step,threads,slowest_openmp_thread,3,0,0\n",
                          "step,threads,nested_copy,solve/step,0,0\n", "solve,time,team_task_clock_ns,20000000,0,0\n"}) {
    EXPECT_NE(csv.find(row), std::string::npos) << row << csv;
  }
}

// The job view: each rank's row carries its own threads and thread imbalance,
// and a job table keeps them through the text the ranks send each other.
TEST(OpenMPSpread, JobViewRowsPerRank) {
  RunData rank0 = OuterPattern();
  rank0.mpi = MpiRank{0, 2, "job", "host", "Open MPI"};
  RunData rank1 = OuterPattern();
  rank1.mpi = MpiRank{1, 2, "job", "host", "Open MPI"};
  rank1.regions[2].threads[2].wall_inclusive_ns = 3 * kMs;  // even: 4, 2, 3, 3 ms
  const absl::StatusOr<JobView> view = BuildJobView({rank0, rank1}, {"r0", "r1"}, {});
  ASSERT_TRUE(view.ok()) << view.status();
  const RegionAcrossRanks* step = nullptr;
  for (const RegionAcrossRanks& r : view->regions) {
    if (r.path == "step") step = &r;
  }
  ASSERT_NE(step, nullptr);
  ASSERT_EQ(step->ranks.size(), 2u);
  EXPECT_EQ(step->ranks[0].threads, 4u);
  EXPECT_NEAR(*step->ranks[0].thread_imbalance, 5.0 / 3.5, 1e-12);
  EXPECT_NEAR(*step->ranks[1].thread_imbalance, 4.0 / 3.0, 1e-12);
  const std::string csv = FormatJobCsv(*view);
  EXPECT_NE(csv.find(",threads,thread_imbalance\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",4,1.4286\nstep,1,"), std::string::npos) << csv;
  EXPECT_NE(FormatJobText(*view).find("step                             rank 0: 4 × 1.43, rank 1: 4 × 1.33"),
            std::string::npos)
      << FormatJobText(*view);
  EXPECT_NE(FormatJobHtml(*view).find("data-threads=\"4\" data-thread-imbalance=\"1.3333\" title=\"4 threads, thread "
                                      "imbalance 1.33\""),
            std::string::npos);
  const nlohmann::json json = JobViewToJson(*view);
  bool found = false;
  for (const auto& r : json.at("regions")) {
    if (r.at("path") != "step") continue;
    found = true;
    EXPECT_EQ(r.at("ranks")[0].at("threads"), 4);
    EXPECT_NEAR(r.at("ranks")[1].at("thread_imbalance").get<double>(), 4.0 / 3.0, 1e-12);
  }
  EXPECT_TRUE(found);
  const absl::StatusOr<JobTable> sent = ParseJobTable(JobTableText(TableOfView(*view), -1), "test");
  ASSERT_TRUE(sent.ok()) << sent.status();
  for (const RegionAcrossRanks& r : sent->view.regions) {
    if (r.path != "step") continue;
    ASSERT_EQ(r.ranks.size(), 2u);
    EXPECT_EQ(r.ranks[1].threads, 4u);
    EXPECT_NEAR(*r.ranks[1].thread_imbalance, 4.0 / 3.0, 1e-12);
  }
}

}  // namespace
}  // namespace td

// Two jobs side by side (job_compare.h): regions matched by path, a region
// only one job ran marked instead of given a speedup; the POP scalability
// between them (computation scalability = Σ useful time of the job with
// fewer ranks / Σ useful time of the other; global efficiency = parallel
// efficiency × computation scalability), its split by instructions and IPC
// and its weak-scaling form, from hand-made rows and from the two job files
// of tests/data (a real 2-rank and 4-rank job of tests/mpi/mpi_phases.c
// scaling).
#include "runtime/job/job_compare.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/job/job_file.h"
#include "tests/support/build_paths.h"

namespace td {
namespace {

RegionAcrossRanks RankedRegion(const std::string& path, int ranks, double mean_ns, double max_ns) {
  RegionAcrossRanks r;
  r.path = path;
  r.depth = static_cast<int>(std::count(path.begin(), path.end(), '/'));
  for (int k = 0; k < ranks; ++k) {
    r.ranks.push_back({k, 1, static_cast<int64_t>(mean_ns), std::nullopt, std::nullopt, std::nullopt});
  }
  r.wall_ns.mean = mean_ns;
  r.wall_ns.max = max_ns;
  r.wall_ns.ranks = static_cast<size_t>(ranks);
  r.imbalance = max_ns / mean_ns;
  r.slowest_rank = ranks - 1;
  return r;
}

TEST(JobComparison, MatchesRegionsByPathAndMarksOneSidedOnes) {
  JobView a;
  a.program = "solver";
  a.job = "a";
  a.present = {0, 1, 2, 3};
  a.regions = {RankedRegion("main", 4, 4e9, 4.4e9), RankedRegion("main/solve", 4, 3e9, 3.6e9), RankedRegion("main/old_io", 4, 1e8, 1e8)};
  JobView b = a;
  b.job = "b";
  b.present = {0, 1, 2, 3, 4, 5, 6, 7};
  b.regions = {RankedRegion("main", 8, 2e9, 2.2e9), RankedRegion("main/solve", 8, 1e9, 1.5e9), RankedRegion("main/new_io", 8, 5e7, 6e7)};
  // No MPI times: no scalability, its columns empty.
  EXPECT_EQ(FormatJobComparisonCsv(a, b),
            "path,a_ranks,a_wall_mean_ns,a_wall_max_ns,a_imbalance,a_slowest_rank,"
            "b_ranks,b_wall_mean_ns,b_wall_max_ns,b_imbalance,b_slowest_rank,speedup,reference,"
            "a_useful_ns,b_useful_ns,a_parallel_efficiency,b_parallel_efficiency,computation_scalability,"
            "a_global_efficiency,b_global_efficiency,scaling,instruction_scalability,ipc_scalability,"
            "frequency_scalability,a_ipc,b_ipc\n"
            "main,4,4000000000,4400000000,1.1000,3,8,2000000000,2200000000,1.1000,7,2.0000,a,,,,,,,,strong,,,,,\n"
            "main/solve,4,3000000000,3600000000,1.2000,3,8,1000000000,1500000000,1.5000,7,3.0000,a,,,,,,,,strong,,,,,\n"
            "main/old_io,4,100000000,100000000,1.0000,3,,,,,,,a,,,,,,,,strong,,,,,\n"
            "main/new_io,,,,,,8,50000000,60000000,1.2000,7,,a,,,,,,,,strong,,,,,\n");
  const std::string text = FormatJobComparisonText(a, b);
  EXPECT_NE(text.find("A: solver, job a, 4 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("B: solver, job b, 8 ranks"), std::string::npos) << text;
  EXPECT_NE(text.find("3.00x"), std::string::npos) << text;
  EXPECT_NE(text.find("A only"), std::string::npos) << text;
  EXPECT_NE(text.find("B only"), std::string::npos) << text;
  EXPECT_EQ(text.find("scalability"), std::string::npos) << text;
  EXPECT_EQ(text.find("different programs"), std::string::npos);
  const nlohmann::json json = JobComparisonJson(a, b);
  EXPECT_EQ(json.at("reference"), "a");
  EXPECT_TRUE(json.at("scalability").is_null());
  EXPECT_TRUE(json.at("regions").at(2).at("b").is_null()) << "old_io: A only";
  EXPECT_DOUBLE_EQ(json.at("regions").at(1).at("speedup").get<double>(), 3.0);
  b.program = "other";
  EXPECT_NE(FormatJobComparisonText(a, b).find("different programs"), std::string::npos);
}

// One rank's "solve": its wall time and MPI time in it.
RankSummary Rank(int64_t rank, int64_t size, const std::string& job, int64_t wall_ns, int64_t mpi_ns) {
  RankSummary r;
  r.file = absl::StrCat(job, "-rank", rank, ".json");
  r.program = "solver";
  r.mpi = MpiRank{rank, size, job, "n0", "Open MPI"};
  r.regions.push_back({"solve", {rank, 3, wall_ns, std::nullopt, MpiTime{mpi_ns, 3, 0}, std::nullopt}, {}});
  return r;
}

JobView View(std::vector<RankSummary> ranks) {
  absl::StatusOr<JobView> view = BuildJobView(std::move(ranks));
  EXPECT_TRUE(view.ok()) << view.status();
  return view.ok() ? *view : JobView{};
}

// 2 ranks: useful 8 and 10 ms (Σ 18; load balance 0.9, communication 1,
// parallel efficiency 0.9); 4 ranks: useful 5, 5, 5, 6 ms (Σ 21; load
// balance 5.25 / 6 = 0.875, parallel efficiency 0.875). Computation
// scalability 18 / 21 = 0.857; the 4-rank job's global efficiency 0.875 ×
// 18 / 21 = 0.75, the 2-rank job's its own parallel efficiency.
TEST(JobComparison, ScalabilityAgainstTheJobWithFewerRanks) {
  const JobView two = View({Rank(0, 2, "two", 10'000'000, 2'000'000), Rank(1, 2, "two", 10'000'000, 0)});
  const JobView four = View({Rank(0, 4, "four", 6'000'000, 1'000'000), Rank(1, 4, "four", 6'000'000, 1'000'000),
                             Rank(2, 4, "four", 6'000'000, 1'000'000), Rank(3, 4, "four", 6'000'000, 0)});
  const std::optional<Scalability> s = ScalabilityOf(two.regions.at(0), four.regions.at(0), true);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->a_ranks, 2u);
  EXPECT_EQ(s->b_ranks, 4u);
  EXPECT_DOUBLE_EQ(s->a_useful_ns, 18e6);
  EXPECT_DOUBLE_EQ(s->b_useful_ns, 21e6);
  EXPECT_DOUBLE_EQ(s->computation_scalability, 18.0 / 21.0);
  EXPECT_DOUBLE_EQ(s->a_global_efficiency, 0.9);
  EXPECT_DOUBLE_EQ(s->b_global_efficiency, 0.75);

  const std::string csv = FormatJobComparisonCsv(two, four);
  EXPECT_NE(csv.find("\nsolve,2,10000000,10000000,1.0000,0,4,6000000,6000000,1.0000,0,1.6667,a,"
                     "18000000,21000000,0.9000,0.8750,0.8571,0.9000,0.7500,strong,,,,,\n"),
            std::string::npos)
      << csv;
  // Given the larger job first, the reference is B: the same scalability.
  const nlohmann::json json = JobComparisonJson(four, two);
  EXPECT_EQ(json.at("reference"), "b");
  EXPECT_EQ(json.at("a").at("ranks"), 4);
  const nlohmann::json& solve = json.at("regions").at(0).at("scalability");
  EXPECT_DOUBLE_EQ(solve.at("computation_scalability").get<double>(), 18.0 / 21.0);
  EXPECT_DOUBLE_EQ(solve.at("a_global_efficiency").get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(solve.at("b_global_efficiency").get<double>(), 0.9);
  const std::string text = FormatJobComparisonText(four, two);
  EXPECT_NE(text.find("reference B (2 ranks)"), std::string::npos) << text;
  EXPECT_NE(text.find("Σ useful of B / Σ useful of A"), std::string::npos) << text;
  EXPECT_NE(text.find("    0.857   0.875   0.900    0.750    0.900\n"), std::string::npos) << text;

  // A rank without MPI times in one job: that job's ranks with them count.
  const JobView no_mpi = View({Rank(0, 2, "x", 10'000'000, 0)});
  JobView bare = no_mpi;
  for (RegionAcrossRanks& r : bare.regions) {
    for (RegionOnRank& on : r.ranks) on.mpi.reset();
    SettleRegion(&r);
  }
  EXPECT_FALSE(ScalabilityOf(bare.regions.at(0), four.regions.at(0), true).has_value());
}

// Instructions and cycles per rank (CountTotals) summed into the region,
// kept through the job file's text and added when tables merge; then split
// as computation = instruction × IPC × frequency scalability. 2 ranks:
// useful 8 + 10 ms, 3 G instructions in 2 G cycles (IPC 1.5); 4 ranks:
// useful 4 × 6 ms (Σ 24: computation scalability 18 / 24 = 0.75), 4 G in
// 4 G cycles (IPC 1): instruction scalability 0.75, IPC 2 / 3, frequency 1.5.
TEST(JobComparison, CountsSplitTheComputationScalability) {
  auto counted = [](RankSummary r, double instructions, double cycles) {
    r.regions.at(0).counts = {instructions, cycles, 1};
    return r;
  };
  const JobView two = View({counted(Rank(0, 2, "two", 10'000'000, 2'000'000), 1e9, 1e9),
                            counted(Rank(1, 2, "two", 10'000'000, 0), 2e9, 1e9)});
  std::vector<RankSummary> four_ranks;
  for (int k = 0; k < 4; ++k) four_ranks.push_back(counted(Rank(k, 4, "four", 6'000'000, 0), 1e9, 1e9));
  const JobView four = View(std::move(four_ranks));
  EXPECT_DOUBLE_EQ(two.regions.at(0).counts.instructions, 3e9);
  EXPECT_EQ(two.regions.at(0).counts.ranks, 2u);

  // The job file keeps the sums; two tables of one job's ranks add them.
  const absl::StatusOr<JobTable> read = ParseJobTable(JobTableText(TableOfView(four), 1), "four");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_DOUBLE_EQ(read->view.regions.at(0).counts.cycles, 4e9);
  EXPECT_EQ(read->view.regions.at(0).counts.ranks, 4u);
  absl::StatusOr<JobTable> merged =
      ParseJobTable(JobTableText(TableOfView(View({counted(Rank(0, 2, "two", 1, 0), 1e9, 1e9)})), 1), "0");
  ASSERT_TRUE(merged.ok()) << merged.status();
  ASSERT_TRUE(MergeJobTables(&*merged, TableOfView(View({counted(Rank(1, 2, "two", 1, 0), 2e9, 1e9)}))).ok());
  EXPECT_DOUBLE_EQ(merged->view.regions.at(0).counts.instructions, 3e9);
  EXPECT_EQ(merged->view.regions.at(0).counts.ranks, 2u);

  const std::optional<Scalability> s = ScalabilityOf(two.regions.at(0), read->view.regions.at(0), true);
  ASSERT_TRUE(s.has_value() && s->counts.has_value());
  EXPECT_DOUBLE_EQ(s->computation_scalability, 0.75);
  EXPECT_DOUBLE_EQ(s->counts->a_ipc, 1.5);
  EXPECT_DOUBLE_EQ(s->counts->b_ipc, 1.0);
  EXPECT_DOUBLE_EQ(s->counts->instruction_scalability, 0.75);
  EXPECT_DOUBLE_EQ(s->counts->ipc_scalability, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(s->counts->frequency_scalability, 1.5);
  // Weak: the means per rank (9 against 6 ms, 1.5 G against 1 G instructions).
  const std::optional<Scalability> weak = ScalabilityOf(two.regions.at(0), four.regions.at(0), true, Scaling::kWeak);
  ASSERT_TRUE(weak.has_value() && weak->counts.has_value());
  EXPECT_DOUBLE_EQ(weak->computation_scalability, 1.5);
  EXPECT_DOUBLE_EQ(weak->counts->instruction_scalability, 1.5);
  EXPECT_DOUBLE_EQ(weak->counts->frequency_scalability, 1.5);
  // A job without counts: no split.
  const JobView bare = View({Rank(0, 2, "x", 10'000'000, 0), Rank(1, 2, "x", 10'000'000, 0)});
  EXPECT_FALSE(ScalabilityOf(bare.regions.at(0), four.regions.at(0), true)->counts.has_value());
}

// Two real jobs (tests/data, docs/hpc.md#scalability-between-two-rank-counts):
// 2 and 4 ranks of mpi_phases scaling. The values are worked out from the
// files' per-rank rows [rank, calls, wall_ns, task_clock_ns, [mpi_ns, …]]
// by hand (Python): Σ (wall − MPI) over the ranks, and the parallel
// efficiency (mean useful / max useful) × (max useful / longest wall).
constexpr double kSolveUsefulTwo = 1495551547;                                          // 2 ranks, "solve"
constexpr double kSolveUsefulFour = 1730871150;                                         // 4 ranks, "solve"
constexpr double kSolveGlobalFour = 0.9009045305 * kSolveUsefulTwo / kSolveUsefulFour;  // 0.7784
constexpr double kProgramScalability = 1754103584.0 / 1958298378.0;                     // 0.8957

TEST(JobComparison, ScalabilityOfTheJobFilesInTestData) {
  const absl::StatusOr<JobTable> two = ReadJobFile(std::string(TD_TEST_DATA_DIR) + "/job_scaling_2ranks.json");
  const absl::StatusOr<JobTable> four = ReadJobFile(std::string(TD_TEST_DATA_DIR) + "/job_scaling_4ranks.json");
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_TRUE(four.ok()) << four.status();
  const nlohmann::json json = JobComparisonJson(two->view, four->view);
  EXPECT_EQ(json.at("reference"), "a");
  EXPECT_EQ(json.at("a").at("ranks"), 2);
  EXPECT_EQ(json.at("b").at("ranks"), 4);
  nlohmann::json solve;
  for (const nlohmann::json& r : json.at("regions")) {
    if (r.at("path") == "solve") solve = r.at("scalability");
  }
  ASSERT_TRUE(solve.is_object()) << json.dump(1);
  EXPECT_NEAR(solve.at("a_useful_ns").get<double>(), kSolveUsefulTwo, 0.5);
  EXPECT_NEAR(solve.at("b_useful_ns").get<double>(), kSolveUsefulFour, 0.5);
  EXPECT_NEAR(solve.at("computation_scalability").get<double>(), kSolveUsefulTwo / kSolveUsefulFour, 1e-12);
  EXPECT_NEAR(solve.at("b_global_efficiency").get<double>(), kSolveGlobalFour, 5e-5);
  const nlohmann::json& job = json.at("scalability");
  ASSERT_TRUE(job.is_object()) << "the job's own, from (program)";
  EXPECT_NEAR(job.at("computation_scalability").get<double>(), kProgramScalability, 5e-5);
}

}  // namespace
}  // namespace td

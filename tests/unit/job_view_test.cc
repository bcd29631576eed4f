// The job view of many rank files (LoadJobFiles, td report DIR): the same table and
// the same first error whatever the number of threads and the files' order,
// equal to what reading the runs whole gives; the JSON text made region by
// region equal to the JSON tree's dump.
#include "runtime/job/job_view.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/base/byte_strings.h"
#include "runtime/recorded/run_file.h"
#include "runtime/job/job_file.h"
#include "runtime/job/job_loader.h"
#include "runtime/job/rank_summary_file.h"
#include "runtime/report/report_pipeline.h"
#include "tests/support/build_paths.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

// A job's rank files in a fresh folder: `ranks` ranks of a recording with
// hardware counts (so the ranks have trees), each rank's times scaled.
class JobFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(testing::TempDir()) /
           absl::StrCat("td_job_view_test_", testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::vector<std::string> WriteRanks(int ranks) {
    std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/replay_skl_matmul.json");
    const nlohmann::json base = nlohmann::json::parse(in);
    std::vector<std::string> files;
    for (int rank = 0; rank < ranks; ++rank) {
      nlohmann::json run = base;
      run["mpi"] = {{"rank", rank}, {"size", ranks + 1}, {"job", "j<1>"}, {"host", absl::StrCat("n", rank % 2)},
                    {"launcher", "Open MPI"}};
      for (auto& region : run["regions"]) {
        for (auto& part : region["threads"]) {
          part["wall_inclusive_ns"] = part["wall_inclusive_ns"].get<int64_t>() * (rank % 3 + 1);
          for (auto& [name, delta] : part["counters"].items()) {
            if (name.find("CPU_CLK") != std::string::npos) {
              delta["inclusive"] = delta["inclusive"].get<uint64_t>() * (rank % 4 + 1);
            }
          }
        }
      }
      files.push_back(Write(absl::StrCat("td-x-rank", rank, ".json"), run.dump(1)));
    }
    return files;
  }

  std::filesystem::path dir_;
};

// The job table the way td built it before LoadJobFiles: every run read
// whole, then BuildJobView.
absl::StatusOr<JobTable> ReadWhole(const std::vector<std::string>& files) {
  ReportPipeline pipeline(AnalysisSettings{});
  std::vector<RunData> runs;
  std::vector<RunAnalysis> analyses;
  for (const std::string& file : files) {
    absl::StatusOr<RunData> run = ReadRunFile(file);
    if (!run.ok()) return run.status();
    runs.push_back(*std::move(run));
    absl::StatusOr<RunAnalysis> analysis = pipeline.Analyze(runs.back());
    if (!analysis.ok()) return analysis.status();
    analyses.push_back(*std::move(analysis));
  }
  absl::StatusOr<JobView> view = BuildJobView(runs, files, analyses);
  if (!view.ok()) return view.status();
  return CombineJobTables({TableOfView(*std::move(view))}, {"the rank files"});
}

std::string AllOutputs(const JobTable& table) {
  return FormatJobTableText(table) + FormatJobCsv(table.view) + JobViewJsonText(table.view);
}

TEST_F(JobFiles, AnyThreadsAnyOrderTheTableOfReadingTheRunsWhole) {
  std::vector<std::string> files = WriteRanks(7);
  const absl::StatusOr<JobTable> whole = ReadWhole(files);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_FALSE(whole->view.regions.empty());
  ASSERT_FALSE(whole->view.regions[0].level1.empty()) << "the ranks have trees: Level-1 spreads";
  const std::string expected = AllOutputs(*whole);
  for (unsigned threads : {1u, 2u, 5u, 0u}) {
    const absl::StatusOr<JobTable> loaded = LoadJobFiles(files, AnalysisSettings{}, threads);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(AllOutputs(*loaded), expected) << threads << " threads";
  }
  std::reverse(files.begin(), files.end());
  const absl::StatusOr<JobTable> reversed = LoadJobFiles(files, AnalysisSettings{}, 3);
  ASSERT_TRUE(reversed.ok());
  EXPECT_EQ(AllOutputs(*reversed), expected) << "ranks in rank order whatever the files' order";
  EXPECT_EQ(reversed->view.present, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(reversed->view.missing, (std::vector<int64_t>{7}));
}

TEST_F(JobFiles, TheFirstFileThatFailsIsNamedWhateverTheThreads) {
  std::vector<std::string> files = WriteRanks(6);
  files[2] = Write("td-x-broken.json", "{\"schema_version\": 1,");
  RunData not_a_rank = sample_runs::NoPmuRun();
  files[4] = Write("td-x-alone.json", RunFileText(not_a_rank));
  const absl::Status expected = ReadRunFile(files[2]).status();
  ASSERT_FALSE(expected.ok());
  for (unsigned threads : {1u, 2u, 6u}) {
    const absl::StatusOr<JobTable> loaded = LoadJobFiles(files, AnalysisSettings{}, threads);
    EXPECT_EQ(loaded.status(), expected) << threads << " threads";
  }
  // All readable: the one that is no rank's is named, as before.
  files = WriteRanks(6);
  files[4] = Write("td-x-alone.json", RunFileText(not_a_rank));
  const absl::StatusOr<JobTable> loaded = LoadJobFiles(files, AnalysisSettings{}, 4);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status(), ReadWhole(files).status());
  EXPECT_NE(loaded.status().message().find("td-x-alone.json is not a rank of an MPI job"), std::string::npos)
      << loaded.status();
}

TEST_F(JobFiles, JobFilesAndRankFilesTogether) {
  const std::vector<std::string> ranks = WriteRanks(4);
  // Ranks 0 and 1 as a job file (libtd-mpi), ranks 2 and 3 as their own files.
  JobTable job = EmptyJobTable();
  ReportPipeline pipeline(AnalysisSettings{});
  for (int rank = 0; rank < 2; ++rank) {
    const RunData run = *ReadRunFile(ranks[rank]);
    const RunAnalysis analysis = *pipeline.Analyze(run);
    ASSERT_TRUE(MergeJobTables(&job, *RankJobTable(run, &analysis, true)).ok());
  }
  SettleJobTable(&job);
  std::filesystem::remove(ranks[0]);
  std::filesystem::remove(ranks[1]);
  const std::string job_file = Write("td-x-job.json", JobTableText(job, 1));
  const absl::StatusOr<JobTable> loaded = LoadJobFiles({job_file, ranks[2], ranks[3]}, AnalysisSettings{}, 2);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->view.present, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(loaded->view.regions[0].ranks.size(), 4u);
}

// A rank's file as td writes it at exit: with its job-view summary, which
// the loader reads instead of the parts, giving the table of reading the
// runs whole; a summary made with other settings, or malformed, is not
// taken, nor one of a file cut short. `padding` bytes after the regions
// make files longer than the head the loader reads first.
class RankSummaries : public JobFiles, public testing::WithParamInterface<size_t> {};

TEST_P(RankSummaries, GiveTheTableOfReadingTheRunsWhole) {
  const std::vector<std::string> files = WriteRanks(5);
  for (const std::string& file : files) {  // the padding: a long td_version, which sorts after "regions"
    absl::StatusOr<RunData> run = ReadRunFile(file);
    ASSERT_TRUE(run.ok()) << run.status();
    run->td_version += std::string(GetParam(), 'v');
    Write(std::filesystem::path(file).filename().string(), RunFileText(*run));
  }
  const absl::StatusOr<JobTable> whole = ReadWhole(files);
  ASSERT_TRUE(whole.ok()) << whole.status();
  ASSERT_FALSE(whole->view.regions[0].level1.empty()) << "the ranks have trees: Level-1 fractions in the summaries";
  const std::string expected = AllOutputs(*whole);
  std::vector<std::string> texts;
  for (const std::string& file : files) {
    const absl::StatusOr<RunData> run = ReadRunFile(file);
    ASSERT_TRUE(run.ok()) << run.status();
    const std::string line = RankSummaryLineOf(*run, AnalysisSettings{});
    ASSERT_FALSE(line.empty());
    std::string text;
    ASSERT_TRUE(WriteRunFileText(*run, [&text](std::string_view piece) { return text.append(piece), true; }, line));
    const FoundRankSummary found = FindRankSummary(text, AnalysisSettings{}, file);
    ASSERT_TRUE(found.summary.has_value());
    EXPECT_EQ(found.summary->file, file);
    AnalysisSettings raw;
    raw.compensate = false;
    EXPECT_FALSE(FindRankSummary(text, raw, file).summary.has_value()) << "made with td's cost out";
    EXPECT_TRUE(FindRankSummary(text.substr(0, text.find(line) + 100), AnalysisSettings{}, file).need_more);
    const absl::StatusOr<RunData> again = RunFromText(text, file);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(RunFileText(*again), RunFileText(*run)) << "the run reads as before, its summary left aside";
    texts.push_back(text);
    Write(std::filesystem::path(file).filename().string(), text);
  }
  for (unsigned threads : {1u, 2u}) {
    const absl::StatusOr<JobTable> loaded = LoadJobFiles(files, AnalysisSettings{}, threads);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(AllOutputs(*loaded), expected) << threads << " threads";
  }
  // Rank 1's summary says it ran its first region 10^12 times: taken as it
  // is, which shows that the summary, not the parts, was read.
  std::string edited = texts[1];
  const size_t rows = edited.find("\"regions\":[[");
  ASSERT_NE(rows, std::string::npos);
  const size_t calls = edited.find("\",", rows + 12) + 2;  // after the first row's path
  edited.replace(calls, edited.find(',', calls) - calls, "1000000000000");
  Write(std::filesystem::path(files[1]).filename().string(), edited);
  const absl::StatusOr<JobTable> trusted = LoadJobFiles(files, AnalysisSettings{}, 2);
  ASSERT_TRUE(trusted.ok()) << trusted.status();
  EXPECT_NE(AllOutputs(*trusted), expected);
  // A file cut short after its summary: read whole, and refused as before.
  const std::string cut = texts[1].substr(0, texts[1].size() - texts[1].size() / 4);
  ASSERT_NE(cut.find(texts[1].substr(texts[1].find("\n \"rank_summary"), 200)), std::string::npos);
  Write(std::filesystem::path(files[1]).filename().string(), cut);
  const absl::StatusOr<JobTable> refused = LoadJobFiles(files, AnalysisSettings{}, 2);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status(), ReadRunFile(files[1]).status());
  // A malformed summary: the file is read whole.
  std::string broken = texts[1];
  broken.replace(broken.find("\"regions\":["), 11, "\"regions\":{");
  Write(std::filesystem::path(files[1]).filename().string(), broken);
  const absl::StatusOr<JobTable> fallen_back = LoadJobFiles(files, AnalysisSettings{}, 2);
  ASSERT_TRUE(fallen_back.ok()) << fallen_back.status();
  EXPECT_EQ(AllOutputs(*fallen_back), expected);
}
// A rank of more parts than a summary is made for at exit, or with
// definitions from a folder: none, and the job view reads its file whole.
TEST(RankSummaryLine, NoneForARunOfMorePartsThanTheBoundOrDefinitionsFromAFolder) {
  RunData run = sample_runs::NoPmuRun();
  run.mpi = MpiRank{0, 2, "j", "h", "Open MPI"};
  ASSERT_FALSE(RankSummaryLineOf(run, AnalysisSettings{}).empty());
  AnalysisSettings from_folder;
  from_folder.metrics_dir = "metrics";
  EXPECT_TRUE(RankSummaryLineOf(run, from_folder).empty()) << "definitions that may change before the report";
  ASSERT_FALSE(run.regions.empty());
  run.regions[0].threads.resize(kMostSummarizedParts + 1);
  EXPECT_TRUE(RankSummaryLineOf(run, AnalysisSettings{}).empty());
  run.mpi.reset();
  run.regions[0].threads.resize(1);
  EXPECT_TRUE(RankSummaryLineOf(run, AnalysisSettings{}).empty()) << "not a rank";
}

// Files of a few KB, read whole at once; files past the 64 KB head the
// loader reads first, whose end it then checks.
INSTANTIATE_TEST_SUITE_P(JobFiles, RankSummaries, testing::Values(size_t{0}, size_t{100000}));

// Per region the MPI share of each rank's wall time (min / mean / max), kept
// through the job table's text and its merges; an aborted rank is named.
TEST(JobViewMpi, SharePerRankAndAbortedRanksSurviveTheJobTable) {
  std::vector<RunData> runs;
  for (int rank = 0; rank < 2; ++rank) {
    RunData run = sample_runs::NoPmuRun();
    run.mpi = MpiRank{rank, 3, "j", "h", "Open MPI", rank == 1};
    run.mpi_outside_regions = MpiTime{};
    for (auto& region : run.regions) {
      for (RegionOnThread& t : region.threads) t.mpi = MpiTime{0, 0, 0};
    }
    // Region 0, one thread: rank 0 spends a quarter of its wall time in MPI, rank 1 three quarters.
    RegionOnThread& part = run.regions[0].threads[0];
    part.mpi = MpiTime{part.wall_inclusive_ns * (rank == 0 ? 1 : 3) / 4, 2, 64};
    runs.push_back(run);
  }
  for (auto& region : runs[0].regions) region.threads.resize(1);
  for (auto& region : runs[1].regions) region.threads.resize(1);
  absl::StatusOr<JobView> view = BuildJobView(runs, {"r0", "r1"}, {});
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->aborted, std::vector<int64_t>{1});
  EXPECT_EQ(view->missing, std::vector<int64_t>{2});
  // Each rank's whole run comes first (kProgramRegion), then its regions.
  ASSERT_EQ(view->regions[0].path, kProgramRegion);
  const RegionAcrossRanks& first = view->regions[1];
  ASSERT_EQ(first.mpi_share.ranks, 2u);
  EXPECT_NEAR(first.mpi_share.min, 0.25, 1e-6);
  EXPECT_NEAR(first.mpi_share.max, 0.75, 1e-6);
  EXPECT_NEAR(first.mpi_share.mean, 0.5, 1e-6);
  EXPECT_EQ(first.mpi_share.max_rank, 1);
  ASSERT_TRUE(first.ranks[0].mpi.has_value());
  EXPECT_EQ(first.ranks[0].mpi->bytes, 64u);
  const std::string text = FormatJobText(*view);
  EXPECT_NE(text.find("failed ranks: called MPI_Abort: 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("25.0%  50.0%  75.0%  (rank 1)"), std::string::npos) << text;

  // Through the job table's text (what ranks send up the tree and the job file holds).
  JobTable table = TableOfView(*view);
  absl::StatusOr<JobTable> back = ParseJobTable(JobTableText(table, -1), "table");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->view.aborted, std::vector<int64_t>{1});
  ASSERT_TRUE(back->view.regions[1].ranks[1].mpi.has_value());
  EXPECT_EQ(back->view.regions[1].ranks[1].mpi->calls, 2u);
  SettleJobTable(&*back);
  EXPECT_NEAR(back->view.regions[1].mpi_share.max, 0.75, 1e-6);
  // Two halves of the job merge: the aborted list and the shares combine.
  JobTable zero = TableOfView(*BuildJobView({runs[0]}, {"r0"}, {}));
  JobTable one = TableOfView(*BuildJobView({runs[1]}, {"r1"}, {}));
  ASSERT_TRUE(MergeJobTables(&zero, std::move(one)).ok());
  EXPECT_EQ(zero.view.aborted, std::vector<int64_t>{1});
  EXPECT_NEAR(zero.view.regions[1].mpi_share.mean, 0.5, 1e-6);
}

// Four ranks of one phase ending in a collective: rank 3 computed 1000 ns,
// the others 400 ns and waited 600 ns for it.
std::vector<RankSummary> LateRankSummaries() {
  std::vector<RankSummary> ranks;
  for (int64_t rank = 0; rank < 4; ++rank) {
    RankSummary r;
    r.file = absl::StrCat("r", rank);
    r.program = "p";
    r.mpi = MpiRank{rank, 4, "j", "h", "Open MPI", false, rank == 0 ? 15 : 0};
    const int64_t mpi = rank == 3 ? 10 : 610;
    r.regions.push_back({"phase", {rank, 1, 1010, 1000.0 * (rank == 3 ? 3 : 1), MpiTime{mpi, 1, 8}}, {}});
    ranks.push_back(std::move(r));
  }
  return ranks;
}

TEST(JobViewEfficiency, LateRankWaitsAndPopMetricsFromTheRows) {
  const JobView view = *BuildJobView(LateRankSummaries());
  const RegionAcrossRanks& phase = view.regions[0];
  const Efficiency& e = phase.efficiency;
  ASSERT_EQ(e.ranks, 4u);
  EXPECT_EQ(e.late_rank, 3);
  EXPECT_DOUBLE_EQ(e.useful_max_ns, 1000);
  EXPECT_DOUBLE_EQ(e.useful_mean_ns, 550);
  EXPECT_DOUBLE_EQ(e.load_balance, 0.55);
  EXPECT_DOUBLE_EQ(e.communication_efficiency, 1000.0 / 1010);
  EXPECT_DOUBLE_EQ(e.parallel_efficiency, 0.55 * 1000.0 / 1010);
  EXPECT_DOUBLE_EQ(e.waited_ns, 1800);
  EXPECT_EQ(e.most_waiting_rank, 0);
  std::vector<int64_t> waits;
  for (const RegionOnRank& on : phase.ranks) waits.push_back(*on.wait_ns);
  EXPECT_EQ(waits, (std::vector<int64_t>{600, 600, 600, 0}));
  // CPU time 1000, 1000, 1000, 3000: max / mean 2, 50 %, 4 × 1500 ns lost.
  const Imbalance cpu = ImbalanceOf(phase.task_clock_ns);
  EXPECT_DOUBLE_EQ(cpu.ratio, 2);
  EXPECT_DOUBLE_EQ(cpu.percent, 50);
  EXPECT_DOUBLE_EQ(cpu.lost_core_seconds, 4 * 1500 / 1e9);
  EXPECT_EQ(view.signaled, (std::vector<std::pair<int64_t, int>>{{0, 15}}));

  const std::string text = FormatJobText(view);
  EXPECT_NE(text.find("failed ranks: ended by a signal: 0 (SIGTERM)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("   0.550    0.990    0.545    rank 3"), std::string::npos) << text;
  EXPECT_NE(text.find("waits: r0 600 ns, r1 600 ns, r2 600 ns, r3 0 ns\n"), std::string::npos) << text;
  EXPECT_NE(text.find("     2.00   50.0%     0.000\n"), std::string::npos) << text;
  const std::string csv = FormatJobCsv(view);
  EXPECT_NE(csv.find("\nphase,0,1,1010,1000,,,610,600,,,,,,,,,,,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nphase,all,4,1010,6000,1.0000,0,,,0.5500,0.9901,0.5446,3,2.0000,0.00,50.00,0.0000,0.0000,,\n"),
            std::string::npos)
      << csv;
  const nlohmann::json json = JobViewToJson(view);
  EXPECT_EQ(json["regions"][0]["efficiency"]["late_rank"], 3);
  EXPECT_EQ(json["regions"][0]["ranks"][1]["wait_ns"], 600);
  EXPECT_EQ(json["ranks_ended_by_signal"], nlohmann::json::parse("[[0, 15]]"));

  // The job table keeps the rows, so the efficiencies come back through it,
  // merged from two halves as the ranks' reduction merges them.
  std::vector<RankSummary> all = LateRankSummaries();
  std::vector<RankSummary> low(all.begin(), all.begin() + 2), high(all.begin() + 2, all.end());
  JobTable table = TableOfView(*BuildJobView(std::move(low)));
  ASSERT_TRUE(MergeJobTables(&table, TableOfView(*BuildJobView(std::move(high)))).ok());
  absl::StatusOr<JobTable> back = ParseJobTable(JobTableText(table, -1), "table");
  ASSERT_TRUE(back.ok()) << back.status();
  SettleJobTable(&*back);
  EXPECT_EQ(back->view.regions[0].efficiency.late_rank, 3);
  EXPECT_DOUBLE_EQ(back->view.regions[0].efficiency.load_balance, 0.55);
  EXPECT_EQ(back->view.signaled, view.signaled);
}

// A rank whose file is a periodic flush's (killed before its end) counts as
// the rank and is named partial, in the text, the JSON and the job table.
TEST(JobViewFailedRanks, APartialFileCountsAsItsRankAndIsNamedPartial) {
  std::vector<RankSummary> all = LateRankSummaries();
  all[2].partial_after_ns = 3'200'000'000;
  const JobView view = *BuildJobView(all);
  EXPECT_EQ(view.present, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(view.missing.empty());
  EXPECT_EQ(view.partial, (std::vector<std::pair<int64_t, int64_t>>{{2, 3'200'000'000}}));
  const std::string text = FormatJobText(view);
  EXPECT_NE(text.find("failed ranks: ended before their end, data up to their last periodic flush: 2 (partial: last "
                      "flushed at +3 s)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(JobViewToJson(view)["ranks_partial"], nlohmann::json::parse("[[2, 3200000000]]"));
  std::vector<RankSummary> low(all.begin(), all.begin() + 2), high(all.begin() + 2, all.end());
  JobTable table = TableOfView(*BuildJobView(std::move(low)));
  ASSERT_TRUE(MergeJobTables(&table, TableOfView(*BuildJobView(std::move(high)))).ok());
  absl::StatusOr<JobTable> back = ParseJobTable(JobTableText(table, -1), "table");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->view.partial, view.partial);
}

TEST(JobViewEfficiency, NoRankIsLateWhenTheUsefulTimesAreEven) {
  std::vector<RankSummary> ranks = LateRankSummaries();
  for (RankSummary& r : ranks) r.regions[0].on_rank.mpi->ns = 500;
  const JobView view = *BuildJobView(std::move(ranks));
  EXPECT_EQ(view.regions[0].efficiency.late_rank, -1);
  EXPECT_DOUBLE_EQ(view.regions[0].efficiency.load_balance, 1);
  EXPECT_EQ(view.regions[0].efficiency.most_waiting_rank, -1);
}

TEST(JobViewJson, RegionByRegionTextIsTheTreesDump) {
  std::vector<RankSummary> ranks;
  for (int64_t rank = 0; rank < 3; ++rank) {
    RankSummary r;
    r.file = absl::StrCat(rank);
    r.program = "prog\xe9";
    r.mpi = MpiRank{rank, 5, "job\"1", "h\x01", ""};
    r.regions.push_back({"main", {rank, 3, 1000 * (rank + 1), 2.5e6 * rank}, {{"Retiring", 0.25 + 0.1 * rank}}});
    r.regions.push_back({"main/a\\x1bb", {rank, 1, 7, std::nullopt}, {}});
    ranks.push_back(std::move(r));
  }
  const JobView view = *BuildJobView(std::move(ranks));
  EXPECT_EQ(JobViewJsonText(view), DumpJson(JobViewToJson(view), 1));
  EXPECT_EQ(JobViewJsonText(JobView{}), DumpJson(JobViewToJson(JobView{}), 1));
}

}  // namespace
}  // namespace td

// The HTML report: the sweep plot, the region tree with the software
// columns, names escaped; the job view's heat map (FormatJobHtml): one cell
// per region and rank, coloured by share of the region's slowest rank, the
// slowest marked, names escaped.
#include "runtime/report/html_report.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/base/byte_strings.h"
#include "runtime/job/job_view.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::NoPmuRun;
using sample_runs::NoTree;
using sample_runs::OddRun;
using sample_runs::TwoThreadRun;

TEST(HtmlReport, SweepIsPlottedAgainstItsParameter) {
  RunData data = TwoThreadRun();
  data.regions.clear();
  for (long long block : {48, 16, 32}) {  // any order: the plot sorts by parameter
    Region r;
    r.name = absl::StrCat("block[", block, "]");
    r.path = r.name;
    r.base_name = "block";
    r.parameter = block;
    RegionOnThread t{0, 2, 0, 0, 0, block * 1000, block * 1000, {}, {}};
    r.threads.push_back(t);
    data.regions.push_back(r);
  }
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counters";
  const std::string html = FormatHtmlReport(data, analysis);
  EXPECT_NE(html.find("<svg class=\"sweep\" data-base=\"block\""), std::string::npos) << html;
  // wall per call: 16 µs × 1000 / 2 calls / 1000 = 8 µs, 16 µs, 24 µs, in parameter order.
  const size_t p16 = html.find("data-x=\"16\" data-y=\"8\"");
  const size_t p32 = html.find("data-x=\"32\" data-y=\"16\"");
  const size_t p48 = html.find("data-x=\"48\" data-y=\"24\"");
  ASSERT_NE(p16, std::string::npos) << html;
  ASSERT_NE(p32, std::string::npos);
  ASSERT_NE(p48, std::string::npos);
  EXPECT_LT(p16, p32);
  EXPECT_LT(p32, p48);
  // Without hardware counters the reason is said once, not again for Top-Down.
  EXPECT_NE(html.find("Top-Down: not available without hardware counters"), std::string::npos) << html;
  const size_t reason = html.find("no hardware PMU here");
  ASSERT_NE(reason, std::string::npos);
  EXPECT_EQ(html.find("no hardware PMU here", reason + 1), std::string::npos) << html;
  EXPECT_EQ(html.find("http"), std::string::npos) << "self-contained";
  EXPECT_EQ(HtmlEscape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
}

TEST(Html, NamesShowControlBytesAndBadUtf8Escaped) {
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counts";
  const std::string html = FormatHtmlReport(OddRun(), analysis);
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
  EXPECT_TRUE(IsValidUtf8(html));
  EXPECT_NE(html.find("a/b\\x1b"), std::string::npos);
  EXPECT_NE(html.find("prog\\xe9"), std::string::npos);
}

TEST(NoPmuOutputs, HtmlShowsTheRegionTreeWithTheSoftwareColumns) {
  const std::string html = FormatHtmlReport(NoPmuRun(), NoTree());
  const size_t table = html.find("<table class=\"regions\">");
  ASSERT_NE(table, std::string::npos) << html;
  EXPECT_NE(html.find("<th>task-clock</th><th>CPUs</th><th>page-faults</th>", table), std::string::npos);
  const size_t outer = html.find("<tr data-region=\"outer\" data-depth=\"0\">", table);
  const size_t inner = html.find("<tr data-region=\"outer/inner\" data-depth=\"1\">", table);
  ASSERT_NE(outer, std::string::npos) << html;
  ASSERT_NE(inner, std::string::npos) << html;
  EXPECT_LT(outer, inner);
  EXPECT_NE(html.find("<td data-key=\"task-clock\" data-value=\"1900000\">1.90 ms</td>", outer), std::string::npos);
  EXPECT_NE(html.find("<td data-key=\"cpu_utilization\" data-value=\"0.95\">0.95</td>", outer), std::string::npos);
  EXPECT_NE(html.find("<td data-key=\"wall_exclusive_ns\" data-value=\"1500000\">1.50 ms</td>", outer),
            std::string::npos);
  // The per-thread table of outer: thread 1 not measured, never 0.
  EXPECT_NE(html.find("<td>1</td><td>1</td><td>1.50 ms</td><td>1.50 ms</td><td data-key=\"task-clock\" "
                      "data-value=\"\">—</td>"),
            std::string::npos)
      << html;
}

// Three ranks of a four-rank job: solve takes 3, 6 and 9 ms; a region with
// a name that is HTML ran on ranks 1 and 2 only.
JobView SmallJob() {
  std::vector<RankSummary> ranks;
  for (int64_t rank = 0; rank < 3; ++rank) {
    RankSummary r;
    r.file = absl::StrCat("r", rank, ".json");
    r.program = "solver<script>";
    r.mpi = MpiRank{rank, 4, "j&1", "node\"0", ""};
    r.regions.push_back({"solve", {rank, 2, (rank + 1) * 3'000'000, 1e6}, {}});
    if (rank > 0) r.regions.push_back({"halo<b>&\"x", {rank, 1, 1000 * rank, std::nullopt}, {}});
    ranks.push_back(std::move(r));
  }
  absl::StatusOr<JobView> view = BuildJobView(std::move(ranks));
  EXPECT_TRUE(view.ok()) << view.status();
  return *view;
}

// The heat-map row of `path` (escaped as in the page): its cells in order.
std::vector<std::string> HeatCells(const std::string& html, const std::string& escaped_path) {
  const size_t row = html.find("<tr data-region=\"" + escaped_path + "\" data-depth");
  EXPECT_NE(row, std::string::npos) << escaped_path;
  std::vector<std::string> cells;
  if (row == std::string::npos) return cells;
  const size_t end = html.find("</tr>", row);
  for (size_t at = html.find("<td class=\"cell", row); at < end; at = html.find("<td class=\"cell", at + 1)) {
    cells.push_back(html.substr(at, html.find("</td>", at) + 5 - at));
  }
  return cells;
}

TEST(JobHtml, HeatMapCellsShareOfTheSlowestRankMarked) {
  const std::string html = FormatJobHtml(SmallJob());
  // One column per rank present (rank 3 is missing, and said so).
  EXPECT_NE(html.find("<th class=\"rank\" data-rank=\"0\">0</th><th class=\"rank\" data-rank=\"1\">1</th>"
                      "<th class=\"rank\" data-rank=\"2\">2</th></tr>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("data-rank=\"3\""), std::string::npos);
  EXPECT_NE(html.find("Missing ranks (no file given for them): 3"), std::string::npos);
  // solve: 3, 6, 9 ms of a 9 ms slowest: steps 3, 6 and 9; rank 2 marked.
  // Each cell also carries its step by CPU time (all 1 ms: step 9, rank 0
  // the first with the most) and by MPI share ('-': no MPI times).
  EXPECT_EQ(HeatCells(html, "solve"),
            (std::vector<std::string>{
                "<td class=\"cell h3\" data-ns=\"3000000\" data-c=\"1000000\" data-h=\"39-\" data-t=\"c\"></td>",
                "<td class=\"cell h6\" data-ns=\"6000000\" data-c=\"1000000\" data-h=\"69-\"></td>",
                "<td class=\"cell h9 slowest\" data-ns=\"9000000\" data-c=\"1000000\" data-h=\"99-\" "
                "data-t=\"w\">&#9650;</td>"}));
  // halo: not run on rank 0 (hatched, no time); rank 2 the slowest.
  EXPECT_EQ(HeatCells(html, "halo&lt;b&gt;&amp;&quot;x"),
            (std::vector<std::string>{"<td class=\"cell none\"></td>",
                                      "<td class=\"cell h5\" data-ns=\"1000\" data-h=\"5--\"></td>",
                                      "<td class=\"cell h9 slowest\" data-ns=\"2000\" data-h=\"9--\" "
                                      "data-t=\"w\">&#9650;</td>"}));
  // Exactly one mark per region.
  size_t marks = 0;
  for (size_t at = html.find("slowest\" data-ns"); at != std::string::npos; at = html.find("slowest\" data-ns", at + 1)) {
    ++marks;
  }
  EXPECT_EQ(marks, 2u);
  // Ten colour steps, each with a colour of its own.
  for (int step = 0; step < 10; ++step) EXPECT_NE(html.find(absl::StrCat(".h", step, " { background: #")), std::string::npos);
  // The job table: the slowest rank and the imbalance (9 / 6 = 1.50).
  EXPECT_NE(html.find("<td data-key=\"slowest_rank\" data-value=\"2\">rank 2</td><td data-key=\"imbalance\" "
                      "data-value=\"1.5000\">1.50</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td data-key=\"task_mean_ns\" data-value=\"\">—</td>"), std::string::npos)
      << "halo has no task-clock: shown as not measured, never 0";
  // Imbalance and efficiencies: solve's wall times 3, 6, 9 ms are 33.3 % imbalanced, 3 × 3 ms lost; without MPI
  // times no efficiency.
  const size_t solve = html.find("<tr data-efficiency=\"solve\">");
  ASSERT_NE(solve, std::string::npos) << html;
  const std::string row = html.substr(solve, html.find("</tr>", solve) - solve);
  EXPECT_NE(row.find("<td data-key=\"wall_imbalance_percent\" data-value=\"33.3333\">33.3%</td>"
                     "<td data-key=\"wall_lost_core_seconds\" data-value=\"0.0090\">0.009</td>"),
            std::string::npos)
      << row;
  EXPECT_NE(row.find("<td data-key=\"load_balance\" data-value=\"\">—</td>"), std::string::npos) << row;
}

// Two ranks with task-clock and MPI times: solve's wall 10 and 8 ms, CPU
// 8 and 4 ms, MPI 2 and 6 ms (20 % and 75 % of the wall time).
JobView JobWithMpi() {
  std::vector<RankSummary> ranks;
  const int64_t wall[] = {10'000'000, 8'000'000}, cpu[] = {8'000'000, 4'000'000}, mpi[] = {2'000'000, 6'000'000};
  for (int64_t rank = 0; rank < 2; ++rank) {
    RankSummary r;
    r.file = absl::StrCat("r", rank, ".json");
    r.program = "solver";
    r.mpi = MpiRank{rank, 2, "j", "n0", ""};
    r.regions.push_back({"solve", {rank, 1, wall[rank], static_cast<double>(cpu[rank]), MpiTime{mpi[rank], 1, 0},
                                   std::nullopt}, {}});
    ranks.push_back(std::move(r));
  }
  absl::StatusOr<JobView> view = BuildJobView(std::move(ranks));
  EXPECT_TRUE(view.ok()) << view.status();
  return *view;
}

// The heat map by wall time (the default), CPU time (share of the most) or
// MPI share (0-100 %): every cell carries its step by each, the page opens
// on the one asked for, and a metric no rank has cannot be picked.
TEST(JobHtml, HeatMapColouredByWallCpuOrMpiShare) {
  const JobView view = JobWithMpi();
  const std::string wall = FormatJobHtml(view);
  EXPECT_NE(wall.find("<table class=\"heatmap\" data-metric=\"wall\">"), std::string::npos) << wall;
  EXPECT_NE(wall.find("value=\"wall\" data-title=\"Wall time per rank\""), std::string::npos);
  EXPECT_NE(wall.find("<h2 id=\"heat-title\">Wall time per rank</h2>"), std::string::npos);
  EXPECT_EQ(HeatCells(wall, "solve"),
            (std::vector<std::string>{
                "<td class=\"cell h9 slowest\" data-ns=\"10000000\" data-c=\"8000000\" data-m=\"2000000\" "
                "data-h=\"992\" data-t=\"wc\">&#9650;</td>",
                "<td class=\"cell h8\" data-ns=\"8000000\" data-c=\"4000000\" data-m=\"6000000\" "
                "data-h=\"857\" data-t=\"m\"></td>"}));
  const std::string cpu = FormatJobHtml(view, HeatMetric::kCpu);
  EXPECT_NE(cpu.find("data-metric=\"cpu\""), std::string::npos);
  EXPECT_NE(cpu.find("<h2 id=\"heat-title\">CPU time per rank</h2>"), std::string::npos);
  const std::vector<std::string> by_cpu = HeatCells(cpu, "solve");
  ASSERT_EQ(by_cpu.size(), 2u);
  EXPECT_EQ(by_cpu[0].rfind("<td class=\"cell h9 slowest\"", 0), 0u) << by_cpu[0];
  EXPECT_EQ(by_cpu[1].rfind("<td class=\"cell h5\"", 0), 0u) << by_cpu[1];
  const std::vector<std::string> by_mpi = HeatCells(FormatJobHtml(view, HeatMetric::kMpi), "solve");
  ASSERT_EQ(by_mpi.size(), 2u);
  EXPECT_EQ(by_mpi[0].rfind("<td class=\"cell h2\"", 0), 0u) << by_mpi[0];
  EXPECT_EQ(by_mpi[1].rfind("<td class=\"cell h7 slowest\"", 0), 0u) << by_mpi[1];
  EXPECT_NE(by_mpi[1].find("&#9650;</td>"), std::string::npos) << "the largest MPI share is marked";
  EXPECT_EQ(wall.find(" disabled>"), std::string::npos) << "all three metrics are in the files";

  // Without MPI times the MPI share cannot be picked, and asking for it
  // opens the page on wall time, saying why.
  const std::string small = FormatJobHtml(SmallJob(), HeatMetric::kMpi);
  EXPECT_NE(small.find("value=\"mpi\""), std::string::npos);
  EXPECT_NE(small.find(" disabled> MPI share (not in the files)</label>"), std::string::npos) << small;
  EXPECT_NE(small.find("No MPI share in these files: the heat map shows wall time."), std::string::npos);
  EXPECT_NE(small.find("data-metric=\"wall\""), std::string::npos);
  EXPECT_EQ(HeatMetricNamed("cpu"), HeatMetric::kCpu);
  EXPECT_FALSE(HeatMetricNamed("ipc").has_value());
}

TEST(JobHtml, EveryNameIsEscapedAndThePageIsSelfContained) {
  const std::string html = FormatJobHtml(SmallJob());
  EXPECT_EQ(html.find("<script>solver"), std::string::npos);
  EXPECT_EQ(html.find("<b>&"), std::string::npos);
  EXPECT_EQ(html.find("node\"0"), std::string::npos);
  EXPECT_NE(html.find("<title>td job report: solver&lt;script&gt;</title>"), std::string::npos) << html;
  EXPECT_NE(html.find("<h1>td job report: solver&lt;script&gt;, job j&amp;1</h1>"), std::string::npos);
  EXPECT_NE(html.find("on 1 host (node&quot;0)"), std::string::npos);
  EXPECT_NE(html.find(">halo&lt;b&gt;&amp;&quot;x</td>"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos) << "no network";
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_TRUE(IsValidUtf8(html));
  // Bytes that are not text, shown as \xHH.
  JobView odd = SmallJob();
  odd.program = "prog\xe9";
  odd.regions[0].path = "a\x1b";
  const std::string shown = FormatJobHtml(odd);
  EXPECT_TRUE(IsValidUtf8(shown));
  EXPECT_EQ(shown.find('\x1b'), std::string::npos);
  EXPECT_NE(shown.find("prog\\xe9"), std::string::npos);
}

TEST(JobHtml, LargeJobsLabelEverySixteenthRankAndTablesWithoutRowsSaySo) {
  std::vector<RankSummary> ranks;
  for (int64_t rank = 0; rank < 100; ++rank) {
    RankSummary r;
    r.file = absl::StrCat(rank);
    r.program = "p";
    r.mpi = MpiRank{rank, 100, "j", "h", ""};
    r.regions.push_back({"main", {rank, 1, 1000 + rank, std::nullopt}, {}});
    ranks.push_back(std::move(r));
  }
  JobView view = *BuildJobView(std::move(ranks));
  const std::string html = FormatJobHtml(view);
  EXPECT_NE(html.find("<table class=\"heatmap dense\" data-metric=\"wall\">"), std::string::npos);
  EXPECT_NE(html.find("data-rank=\"16\">16</th>"), std::string::npos);
  EXPECT_NE(html.find("data-rank=\"17\"></th>"), std::string::npos);
  EXPECT_EQ(HeatCells(html, "main").size(), 100u);
  EXPECT_NE(HeatCells(html, "main").back().find("slowest"), std::string::npos);
  for (RegionAcrossRanks& r : view.regions) r.ranks.clear();  // a job file without per-rank rows
  const std::string summary = FormatJobHtml(view);
  EXPECT_EQ(summary.find("<table class=\"heatmap"), std::string::npos);
  EXPECT_NE(summary.find("No heat map: the job file keeps no per-rank rows"), std::string::npos);
  EXPECT_NE(summary.find("<tr data-region=\"main\">"), std::string::npos) << "the job table is still there";
}

}  // namespace
}  // namespace td

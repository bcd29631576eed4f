// The one path from a recorded run to its report (report_pipeline.h): trees
// when the run has hardware counts, no definitions needed when it has none,
// and a failed definitions load said once, with the report still printed.
#include "runtime/report/report_pipeline.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/recorded/run_file.h"
#include "tests/support/build_paths.h"

namespace td {
namespace {

RunData RunFixture(const std::string& name) {
  absl::StatusOr<RunData> run = ReadRunFile(std::string(TD_TEST_DATA_DIR) + "/" + name);
  EXPECT_TRUE(run.ok()) << run.status();
  return run.ok() ? *std::move(run) : RunData{};
}

bool ReportHas(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ReportPipeline, HardwareCountsGetTheTreesOfTheRecordedCpu) {
  const RunData run = RunFixture("replay_skl_matmul.json");
  ASSERT_TRUE(HasHardwareCounts(run));
  ReportPipeline pipeline({});
  absl::StatusOr<RunAnalysis> analysis = pipeline.Analyze(run);
  ASSERT_TRUE(analysis.ok()) << analysis.status();
  EXPECT_EQ(analysis->uarch, "skl");
  EXPECT_TRUE(analysis->HasTrees());
  std::string problem;
  const std::string text = pipeline.Text(run, TextReportOptions{}, &problem);
  EXPECT_EQ(problem, "");
  EXPECT_TRUE(ReportHas(text, "Backend_Bound")) << text;
  EXPECT_EQ(text, FormatTextReport(run, &*analysis)) << "the same text as analysing by hand";
}

TEST(ReportPipeline, AUarchSettingWinsOverTheRecordedCpu) {
  ReportPipeline pipeline({"", "icl", ""});
  absl::StatusOr<RunAnalysis> analysis = pipeline.Analyze(RunFixture("replay_skl_matmul.json"));
  ASSERT_TRUE(analysis.ok()) << analysis.status();
  EXPECT_EQ(analysis->uarch, "icl");
}

TEST(ReportPipeline, SoftwareOnlyRunsNeedNoDefinitions) {
  const RunData run = RunFixture("nopmu_matmul.json");
  ASSERT_FALSE(HasHardwareCounts(run));
  ReportPipeline pipeline({"/nonexistent-td-metrics-dir", "", ""});
  std::string problem;
  const std::string text = pipeline.Text(run, TextReportOptions{}, &problem);
  EXPECT_EQ(problem, "") << "definitions are not loaded for a run without hardware counts";
  EXPECT_EQ(text, FormatTextReport(run));
}

TEST(ReportPipeline, DefinitionsThatDoNotLoadLeaveTheReportWithoutTrees) {
  const RunData run = RunFixture("replay_skl_matmul.json");
  ReportPipeline pipeline({"/nonexistent-td-metrics-dir", "", ""});
  std::string problem;
  const std::string text = pipeline.Text(run, TextReportOptions{}, &problem);
  EXPECT_TRUE(ReportHas(problem, "/nonexistent-td-metrics-dir")) << problem;
  EXPECT_EQ(text, FormatTextReport(run));
  EXPECT_FALSE(pipeline.Analyze(run).ok());
}

}  // namespace
}  // namespace td

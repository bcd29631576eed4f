// `td compare` tables (text, CSV, HTML): regions and runs named, software
// ratios, no ratio of a zero base, CSV cells neutralised.
#include "runtime/report/compare.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/base/byte_strings.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::NoPmuRun;
using sample_runs::NoTree;
using sample_runs::OddRun;

std::vector<CompareColumn> InnerAndOuter(const RunData& data, const RunAnalysis& analysis) {
  return {MakeCompareColumn(data, 0, analysis, "outer"), MakeCompareColumn(data, 1, analysis, "inner")};
}

TEST(Csv, CompareNeutralisesLabelsRegionsAndRuns) {
  RunData run = OddRun();
  run.program.name = "@evil";
  run.regions[0].path = PathComponent("=r");
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counts";
  const std::vector<CompareColumn> columns = {MakeCompareColumn(run, 0, analysis, "+label\x1b")};
  const std::string csv = FormatComparison(columns, CompareFormat::kCsv);
  EXPECT_EQ(csv.rfind("row,'+label\\x1b\n", 0), 0u) << csv;
  EXPECT_NE(csv.find("\nregion,'=r\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nrun,'@evil (pid 7)\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nSpeedup,1.00\n"), std::string::npos) << csv;  // numbers as they were
  EXPECT_EQ(FormatComparison(columns, CompareFormat::kText).find('\x1b'), std::string::npos);
}

TEST(NoPmuOutputs, CompareNamesTheRegionsAndShowsSoftwareRatios) {
  const RunData data = NoPmuRun();
  const RunAnalysis analysis = NoTree();
  const auto columns = InnerAndOuter(data, analysis);
  EXPECT_EQ(columns[1].region, "outer/inner");
  EXPECT_EQ(columns[1].run, "app (pid 77)");
  EXPECT_EQ(columns[1].tree, nullptr);
  const std::string text = FormatComparison(columns, CompareFormat::kText);
  EXPECT_NE(text.find("outer = region outer of app (pid 77)\ninner = region outer/inner of app (pid 77)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Speedup                     1.00      1.33\n"), std::string::npos) << text;
  EXPECT_NE(text.find("task-clock               1.90 ms   1.50 ms\ntask-clock ratio            1.00      0.79\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CPUs                        0.95      1.00\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cpu-migrations ratio        1.00      1.00\n"), std::string::npos) << text;
  EXPECT_NE(text.find("(no Top-Down tree: these runs hold no hardware counts; speedup, calls and software "
                      "counters only)"),
            std::string::npos)
      << text;

  const std::string csv = FormatComparison(columns, CompareFormat::kCsv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "row,outer,inner");
  EXPECT_NE(csv.find("\nWall time,2000000,1500000\nCalls,3,4\ntask-clock,1900000,1500000\n"
                     "task-clock ratio,1.00,0.79\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nregion,outer,outer/inner\nrun,app (pid 77),app (pid 77)\n"), std::string::npos) << csv;

  const std::string html = FormatComparison(columns, CompareFormat::kHtml);
  EXPECT_NE(html.find("<tr class=\"what\"><th>region</th><th>outer</th><th>outer/inner</th></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td style=\"padding-left:0.8em\">task-clock ratio</td><td>1.00</td><td>0.79</td>"),
            std::string::npos)
      << html;
}

TEST(NoPmuOutputs, CompareRatioOfAZeroBaseIsNotMade) {
  RunData data = NoPmuRun();
  data.regions[0].threads[0].events[1] = {0, 0};  // outer: task-clock 0
  const RunAnalysis analysis = NoTree();
  const std::string csv = FormatComparison(InnerAndOuter(data, analysis), CompareFormat::kCsv);
  EXPECT_NE(csv.find("\ntask-clock ratio,,\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace td

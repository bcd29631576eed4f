// The text report: the region tree with threads and what was not measured,
// durations and thousands, names escaped, and its folding
// (TextReportOptions::max_regions): which regions it keeps, the line for the
// rest, and the per-thread rows of many threads.
#include "runtime/base/text_format.h"
#include "runtime/report/text_report.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "runtime/base/byte_strings.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::OddRun;
using sample_runs::TwoThreadRun;

// main (900 ms) holds 40 leaves; leaf k runs (k + 1) ms, so the ten longest
// regions are main and leaves 39 … 31. Each of `threads` threads ran every
// region once.
RunData Wide(size_t threads) {
  RunData data;
  data.program = {"app", 7, {"./app"}, 0, 1'000'000'000};
  data.backend = "none";
  for (size_t t = 0; t < threads; ++t)
    data.threads.push_back({static_cast<uint32_t>(t), 100 + static_cast<int>(t), false, false, ""});
  Region main_region;
  main_region.name = main_region.path = main_region.base_name = "main";
  for (size_t t = 0; t < threads; ++t)
    main_region.threads.push_back({static_cast<uint32_t>(t), 1, 0, 0, 0, 900'000'000, 80'000'000, {}, {}});
  data.regions.push_back(main_region);
  for (int k = 0; k < 40; ++k) {
    Region leaf;
    leaf.name = leaf.base_name = absl::StrFormat("leaf%02d", k);
    leaf.path = "main/" + leaf.name;
    leaf.parent = 0;
    const int64_t ns = (k + 1) * 1'000'000;
    for (size_t t = 0; t < threads; ++t) leaf.threads.push_back({static_cast<uint32_t>(t), 1, 0, 0, 0, ns, ns, {}, {}});
    data.regions[0].children.push_back(static_cast<int>(data.regions.size()));
    data.regions.push_back(leaf);
  }
  return data;
}

bool Contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(TextReportFolding, KeepsTheLongestRegionsAndWhatContainsThem) {
  const RunData data = Wide(1);
  TextReportOptions options;
  options.max_regions = 10;
  const std::vector<bool> shown = ShownRegions(data, options);
  EXPECT_TRUE(shown[0]) << "main is the longest";
  for (int k = 0; k < 40; ++k) EXPECT_EQ(shown[1 + k], k >= 31) << "leaf" << k;
  const std::string text = FormatTextReport(data, nullptr, options);
  EXPECT_TRUE(Contains(text, "leaf39")) << text;
  EXPECT_TRUE(Contains(text, "leaf31")) << text;
  EXPECT_FALSE(Contains(text, "leaf30")) << text;
  EXPECT_TRUE(Contains(text, "… 31 more regions, none longer than 31.00 ms inclusive")) << text;
}

TEST(TextReportFolding, ARegionFarDownBringsItsAncestors) {
  RunData data = Wide(1);
  // leaf00 gets a child longer than everything but main.
  Region deep;
  deep.name = deep.base_name = "deep";
  deep.path = "main/leaf00/deep";
  deep.parent = 1;
  deep.threads.push_back({0, 1, 0, 0, 0, 500'000'000, 500'000'000, {}, {}});
  data.regions[1].children.push_back(static_cast<int>(data.regions.size()));
  data.regions.push_back(deep);
  TextReportOptions options;
  options.max_regions = 2;
  const std::vector<bool> shown = ShownRegions(data, options);
  EXPECT_TRUE(shown[0]);
  EXPECT_TRUE(shown[1]) << "leaf00 contains deep";
  EXPECT_TRUE(shown[41]);
  EXPECT_EQ(std::count(shown.begin(), shown.end(), true), 3);
}

TEST(TextReportFolding, ZeroAndSmallRunsShowEverything) {
  const RunData data = Wide(1);
  TextReportOptions options;
  const std::vector<bool> all = ShownRegions(data, options);
  EXPECT_EQ(std::count(all.begin(), all.end(), true), 41);
  options.max_regions = 41;
  EXPECT_FALSE(Contains(FormatTextReport(data, nullptr, options), "more regions")) << "nothing to fold";
}

TEST(TextReportFolding, ManyThreadsLoseTheirRowsOnlyWhenFolded) {
  const RunData data = Wide(12);
  TextReportOptions options;
  options.max_regions = 5;
  const std::string folded = FormatTextReport(data, nullptr, options);
  EXPECT_FALSE(Contains(folded, "· thread 11")) << folded;
  EXPECT_TRUE(Contains(folded, "per-thread rows of the 12 threads left out")) << folded;
  options.max_regions = 0;
  const std::string full = FormatTextReport(data, nullptr, options);
  EXPECT_TRUE(Contains(full, "· thread 11"));
  EXPECT_FALSE(Contains(full, "left out"));
}

TEST(TextReport, ShowsTreeThreadsAndNotMeasured) {
  const std::string text = FormatTextReport(TwoThreadRun());
  EXPECT_NE(text.find("hardware counters unavailable: no hardware PMU here"), std::string::npos);
  EXPECT_NE(text.find("└─ inner"), std::string::npos) << text;
  EXPECT_NE(text.find("· thread 1"), std::string::npos) << text;
  EXPECT_NE(text.find("recursive calls 3"), std::string::npos) << text;
  EXPECT_NE(text.find("unterminated ×1"), std::string::npos) << text;
  EXPECT_NE(text.find("thread 1: counters not measured: EMFILE"), std::string::npos) << text;
  EXPECT_NE(text.find("1 problem reported"), std::string::npos) << text;
  // outer: task-clock 1.90 ms over 2.00 ms wall -> 0.95 CPUs.
  EXPECT_NE(text.find("0.95"), std::string::npos) << text;
}

// A region run by several threads (an OpenMP team's) gets its spread over
// them, as the job view gives ranks': "outer" ran 2.00 ms on thread 0 and
// 1.50 ms on thread 1 (OpenMP 1).
TEST(TextReport, RegionsOnSeveralThreadsShowTheirSpread) {
  RunData data = TwoThreadRun();
  data.threads[1].openmp_thread = 1;
  data.regions[0].threads[1].wall_inclusive_ns = 2'500'000;  // thread 1 the slowest now
  const std::string text = FormatTextReport(data);
  const size_t at = text.find("\nacross threads (imbalance = the slowest thread's wall time / the mean");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string section = text.substr(at, text.find("\n\n", at + 1) - at);
  EXPECT_NE(section.find("outer"), std::string::npos) << section;
  EXPECT_NE(section.find("2.00 ms    2.25 ms    2.50 ms      1.11  thread 1 (OpenMP 1)"), std::string::npos) << section;
  EXPECT_EQ(section.find("inner"), std::string::npos) << "inner ran on one thread:\n" << section;
  EXPECT_NE(text.find("1=tid 101 (OpenMP 1) (exited early)"), std::string::npos) << text;
  RunData one = TwoThreadRun();
  one.regions[0].threads.pop_back();
  EXPECT_EQ(FormatTextReport(one).find("across threads"), std::string::npos) << "no region on several threads";
}

TEST(TextReport, Formatting) {
  EXPECT_EQ(HumanDuration(999), "999 ns");
  EXPECT_EQ(HumanDuration(12'345), "12.3 µs");
  EXPECT_EQ(HumanDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(HumanDuration(1'234'000'000), "1.234 s");
  EXPECT_EQ(WithThousands(0), "0");
  EXPECT_EQ(WithThousands(1234567), "1,234,567");
  EXPECT_EQ(WithThousands(100), "100");
}

TEST(TextReport, ControlBytesInNamesAreEscaped) {
  const std::string text = FormatTextReport(OddRun());
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("a/b\\x1b"), std::string::npos) << text;
  EXPECT_NE(text.find("\\xff\\xfe"), std::string::npos) << text;
  EXPECT_NE(text.find("prog\\xe9"), std::string::npos) << text;
  EXPECT_TRUE(IsValidUtf8(text));
}

}  // namespace
}  // namespace td

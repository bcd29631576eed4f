#include "runtime/machine/bandwidth_calibration.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(Calibration, TriadComputesAndReportsWhatItMeasured) {
  auto cal = MeasureTriad(2, size_t{1} << 20, 3, 0.0);  // small: checks the mechanics, not the peak
  ASSERT_TRUE(cal.ok()) << cal.status();
  EXPECT_EQ(cal->max_threads, 2);
  EXPECT_EQ(cal->array_bytes, size_t{1} << 20);
  EXPECT_EQ(cal->repetitions, 3);
  EXPECT_GT(cal->triad_gbps, 0.0);
  EXPECT_EQ(cal->hostname, DescribeThisMachine().hostname);
  EXPECT_FALSE(MeasureTriad(0, size_t{1} << 20, 3, 0.0).ok());
  EXPECT_FALSE(RunTriad(1, size_t{1} << 20, 0, 0.0).ok());
  // At least 256 MiB, unless an eighth of the memory is less.
  const size_t memory = static_cast<size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
  EXPECT_GE(DefaultTriadArrayBytes(), std::min(size_t{256} << 20, memory / 8 >> 20 << 20));
  EXPECT_EQ(DefaultTriadArrayBytes() % (size_t{1} << 20), 0u) << "whole MiB, as td calibrate prints them";
}

TEST(Calibration, CountsThreeArraysOfDoublesPerPass) {
  // STREAM's convention: b and c read, a written; a's write-allocate read is not counted.
  EXPECT_EQ(kTriadBytesPerElement, 24u);
  EXPECT_EQ(TriadBytesCounted(size_t{1} << 20), size_t{3} << 20);
  EXPECT_EQ(TriadBytesCounted((size_t{1} << 20) + 7), size_t{3} << 20) << "only whole doubles are streamed";
  auto run = RunTriad(1, (size_t{1} << 20) + 7, 2, 0.0);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->threads, 1);
  EXPECT_EQ(run->passes, 2);
  EXPECT_GT(run->best_seconds, 0.0);
  EXPECT_DOUBLE_EQ(run->gbps, 3.0 * (1 << 20) / run->best_seconds / 1e9);
}

TEST(Calibration, PassesGoOnUntilTheTimeFloorWithinTheCap) {
  // Every thread agrees on each extra pass (a disagreement would hang at the barrier).
  auto exact = RunTriad(2, 4096 * 2, 5, 0.0);
  ASSERT_TRUE(exact.ok()) << exact.status();
  EXPECT_EQ(exact->passes, 5) << "no time floor: exactly the repetitions asked for";
  auto capped = RunTriad(2, 4096 * 2, 5, 1e9);
  ASSERT_TRUE(capped.ok()) << capped.status();
  EXPECT_EQ(capped->passes, kTriadMaxPasses) << "an unreachable floor stops at the cap";
  EXPECT_FALSE(RunTriad(1, 4096, kTriadMaxPasses + 1, 0.0).ok());
}

TEST(Calibration, ThreadSweepStartsWithOneThreadAndEndsWithAll) {
  EXPECT_EQ(TriadThreadCounts(1), std::vector<int>({1}));
  EXPECT_EQ(TriadThreadCounts(2), std::vector<int>({1, 2}));
  EXPECT_EQ(TriadThreadCounts(6), std::vector<int>({1, 2, 4, 6}));
  EXPECT_EQ(TriadThreadCounts(8), std::vector<int>({1, 2, 4, 8}));
  EXPECT_EQ(TriadThreadCounts(0), std::vector<int>({1}));
}

TEST(Calibration, PeakIsTheFastestConfigurationOneThreadIncluded) {
  auto cal = MeasureTriad(3, size_t{1} << 20, 2, 0.0);
  ASSERT_TRUE(cal.ok()) << cal.status();
  ASSERT_EQ(cal->runs.size(), 3u);
  EXPECT_EQ(cal->runs[0].threads, 1) << "a single thread is always measured";
  EXPECT_EQ(cal->runs[1].threads, 2);
  EXPECT_EQ(cal->runs[2].threads, 3);
  const TriadRun* fastest = &cal->runs[0];
  for (const TriadRun& r : cal->runs) {
    EXPECT_GE(cal->triad_gbps, r.gbps) << r.threads << " threads beat the peak";
    if (r.gbps > fastest->gbps) fastest = &r;
  }
  EXPECT_DOUBLE_EQ(cal->triad_gbps, fastest->gbps);
  EXPECT_EQ(cal->threads, fastest->threads);
}

TEST(Calibration, SavedPerMachineAndFoundAgain) {
  char dir[] = "/tmp/td-cal-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/td/calibration.json";
  const MachineInfo machine = DescribeThisMachine();
  EXPECT_FALSE(CachedPeakGbps(machine, path).has_value());
  Calibration cal;
  cal.hostname = machine.hostname;
  cal.cpu_model_name = machine.cpu_model_name;
  cal.triad_gbps = 42.5;
  cal.threads = 2;
  cal.max_threads = 2;
  cal.repetitions = 5;
  cal.runs = {{1, 17, 0.03, 40.0}, {2, 20, 0.025, 42.5}};
  ASSERT_TRUE(SaveCalibration(path, cal).ok());
  EXPECT_DOUBLE_EQ(CachedPeakGbps(machine, path).value(), 42.5);
  auto loaded = LoadCalibration(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->max_threads, 2);
  EXPECT_EQ(loaded->repetitions, 5);
  ASSERT_EQ(loaded->runs.size(), 2u);
  EXPECT_EQ(loaded->runs[0].threads, 1);
  EXPECT_EQ(loaded->runs[0].passes, 17);
  EXPECT_DOUBLE_EQ(loaded->runs[0].gbps, 40.0);
  MachineInfo elsewhere = machine;
  elsewhere.hostname += "-other";
  EXPECT_FALSE(CachedPeakGbps(elsewhere, path).has_value()) << "a peak belongs to its machine";
  std::filesystem::remove_all(dir);
}

TEST(Calibration, AFieldOfTheWrongTypeIsAnErrorNotACrash) {
  char dir[] = "/tmp/td-cal-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/calibration.json";
  for (const char* text : {R"({"triad_gbps": 40.0, "hostname": null})", R"({"triad_gbps": 40.0, "threads": "2"})",
                           R"({"triad_gbps": 40.0, "runs": [{"gbps": "fast"}]})",
                           // Numbers that are not ints where an int belongs: no conversion may see them.
                           R"({"triad_gbps": 40.0, "threads": 1e30})", R"({"triad_gbps": 40.0, "threads": 2.5})",
                           R"({"triad_gbps": 40.0, "array_bytes": -1})",
                           R"({"triad_gbps": 40.0, "runs": [{"threads": 1e300}]})"}) {
    std::ofstream(path) << text;
    const auto loaded = LoadCalibration(path);
    ASSERT_FALSE(loaded.ok()) << text;
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(loaded.status().message().find("td calibrate --refresh"), std::string::npos) << loaded.status();
  }
  std::ofstream(path) << R"({"triad_gbps": 40.0, "hostname": "h", "threads": 2})";
  const auto good = LoadCalibration(path);
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->hostname, "h");
  EXPECT_EQ(good->threads, 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace td

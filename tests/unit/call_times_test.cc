// Per-call times: the histogram's buckets (runtime/regions/call_times.h), a
// region's summary over its threads (runtime/recorded/call_time_summary.h),
// and the per-part "call_times" through both writers and both readers.
#include <cmath>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/recorded/call_time_summary.h"
#include "runtime/recorded/run_file.h"
#include "runtime/regions/call_times.h"
#include "runtime/report/call_times_text.h"
#include "runtime/report/csv_report.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

TEST(CallTimeBuckets, AQuarterOctaveEachFromOneTick) {
  EXPECT_EQ(CallTimeBucket(1), 0u);
  EXPECT_EQ(CallTimeBucket(2), 4u);
  EXPECT_EQ(CallTimeBucket(1000), 39u);  // 2^9 × 1.953: octave 9, quarter 3
  EXPECT_EQ(CallTimeBucket(1024), 40u);
  EXPECT_EQ(CallTimeBucket(1279), 40u);
  EXPECT_EQ(CallTimeBucket(1280), 41u);  // 1024 × 1.25
  EXPECT_EQ(CallTimeBucket(INT64_MAX), 252u);
  EXPECT_EQ(CallTimeBucket(-1000), CallTimeBucket(1000)) << "a clock that ran backwards: its magnitude's bucket";
  for (uint32_t b = 0; b + 1 < kCallTimeBuckets; ++b) {
    const double start = CallTimeBucketStart(b);
    EXPECT_DOUBLE_EQ(CallTimeBucketEnd(b), CallTimeBucketStart(b + 1));
    if (start >= 8 && start < 1e18) EXPECT_EQ(CallTimeBucket(static_cast<int64_t>(start)), b) << start;
    // Exact below 2^24 ticks; above, a float rounds a value within 2^-24 of
    // its own below the edge up to it.
    if (start >= 8 && start <= (1 << 24)) EXPECT_EQ(CallTimeBucket(static_cast<int64_t>(start) - 1), b - 1) << start;
  }
}

TEST(CallTimeBuckets, TicksToNanosecondsKeepEveryCallAndItsTime) {
  CallTimeHistogram ticks{};
  // 10 calls of 2,000 ticks and 3 of 50,000 at 0.25 ns a tick: 500 ns and 12.5 µs.
  ticks.counts[CallTimeSlot(2000)] = 10;
  ticks.ticks[CallTimeSlot(2000)] = 20'000;
  ticks.counts[CallTimeSlot(50'000)] = 3;
  ticks.ticks[CallTimeSlot(50'000)] = 150'000;
  const CallTimeCounts ns = CallTimesInNs(ticks, 0.25);
  ASSERT_EQ(ns.size(), 2u);
  EXPECT_EQ(ns[0], (CallTimeBucketTotal{CallTimeBucket(500), 10, 5'000}));
  EXPECT_EQ(ns[1], (CallTimeBucketTotal{CallTimeBucket(12'500), 3, 37'500}));
  // Identity: the same buckets.
  const CallTimeCounts same = CallTimesInNs(ticks, 1.0);
  EXPECT_EQ(same[0], (CallTimeBucketTotal{CallTimeBucket(2000), 10, 20'000}));
  EXPECT_TRUE(CallTimeCountsValid(ns));
  // A thread keeps bucket b in slot b - 4 (mod 256): calls of one tick
  // (bucket 0, slot 252) still come out first.
  EXPECT_EQ(CallTimeBucket(1), 0u);
  EXPECT_EQ(CallTimeSlot(1), 252u);
  EXPECT_EQ(SlotOfBucket(CallTimeBucket(2000)), CallTimeSlot(2000));
  ticks.counts[CallTimeSlot(1)] = 4;
  ticks.ticks[CallTimeSlot(1)] = 4;
  const CallTimeCounts with_short = CallTimesInNs(ticks, 1.0);
  ASSERT_EQ(with_short.size(), 3u);
  EXPECT_EQ(with_short[0], (CallTimeBucketTotal{0, 4, 4}));
  EXPECT_EQ(with_short[1], (CallTimeBucketTotal{CallTimeBucket(2000), 10, 20'000}));
  EXPECT_TRUE(CallTimeCountsValid(with_short));
  EXPECT_FALSE(CallTimeCountsValid({{5, 1, 10}, {5, 1, 10}})) << "a bucket twice";
  EXPECT_FALSE(CallTimeCountsValid({{5, 0, 10}})) << "no calls";
  EXPECT_FALSE(CallTimeCountsValid({{256, 1, 10}})) << "past the last bucket";
}

// A region on two threads: 95 calls of 1 ms and 5 of 10 ms in all.
RunData PlantedRun() {
  RunData run = sample_runs::TwoThreadRun();
  Region& outer = run.regions[0];
  outer.threads[0].calls = 60;
  outer.threads[0].wall_inclusive_ns = 57'000'000 + 30'000'000;
  outer.threads[0].call_times = {{CallTimeBucket(1'000'000), 57, 57'000'000}, {CallTimeBucket(10'000'000), 3, 30'000'000}};
  outer.threads[1].calls = 40;
  outer.threads[1].wall_inclusive_ns = 38'000'000 + 20'000'000;
  outer.threads[1].call_times = {{CallTimeBucket(1'000'000), 38, 38'000'000}, {CallTimeBucket(10'000'000), 2, 20'000'000}};
  return run;
}

TEST(CallTimeSummary, PlantedTailOverTwoThreads) {
  const RunData run = PlantedRun();
  const std::optional<CallTimeSummary> s = RegionCallTimes(run, run.regions[0]);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->calls, 100u);
  EXPECT_DOUBLE_EQ(s->min_ns, 1e6);
  EXPECT_DOUBLE_EQ(s->median_ns, 1e6);
  EXPECT_DOUBLE_EQ(s->p95_ns, 1e6) << "the 95th of 100 calls is a 1 ms one";
  EXPECT_DOUBLE_EQ(s->max_ns, 1e7);
  EXPECT_DOUBLE_EQ(s->mean_ns, 1.45e6);
  EXPECT_EQ(s->calls_over_twice_median, 5u);
  EXPECT_TRUE(CallTimesWorthShowing(*s)) << "max ≥ 4 × median";
  // inner: 4 calls, 3 of them recursive, one outermost: that call alone.
  const std::optional<CallTimeSummary> inner = RegionCallTimes(run, run.regions[1]);
  ASSERT_TRUE(inner.has_value());
  EXPECT_EQ(inner->calls, 1u);
  EXPECT_DOUBLE_EQ(inner->median_ns, 1.5e6);
  EXPECT_FALSE(CallTimesWorthShowing(*inner));
}

TEST(CallTimeSummary, TdsCostIsTakenFromEachCall) {
  RunData run = PlantedRun();
  for (RegionOnThread& t : run.regions[0].threads) t.call_time_taken_out_ns = 200;
  const std::optional<CallTimeSummary> s = RegionCallTimes(run, run.regions[0]);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->min_ns, 1e6 - 200);
  EXPECT_DOUBLE_EQ(s->max_ns, 1e7 - 200);
}

TEST(CallTimeSummary, NoneWhereAThreadsCallsAreNotAllThere) {
  RunData run = PlantedRun();
  run.regions[0].threads[1].call_times.clear();  // a file from before histograms
  EXPECT_FALSE(RegionCallTimes(run, run.regions[0]).has_value());
  run = PlantedRun();
  run.regions[0].threads[0].calls = 60 + (uint64_t{1} << 32);  // a 32-bit bucket that wrapped
  EXPECT_FALSE(RegionCallTimes(run, run.regions[0]).has_value());
}

// A periodic flush copies a thread while it records: its histogram may hold
// a call its `calls` does not yet; kept, not dropped.
TEST(CallTimeSummary, ACopysCallOrTwoMoreIsKept) {
  RunData run = PlantedRun();
  run.regions[0].threads[0].calls = 59;
  const std::optional<CallTimeSummary> s = RegionCallTimes(run, run.regions[0]);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->calls, 100u) << "the histograms' calls";
}

TEST(CallTimeSummary, OneBucketTailIsNotShown) {
  RunData run = PlantedRun();
  run.regions[0].threads[0].call_times = {{CallTimeBucket(1'000'000), 60, 61'000'000}};
  run.regions[0].threads[1].call_times = {{CallTimeBucket(1'000'000), 40, 40'000'000}};
  const std::optional<CallTimeSummary> s = RegionCallTimes(run, run.regions[0]);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(CallTimesWorthShowing(*s));
  const std::string text = FormatCallTimesSection(run, {true, true});
  EXPECT_EQ(text, "") << "nothing to say: every call within a quarter octave";
}

TEST(CallTimeSummary, OutputsCarryTheValues) {
  const RunData run = PlantedRun();
  const std::string text = FormatCallTimesSection(run, {true, true});
  EXPECT_NE(text.find("\n  outer                          100    1.00 ms    1.00 ms    1.00 ms   10.00 ms  5 (5.0%)\n"),
            std::string::npos)
      << text;
  const nlohmann::json j = CallTimesJson(*RegionCallTimes(run, run.regions[0]));
  EXPECT_EQ(j["calls"], 100);
  EXPECT_EQ(j["max_ns"], 1e7);
  EXPECT_EQ(j["varies"], true);
  const std::string csv = FormatCsvReport(run, nullptr);
  EXPECT_NE(csv.find("\nouter,call_times,p95_ns,1000000,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nouter,call_times,calls_over_twice_median,5,0,0\n"), std::string::npos) << csv;
}

TEST(CallTimesInFiles, BothWritersAndBothReadersAgree) {
  const RunData run = PlantedRun();
  const std::string text = RunFileText(run);
  EXPECT_NE(text.find("\"call_times\":[[" + std::to_string(CallTimeBucket(1'000'000)) + ",57,57000000],["),
            std::string::npos)
      << text;
  EXPECT_EQ(nlohmann::json::parse(text), RunToJson(run)) << "the streaming writer writes what the tree writer does";
  absl::StatusOr<RunData> full = RunFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->regions[0].threads[1].call_times, run.regions[0].threads[1].call_times);
  std::optional<RunData> scanned = ScanRunText(text);
  ASSERT_TRUE(scanned.has_value());
  EXPECT_EQ(scanned->regions[0].threads[0].call_times, run.regions[0].threads[0].call_times);

  nlohmann::json bad = RunToJson(run);
  bad["regions"][0]["threads"][0]["call_times"] = {{3, 1, 5}, {2, 1, 5}};
  const absl::StatusOr<RunData> refused = RunFromJson(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("regions[0].threads[0].call_times"), std::string::npos) << refused.status();
  EXPECT_FALSE(ScanRunText(bad.dump()).has_value());
}

}  // namespace
}  // namespace td

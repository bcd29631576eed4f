// A thread's per-call histograms (ThreadState, runtime/regions/call_times.h):
// made at a node's second read call with its first call in it, carried by
// the periodic flush's copy, emptied by ResetRegion, and freed with the
// nodes once finalize has merged the thread (ReleaseRecording).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/recorded/call_time_summary.h"
#include "runtime/recorded/merge_threads.h"
#include "runtime/regions/marker_forms.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/thread_state.h"

namespace td {
namespace {

RunData Merged(const ThreadState& thread, const RegionRegistry& registry, bool release = false) {
  RunData data;
  data.layout = SoftwareLayout();
  ThreadRecord record = thread.Record();
  if (release) record.release = [&thread] { const_cast<ThreadState&>(thread).ReleaseRecording(); };
  MergeThreads({record}, registry.AllNames(), &data);
  return data;
}

const Region* Named(const RunData& data, const std::string& name) {
  for (const Region& r : data.regions) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

uint64_t HistogramCalls(const Region& region) {
  uint64_t calls = 0;
  for (const CallTimeBucketTotal& b : region.threads[0].call_times) calls += b.calls;
  return calls;
}

TEST(ThreadCallTimes, ASecondCallMakesTheHistogramWithTheFirstInIt) {
  RegionRegistry registry;
  ThreadState state(0, 1, nullptr, 0, "", &registry);
  const uint32_t loop = registry.IdForName("loop");
  const uint32_t once = registry.IdForName("once");
  td_site site{"t", "test.cc", 1, 0, 0};
  for (int i = 0; i < 7; ++i) {
    state.Begin(loop, &site);
    state.End(loop, &site);
  }
  state.Begin(once, &site);
  state.End(once, &site);
  const RunData data = Merged(state, registry);
  const Region* looped = Named(data, "loop");
  ASSERT_NE(looped, nullptr);
  EXPECT_EQ(HistogramCalls(*looped), 7u) << "every read call, the first included";
  int64_t ns = 0;
  for (const CallTimeBucketTotal& b : looped->threads[0].call_times) ns += b.ns;
  EXPECT_NEAR(static_cast<double>(ns), static_cast<double>(looped->threads[0].wall_inclusive_ns), 7.0)
      << "the buckets' times add up to the inclusive time (rounding: under 1 ns a bucket)";
  const std::optional<CallTimeSummary> summary = RegionCallTimes(data, *looped);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->calls, 7u);
  EXPECT_LE(summary->min_ns, summary->median_ns);
  EXPECT_LE(summary->median_ns, summary->max_ns);
  const Region* single = Named(data, "once");
  ASSERT_NE(single, nullptr);
  EXPECT_TRUE(single->threads[0].call_times.empty()) << "one call: its time is the inclusive one";
  ASSERT_TRUE(RegionCallTimes(data, *single).has_value());
  EXPECT_EQ(RegionCallTimes(data, *single)->calls, 1u);

  // The periodic flush's copy carries the histograms.
  const std::unique_ptr<ThreadState> copy = state.CopyWhileRecording();
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(HistogramCalls(*Named(Merged(*copy, registry), "loop")), 7u);

  // ResetRegion forgets them with the totals; calls from then on count.
  ASSERT_TRUE(state.ResetRegion(loop));
  state.Begin(loop, &site);
  state.End(loop, &site);
  state.Begin(loop, &site);
  state.End(loop, &site);
  EXPECT_EQ(HistogramCalls(*Named(Merged(state, registry), "loop")), 2u);
  // A region reset after one call starts again from its first.
  ASSERT_TRUE(state.ResetRegion(once));
  state.Begin(once, &site);
  state.End(once, &site);
  EXPECT_TRUE(Named(Merged(state, registry), "once")->threads[0].call_times.empty());
  state.Begin(once, &site);
  state.End(once, &site);
  EXPECT_EQ(HistogramCalls(*Named(Merged(state, registry), "once")), 2u);
}

TEST(ThreadCallTimes, FinalizeReleasesTheNodesOnceMerged) {
  RegionRegistry registry;
  ThreadState state(0, 1, nullptr, 0, "", &registry);
  const uint32_t loop = registry.IdForName("loop");
  td_site site{"t", "test.cc", 1, 0, 0};
  for (int i = 0; i < 3; ++i) {
    state.Begin(loop, &site);
    state.End(loop, &site);
  }
  const RunData data = Merged(state, registry, /*release=*/true);
  ASSERT_NE(Named(data, "loop"), nullptr);
  EXPECT_EQ(Named(data, "loop")->threads[0].calls, 3u) << "merged before the release";
  EXPECT_EQ(state.nodes().size(), 1u) << "only the thread's own node is left";
  EXPECT_TRUE(Merged(state, registry).regions.empty());
}

}  // namespace
}  // namespace td

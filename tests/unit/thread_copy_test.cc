// ThreadState::CopyWhileRecording (runtime/regions/thread_state.h), the
// periodic flush's copy, taken from another thread while the owner records.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/recorded/merge_threads.h"
#include "runtime/regions/marker_forms.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/thread_state.h"

namespace td {
namespace {

// One thread records new regions (its node and frame vectors growing) while
// this one copies it over and over: every copy is a run whose calls never
// exceed what the thread made, and the copy after the thread stopped is exact.
TEST(ThreadStateCopy, CopiesWhileTheThreadGrowsItsVectorsAreConsistent) {
  RegionRegistry registry;
  ThreadState state(0, 1, nullptr, 0, "", &registry);
  constexpr int kNames = 3000;
  constexpr int kPairs = 60000;
  std::vector<uint32_t> outer;
  for (int n = 0; n < kNames; ++n) outer.push_back(registry.IdForName("outer" + std::to_string(n)));
  const uint32_t inner = registry.IdForName("inner");
  td_site site{"t", "test.cc", 1, 0, 0};
  std::atomic<bool> done{false};
  std::thread recorder([&] {
    for (int i = 0; i < kPairs; ++i) {
      state.Begin(outer[i % kNames], &site);
      state.Begin(inner, &site);
      state.End(inner, &site);
      state.End(outer[i % kNames], &site);
    }
    done = true;
  });
  int copies = 0;
  const auto calls_of_inner = [&](const ThreadState& thread) {
    RunData data;
    data.layout = SoftwareLayout();
    MergeThreads({thread.Record()}, registry.AllNames(), &data);
    uint64_t calls = 0;
    for (const Region& r : data.regions) {
      if (r.name != "inner") continue;
      calls += r.threads[0].calls;
      EXPECT_GE(r.threads[0].wall_exclusive_ns, 0);
    }
    return calls;
  };
  while (!done.load()) {
    const std::unique_ptr<ThreadState> copy = state.CopyWhileRecording();
    ASSERT_NE(copy, nullptr);
    EXPECT_LE(calls_of_inner(*copy), uint64_t{kPairs});
    ++copies;
  }
  recorder.join();
  EXPECT_GE(copies, 1);
  EXPECT_EQ(calls_of_inner(*state.CopyWhileRecording()), uint64_t{kPairs});
}

}  // namespace
}  // namespace td

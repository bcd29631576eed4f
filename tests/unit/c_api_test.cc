// The C markers (runtime/driver/c_api.cc) on a PMU host with rdpmc, on fake
// pages: the gate sends them to the user-read form made for the thread's
// group, which counts exactly, also when the kernel updates a page between
// or inside regions. Its own executable: it drives the process's runtime.
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/driver/marker_handshake.h"
#include "runtime/driver/runtime.h"
#include "runtime/counters/perf_event_backend.h"
#include "td/td.h"
#include "tests/support/fake_pmu.h"

namespace td {
namespace {

TEST(CMarkers, OnPagesReadInUserSpaceTheyTakeTheFormMadeForTheGroupAndCountExactly) {
  setenv("TD_OUTPUT", "none", 1);
  setenv("TD_JSON", "0", 1);
  setenv("TD_QUIET", "1", 1);
  fake_pmu::Reset();
  const CounterLayout layout = TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(5));
  ASSERT_EQ(layout.groups.size(), 2u) << "the derived task-clock, then the five events";
  Runtime::Get().UseBackend(
      MakePerfEventBackend(layout, Availability{}, &fake_pmu::Open, UserReads::kAlways, fake_pmu::Seams()));
  TD_REGION_BEGIN("pair");
  TD_REGION_END("pair");
  ThreadState* thread = t_thread_state;
  ASSERT_NE(thread, nullptr);
  if (!thread->user_read_path()) GTEST_SKIP() << "the user-read form needs the TSC as the marker clock";
  EXPECT_EQ(g_marker_gate.load(), static_cast<int>(MarkerForm::kUserRead));
  EXPECT_EQ(thread->made_forms().members, 5u) << "the forms made for the thread's group";
  EXPECT_EQ(thread->made_forms().group_word, 4) << "after the derived task-clock's four words";

  constexpr uint64_t kPairs = 1000;
  constexpr uint64_t kNs = 7;  // counter i advances (i + 1) × 7 per pair, time enabled 7 ns
  for (uint64_t i = 0; i < kPairs; ++i) {
    // The kernel updates a page: between regions (BEGIN finds the lock
    // moved), or inside one (END does); the counts stay where they were.
    if (i % 10 == 3) fake_pmu::UpdatePage(i % 5, [](perf_event_mmap_page&) {});
    TD_REGION_BEGIN("pair");
    fake_pmu::Advance(kNs);
    if (i % 10 == 7) fake_pmu::UpdatePage(i % 5, [](perf_event_mmap_page&) {});
    TD_REGION_END("pair");
  }
  EXPECT_EQ(fake_pmu::Pmu().kernel_reads, 0u);
  ASSERT_EQ(thread->nodes().size(), 2u) << "the thread and pair";
  EXPECT_EQ(thread->nodes()[1].calls, kPairs + 1);
  const NodeTotals totals = thread->ComputeTotals();
  const uint64_t* words = totals.inclusive_words.data() + layout.words;
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(words[layout.ValueWord(1, i)], kPairs * kNs * (i + 1)) << "event" << i;
  EXPECT_EQ(words[layout.groups[1].word_offset + 1], kPairs * kNs) << "the group's time enabled";
  EXPECT_EQ(words[layout.ValueWord(0, 0)], kPairs * kNs) << "task-clock, from the group's time enabled";
  int64_t wall_ns = 0;
  std::vector<uint64_t> ended(layout.words, 0);
  EXPECT_EQ(thread->EndedTotals(thread->nodes()[1].region, &wall_ns, ended.data()), kPairs + 1);
  EXPECT_EQ(ended[layout.ValueWord(0, 0)], kPairs * kNs) << "task-clock as the LIKWID compatibility reads it";
}

}  // namespace
}  // namespace td

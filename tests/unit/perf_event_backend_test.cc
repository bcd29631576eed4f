// The real perf_event_open path, with the software group every Linux has.
#include "runtime/counters/perf_event_backend.h"

#include <errno.h>
#include <sys/mman.h>

#include <chrono>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/counters/availability.h"

namespace td {
namespace {

std::unique_ptr<CounterBackend> SoftwareBackend() {
  return MakePerfEventBackend(SoftwareLayout(), Availability{}, &RealPerfEventOpen);
}

bool SoftwareCountersWork() {
  return ProbeMachine(&RealPerfEventOpen).software_errno == 0;
}

TEST(PerfEventBackend, LayoutMatchesTheKernelsGroupReadFormat) {
  const CounterLayout layout = SoftwareLayout();
  ASSERT_EQ(layout.groups.size(), 1u);
  EXPECT_EQ(layout.events.size(), 4u);
  EXPECT_EQ(layout.words, 3u + 4u);
  EXPECT_EQ(layout.events[0].name, "page-faults");
  EXPECT_EQ(layout.events[1].name, "task-clock");
  EXPECT_EQ(layout.events[2].name, "context-switches");
  EXPECT_EQ(layout.ValueWord(0, 1), 4u);
}

TEST(PerfEventBackend, ReadsAGroupOfSoftwareEvents) {
  if (!SoftwareCountersWork()) GTEST_SKIP() << "skipped: perf_event_open is not usable here";
  auto backend = SoftwareBackend();
  auto counters = backend->OpenForCurrentThread();
  ASSERT_TRUE(counters.ok()) << counters.status();
  std::vector<uint64_t> before(backend->layout().words), after(before.size());
  ASSERT_TRUE((*counters)->Read(before.data()));
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  volatile double x = 1;
  while (std::chrono::steady_clock::now() < end) x = x * 1.000001;
  const size_t bytes = 4 << 20;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  madvise(memory, bytes, MADV_NOHUGEPAGE);
  for (size_t i = 0; i < bytes; i += 4096) static_cast<volatile char*>(memory)[i] = 1;
  ASSERT_TRUE((*counters)->Read(after.data()));
  munmap(memory, bytes);
  EXPECT_EQ(after[0], 4u) << "nr";
  const uint64_t faults = after[3] - before[3];
  const uint64_t task_clock = after[4] - before[4];
  EXPECT_GE(task_clock, 15'000'000u);
  EXPECT_GE(faults, 1024u);
  // Software events are never multiplexed: running == enabled.
  EXPECT_EQ(after[1] - before[1], after[2] - before[2]);
}

int g_calls = 0;
int RefusingOpen(perf_event_attr*, pid_t, int, int, unsigned long) {
  ++g_calls;
  errno = EMFILE;
  return -1;
}

TEST(PerfEventBackend, OpenFailureIsAStatusNamingTheEvent) {
  auto backend = MakePerfEventBackend(SoftwareLayout(), Availability{}, &RefusingOpen);
  auto counters = backend->OpenForCurrentThread();
  ASSERT_FALSE(counters.ok());
  EXPECT_EQ(counters.status().message(),
            "perf_event_open(page-faults) failed with EMFILE (Too many open files)");
  EXPECT_EQ(g_calls, 1);
}

}  // namespace
}  // namespace td

// The real perf_event_open path, with the software group every Linux has.
#include "runtime/counters/perf_event_backend.h"

#include <errno.h>
#include <sys/mman.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/counters/availability.h"

namespace td {
namespace {

std::unique_ptr<CounterBackend> SoftwareBackend() {
  return MakePerfEventBackend(SoftwareLayout(), Availability{}, &RealPerfEventOpen);
}

// Burns `duration` of this thread's CPU time, so a loaded machine cannot
// shrink the task-clock the tests expect (spinning on wall time could).
void SpinFor(std::chrono::milliseconds duration) {
  auto cpu_ns = [] {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  };
  const int64_t end = cpu_ns() + std::chrono::nanoseconds(duration).count();
  volatile double x = 1;
  while (cpu_ns() < end) x = x * 1.000001;
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
  SpinFor(std::chrono::milliseconds(20));
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

// The mmap path against the real kernel: a software event's page has no
// user-readable counter, so every marker read falls back to read() and the
// counts are the same as without pages.
TEST(PerfEventBackend, MappedSoftwareGroupFallsBackToReadWithTheSameCounts) {
  if (!SoftwareCountersWork()) GTEST_SKIP() << "skipped: perf_event_open is not usable here";
  auto backend = MakePerfEventBackend(SoftwareLayout(), Availability{}, &RealPerfEventOpen, UserReads::kAlways);
  auto counters = backend->OpenForCurrentThread();
  ASSERT_TRUE(counters.ok()) << counters.status();
  std::vector<uint64_t> before(backend->layout().words), after(before.size());
  ASSERT_TRUE((*counters)->Read(before.data()));
  SpinFor(std::chrono::milliseconds(20));
  ASSERT_TRUE((*counters)->Read(after.data()));
  EXPECT_EQ(after[0], 4u);
  EXPECT_GE(after[4] - before[4], 15'000'000u) << "task-clock through the fallback";
  EXPECT_EQ((*counters)->mapped_groups(), 1u);
  EXPECT_EQ((*counters)->user_reads(), 0u);
  EXPECT_EQ((*counters)->fallback_reads(), 2u);
}

TEST(PerfEventBackend, SoftwareGroupsAreNotMappedByDefault) {
  if (!SoftwareCountersWork()) GTEST_SKIP() << "skipped: perf_event_open is not usable here";
  auto backend = SoftwareBackend();
  auto counters = backend->OpenForCurrentThread();
  ASSERT_TRUE(counters.ok()) << counters.status();
  std::vector<uint64_t> snapshot(backend->layout().words);
  ASSERT_TRUE((*counters)->Read(snapshot.data()));
  EXPECT_EQ((*counters)->mapped_groups(), 0u) << "their pages have no user-readable counter";
  EXPECT_EQ((*counters)->fallback_reads(), 0u);
}

struct OpenCall {
  pid_t pid;
  int cpu;
  bool exclude_hv;
};
std::vector<OpenCall> g_opens;
int RecordingOpen(perf_event_attr* attr, pid_t pid, int cpu, int, unsigned long) {
  g_opens.push_back({pid, cpu, attr->exclude_hv != 0});
  return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

// A socket-wide memory-controller group is opened once per process, by the
// first thread, with pid -1 on its CPU and no privilege filter.
TEST(PerfEventBackend, SocketWideGroupsOpenOnTheFirstThreadOnly) {
  CounterLayout layout = SoftwareLayout();
  EventInfo imc;
  imc.name = "uncore_imc_0.read@cpu3";
  imc.perf_type = 13;
  imc.perf_config = 0x0304;
  imc.hardware = true;
  imc.cpu = 3;
  imc.bytes_per_count = 64;
  imc.traffic = "read";
  layout.AddGroup({imc});
  auto backend = MakePerfEventBackend(layout, Availability{}, &RecordingOpen);
  g_opens.clear();
  ASSERT_TRUE(backend->OpenForCurrentThread().ok());
  ASSERT_EQ(g_opens.size(), 5u) << "4 software events + the controller";
  EXPECT_EQ(g_opens[0].pid, 0);
  EXPECT_EQ(g_opens[0].cpu, -1);
  EXPECT_TRUE(g_opens[0].exclude_hv);
  EXPECT_EQ(g_opens[4].pid, -1);
  EXPECT_EQ(g_opens[4].cpu, 3);
  EXPECT_FALSE(g_opens[4].exclude_hv) << "uncore PMUs reject privilege filters";
  std::thread second([&] { ASSERT_TRUE(backend->OpenForCurrentThread().ok()); });
  second.join();
  EXPECT_EQ(g_opens.size(), 9u) << "the second thread opens only its own software group";
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

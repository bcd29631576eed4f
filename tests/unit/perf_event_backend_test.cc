// The real perf_event_open path, with the software group every Linux has.
#include "runtime/counters/perf_event_backend.h"
#include "runtime/counters/sole_user_read.h"

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
#include "runtime/recorded/merge_threads.h"
#include "runtime/regions/marker_forms.h"
#include "runtime/regions/thread_state.h"
#include "tests/support/fake_pmu.h"

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

// The software group alone is one read() of the whole snapshot: the markers
// make that call themselves. A mapped group, or a second group, is not.
TEST(PerfEventBackend, SoftwareGroupAloneIsOneKernelReadOfTheWholeSnapshot) {
  if (!SoftwareCountersWork()) GTEST_SKIP() << "skipped: perf_event_open is not usable here";
  auto backend = SoftwareBackend();
  auto counters = backend->OpenForCurrentThread();
  ASSERT_TRUE(counters.ok()) << counters.status();
  size_t bytes = 0;
  const int fd = (*counters)->SoleKernelRead(&bytes);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(bytes, backend->layout().words * sizeof(uint64_t));
  std::vector<uint64_t> snapshot(backend->layout().words);
  ASSERT_EQ(read(fd, snapshot.data(), bytes), static_cast<ssize_t>(bytes));
  EXPECT_EQ(snapshot[0], 4u) << "nr: the group's own read format";

  auto mapped = MakePerfEventBackend(SoftwareLayout(), Availability{}, &RealPerfEventOpen, UserReads::kAlways);
  auto mapped_counters = mapped->OpenForCurrentThread();
  ASSERT_TRUE(mapped_counters.ok()) << mapped_counters.status();
  EXPECT_EQ((*mapped_counters)->SoleKernelRead(&bytes), -1) << "a mapped group is read through its pages";

  CounterLayout two = SoftwareLayout();
  two.AddGroup(SoftwareLayout().events);
  auto second = MakePerfEventBackend(two, Availability{}, &RealPerfEventOpen);
  auto second_counters = second->OpenForCurrentThread();
  ASSERT_TRUE(second_counters.ok()) << second_counters.status();
  EXPECT_EQ((*second_counters)->SoleKernelRead(&bytes), -1) << "two groups: the backend reads them";
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

// Where hardware groups are counted, task-clock becomes the first per-thread
// hardware group's time enabled and the software group is not opened.
TEST(TaskClockFromHardwareGroup, ReplacesTheSoftwareGroupWithTheHardwareGroupsTime) {
  const CounterLayout before = fake_pmu::SoftwareAndHardwareGroup(5);
  size_t source = 0;
  const CounterLayout after = TaskClockFromHardwareGroup(before, &source);
  EXPECT_EQ(source, 1u);
  ASSERT_EQ(after.groups.size(), 2u);
  ASSERT_EQ(after.groups[0].num_events, 1u);
  EXPECT_EQ(after.events[0].name, "task-clock");
  EXPECT_EQ(after.events[0].time_of_group, 1);
  EXPECT_EQ(after.groups[1].num_events, 5u);
  EXPECT_EQ(after.events[1].name, "event0");
  EXPECT_EQ(after.groups[1].word_offset, 4u);
  EXPECT_EQ(after.words, 4u + 3u + 5u);

  // Without a hardware group (no PMU) nothing changes.
  size_t none = 0;
  EXPECT_EQ(TaskClockFromHardwareGroup(SoftwareLayout(), &none).events.size(), 4u);
  EXPECT_EQ(none, 0u);
}

// The calling thread's counters for `layout` on the fake pages, user reads on
// every group (the counters keep nothing of the backend).
absl::StatusOr<std::unique_ptr<ThreadCounters>> OpenOnFakePages(const CounterLayout& layout,
                                                                UserReadSeams seams = fake_pmu::Seams()) {
  return MakePerfEventBackend(layout, Availability{}, &fake_pmu::Open, UserReads::kAlways, seams)
      ->OpenForCurrentThread();
}

// The marker path of a PMU host, run on fake pages: a Level-1-sized group of
// five hardware events read with (fake) rdpmc, task-clock from its time
// enabled. Not one read() per pair, and every value is what the pages said.
TEST(PerfEventBackendOnFakePages, MarkersMakeNoKernelReadAndCountWhatThePagesSay) {
  fake_pmu::Reset();
  const CounterLayout layout = TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(5));
  auto counters = OpenOnFakePages(layout);
  ASSERT_TRUE(counters.ok()) << counters.status();
  ThreadCounters* raw = counters->get();
  size_t bytes = 0;
  EXPECT_EQ(raw->SoleKernelRead(&bytes), -1);
  RegionRegistry registry;
  ThreadState state(0, 1, *std::move(counters), layout.words, "", &registry);
  td_site site{"pair", "test.cc", 1, 0, 0};
  const uint32_t region = registry.IdForSite(&site);
  constexpr int kPairs = 1000;
  for (int i = 0; i < kPairs; ++i) {
    fake_pmu::Advance(50);  // outside: not counted
    state.Begin(region, &site);
    fake_pmu::Advance(1000);
    state.End(region, &site);
  }
  EXPECT_EQ(fake_pmu::Pmu().kernel_reads, 0u) << "a read() on the marker path";
  EXPECT_EQ(raw->user_reads(), 2u * kPairs);
  EXPECT_EQ(raw->fallback_reads(), 0u);

  RunData data;
  data.layout = layout;
  MergeThreads({state.Record()}, registry.AllNames(), &data);
  ASSERT_EQ(data.regions.size(), 1u);
  const RegionOnThread& part = data.regions[0].threads[0];
  EXPECT_EQ(part.calls, static_cast<uint64_t>(kPairs));
  ASSERT_EQ(part.events.size(), 6u);
  EXPECT_EQ(part.events[0].inclusive, 1000u * kPairs) << "task-clock: the hardware group's time enabled";
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(part.events[1 + i].inclusive, (i + 1) * 1000u * kPairs) << layout.events[1 + i].name;
    EXPECT_EQ(part.events[1 + i].exclusive, part.events[1 + i].inclusive);
  }
  ASSERT_EQ(part.groups.size(), 2u);
  EXPECT_EQ(part.groups[1].enabled_ns, 1000u * kPairs);
  EXPECT_EQ(part.groups[1].running_ns, 1000u * kPairs);
}

// Where the group task-clock is taken from does not open on a thread,
// another per-thread hardware group's time enabled stands in.
int RefuseEvent0x100(perf_event_attr* attr, pid_t pid, int cpu, int leader, unsigned long flags) {
  if (attr->config == 0x100) {
    errno = EOPNOTSUPP;
    return -1;
  }
  return fake_pmu::Open(attr, pid, cpu, leader, flags);
}

TEST(PerfEventBackendOnFakePages, TaskClockComesFromAnotherHardwareGroupWhenItsOwnDidNotOpen) {
  fake_pmu::Reset();
  CounterLayout layout = fake_pmu::SoftwareAndHardwareGroup(1);  // event0, config 0x100: refused
  EventInfo other;
  other.name = "other";
  other.perf_type = PERF_TYPE_RAW;
  other.perf_config = 0x200;
  other.hardware = true;
  layout.AddGroup({other});
  layout = TaskClockFromHardwareGroup(layout);
  ASSERT_EQ(layout.events[0].time_of_group, 1);
  auto backend = MakePerfEventBackend(layout, Availability{}, &RefuseEvent0x100, UserReads::kAlways,
                                      fake_pmu::Seams());
  auto counters = backend->OpenForCurrentThread();
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_NE((*counters)->Unopened().find("1 of 3 groups not opened"), std::string::npos) << (*counters)->Unopened();
  fake_pmu::Advance(500);  // the TSC: 500 ns since the page's time_enabled of 1000
  std::vector<uint64_t> snapshot(layout.words);
  ASSERT_TRUE((*counters)->Read(snapshot.data()));
  EXPECT_EQ(snapshot[1], 1500u) << "task-clock block: time enabled of group 2";
  EXPECT_EQ(snapshot[3], 1500u);
  EXPECT_EQ(snapshot[layout.groups[1].word_offset + 1], 0u) << "the refused group stays 0: not measured";
}

// A page that forbids user reads (multiplexed out) sends that read to the
// kernel: the fallback is there, and counted.
TEST(PerfEventBackendOnFakePages, APageForbiddingUserReadsFallsBackToRead) {
  fake_pmu::Reset();
  const CounterLayout layout = TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(2));
  auto counters = OpenOnFakePages(layout);
  ASSERT_TRUE(counters.ok()) << counters.status();
  std::vector<uint64_t> snapshot(layout.words);
  ASSERT_TRUE((*counters)->Read(snapshot.data()));
  fake_pmu::UpdatePage(1, [](perf_event_mmap_page& p) { p.index = 0; });  // the second member is off its counter
  EXPECT_FALSE((*counters)->Read(snapshot.data())) << "the fake read() fails";
  EXPECT_EQ(fake_pmu::Pmu().kernel_reads, 1u);
  EXPECT_EQ((*counters)->fallback_reads(), 1u);
}

// The markers read a sole user-read group inline (sole_user_read.h): word
// for word what the group reader gives for the same pages, a counter that
// wrapped at its width included.
TEST(PerfEventBackendOnFakePages, TheInlineReadGivesWhatTheGroupReaderGives) {
  fake_pmu::Reset();
  const CounterLayout layout = TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(5));
  auto counters = OpenOnFakePages(layout);
  ASSERT_TRUE(counters.ok()) << counters.status();
  SoleUserRead* sole = (*counters)->SoleUserGroup();
  ASSERT_NE(sole, nullptr);
  EXPECT_EQ(sole->members, 5u);
  EXPECT_EQ(sole->shift, 16u) << "48-bit counters";
  EXPECT_EQ(sole->group_word, 4u);
  EXPECT_EQ(sole->time_copy_word, 0u);
  fake_pmu::State& pmu = fake_pmu::Pmu();
  pmu.pmc[2] = (uint64_t{1} << 48) - 10;  // -10 as a 48-bit counter
  fake_pmu::UpdatePage(2, [](perf_event_mmap_page& p) { p.offset = 100; });
  fake_pmu::UpdatePage(4, [](perf_event_mmap_page& p) { p.offset = -7; });
  for (uint64_t ns : {0, 1, 999, 123456}) {
    fake_pmu::Advance(ns);
    std::vector<uint64_t> inline_words(layout.words, ~uint64_t{0});
    std::vector<uint64_t> reader_words(layout.words, 0);
    ASSERT_TRUE(ReadSoleUserGroup(*sole, inline_words.data()));
    ASSERT_TRUE((*counters)->Read(reader_words.data()));
    EXPECT_EQ(inline_words, reader_words) << "after " << ns << " ns";
  }
  std::vector<uint64_t> words(layout.words);
  ASSERT_TRUE(ReadSoleUserGroup(*sole, words.data()));
  const uint64_t since_start = 1 + 999 + 123456;
  EXPECT_EQ(words[4], 5u) << "the group's event count";
  EXPECT_EQ(words[5], 1000 + since_start) << "time enabled brought up to the TSC";
  EXPECT_EQ(words[0], 1u);
  EXPECT_EQ(words[1], words[5]) << "task-clock: the group's time enabled";
  EXPECT_EQ(words[3], words[5]);
  EXPECT_EQ(words[7], 1 * since_start);
  EXPECT_EQ(words[9], static_cast<uint64_t>(100 - 10 + 3 * static_cast<int64_t>(since_start))) << "sign-extended";
  EXPECT_EQ(words[11], 5 * since_start - 7);
  EXPECT_EQ(sole->reads, 5u);
  EXPECT_EQ(sole->refreshes, 1u) << "the pages were copied once: no lock moved after the first read";
  EXPECT_EQ((*counters)->user_reads(), 5u + 4u) << "the inline reads count as user reads";
  EXPECT_EQ(pmu.kernel_reads, 0u);
}

// The inline read uses what it copied of the pages while their locks stay;
// when the kernel updates a page (here: moves a member to another counter,
// folding its count into the offset, then brings the leader's times up to
// date), the next read copies the pages again and counts on without a jump.
TEST(PerfEventBackendOnFakePages, TheInlineReadFollowsThePagesTheKernelUpdates) {
  fake_pmu::Reset();
  const CounterLayout layout = TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(3));
  auto counters = OpenOnFakePages(layout);
  ASSERT_TRUE(counters.ok()) << counters.status();
  SoleUserRead* sole = (*counters)->SoleUserGroup();
  ASSERT_NE(sole, nullptr);
  fake_pmu::State& pmu = fake_pmu::Pmu();
  const auto expect_both_reads = [&](uint64_t refreshes, const char* when) -> std::vector<uint64_t> {
    std::vector<uint64_t> inline_words(layout.words, ~uint64_t{0});
    std::vector<uint64_t> reader_words(layout.words, 0);
    EXPECT_TRUE(ReadSoleUserGroup(*sole, inline_words.data())) << when;
    EXPECT_TRUE((*counters)->Read(reader_words.data())) << when;
    EXPECT_EQ(inline_words, reader_words) << when;
    EXPECT_EQ(sole->refreshes, refreshes) << when;
    return inline_words;
  };
  const size_t values = sole->group_word + 3;
  fake_pmu::Advance(100);
  expect_both_reads(1, "first read");
  fake_pmu::Advance(50);
  std::vector<uint64_t> words = expect_both_reads(1, "no page updated");
  EXPECT_EQ(words[values + 1], 2u * 150) << "counter 1 advances 2 per ns";
  // Member 1 moves from counter 1 to counter 9; its count so far goes into the offset.
  const uint64_t count = 2 * 150;
  fake_pmu::UpdatePage(1, [&](perf_event_mmap_page& p) {
    p.index = 10;
    p.offset = static_cast<int64_t>(count - pmu.pmc[9]);
  });
  fake_pmu::Advance(10);
  words = expect_both_reads(2, "member 1 moved");
  EXPECT_EQ(words[values + 1], count + 10u * 10) << "counter 9 advances 10 per ns";
  EXPECT_EQ(words[values + 0], 1u * 160);
  // The leader's times as of now, and the TSC taken from here.
  fake_pmu::UpdatePage(0, [&](perf_event_mmap_page& p) {
    p.time_enabled = 1000 + 160;
    p.time_running = 1000 + 160 - 40;
    p.time_offset = static_cast<uint64_t>(-int64_t{160});
  });
  fake_pmu::Advance(5);
  words = expect_both_reads(3, "leader's times updated");
  EXPECT_EQ(words[sole->group_word + 1], 1000u + 165) << "time enabled";
  EXPECT_EQ(words[sole->group_word + 2], 1000u + 165 - 40) << "time running";
  // The kernel halfway through rewriting a page from another CPU (its lock
  // odd): no copy is taken from it and the read is left to the group reader.
  ++pmu.pages[2].lock;
  std::vector<uint64_t> refused(layout.words);
  EXPECT_FALSE(ReadSoleUserGroup(*sole, refused.data()));
  EXPECT_EQ(sole->refreshes, 4u);
  ++pmu.pages[2].lock;
  expect_both_reads(5, "the rewrite finished");
  EXPECT_EQ(pmu.kernel_reads, 0u);
}

// Where a page forbids a user read, the markers' inline read leaves it to
// the group reader (which read()s: the fake's read() fails and says so).
TEST(PerfEventBackendOnFakePages, TheMarkersInlineReadFallsBackWhenAPageForbidsIt) {
  std::string no_tsc;
  const bool tsc = ChooseMarkerClock(true, &no_tsc) == MarkerClock::kTsc;  // the markers' user-read form
  struct Restore {
    ~Restore() { ChooseMarkerClock(false, nullptr); }
  } restore;
  fake_pmu::Reset();
  const CounterLayout layout = TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(3));
  auto counters = OpenOnFakePages(layout);
  ASSERT_TRUE(counters.ok()) << counters.status();
  ThreadCounters* raw = counters->get();
  ASSERT_NE(raw->SoleUserGroup(), nullptr);
  RegionRegistry registry;
  ThreadState state(0, 1, *std::move(counters), layout.words, "", &registry);
  EXPECT_EQ(state.user_read_path(), tsc) << no_tsc;
  td_site site{"pair", "test.cc", 1, 0, 0};
  const uint32_t region = registry.IdForSite(&site);
  state.Begin(region, &site);
  state.End(region, &site);
  EXPECT_EQ(raw->user_reads(), 2u);
  EXPECT_TRUE(state.counters_measured());
  fake_pmu::UpdatePage(2, [](perf_event_mmap_page& p) { p.index = 0; });  // the last member is off its counter
  state.Begin(region, &site);
  EXPECT_EQ(fake_pmu::Pmu().kernel_reads, 1u);
  EXPECT_EQ(raw->fallback_reads(), 1u);
  EXPECT_EQ(raw->user_reads(), 2u);
  EXPECT_FALSE(state.counters_measured()) << "the failed read() is counted";
  fake_pmu::UpdatePage(2, [](perf_event_mmap_page& p) {
    p.capabilities = 0;  // and no user rdpmc at all
    p.index = 3;
  });
  state.End(region, &site);
  EXPECT_EQ(fake_pmu::Pmu().kernel_reads, 2u);
}

// The markers' user-read form (ThreadState Path::kUser) against the general
// form through the group reader, on the same fake pages and the same
// sequence: nesting, recursion, a region entered from two parents, tracing
// switched on and off in the middle (the general form takes over), TD_SAMPLE.
// Every count and call is the same.
struct FormRun {
  bool user_form = false;
  ThreadState::MadeForms made;
  std::vector<uint64_t> calls;
  NodeTotals totals;
};

// `user_forms`: the markers enter as the C markers do where the gate says
// the process reads in user space (ThreadState::BeginUserReadAndLeave, the
// form made for a group of five); else through Begin and End.
// `group_only`: the hardware group alone, without the derived task-clock
// (the forms that read where the group starts at each marker).
CounterLayout HardwareGroupOnly(int events) {
  const CounterLayout both = fake_pmu::SoftwareAndHardwareGroup(events);
  const GroupInfo& group = both.groups[1];
  CounterLayout layout;
  layout.AddGroup({both.events.begin() + static_cast<long>(group.first_event),
                   both.events.begin() + static_cast<long>(group.first_event + group.num_events)});
  return layout;
}

FormRun RunMarkerSequence(bool inline_reads, uint32_t sample_every, bool user_forms = false,
                          bool group_only = false) {
  fake_pmu::Reset();
  const CounterLayout layout =
      group_only ? HardwareGroupOnly(5) : TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(5));
  auto counters = OpenOnFakePages(layout, fake_pmu::Seams(inline_reads));
  EXPECT_TRUE(counters.ok()) << counters.status();
  RegionRegistry registry;
  ThreadState state(0, 1, *std::move(counters), layout.words, "", &registry);
  state.set_sample_every(sample_every);
  FormRun run;
  run.user_form = state.user_read_path();
  run.made = state.made_forms();
  td_site outer_site{"outer", "test.cc", 1, 0, 0};
  td_site inner_site{"inner", "test.cc", 2, 0, 0};
  const uint32_t outer = registry.IdForSite(&outer_site);
  const uint32_t inner = registry.IdForSite(&inner_site);
  const auto begin = [&](uint32_t region, const td_site* site) {
    if (user_forms) {
      state.BeginUserReadAndLeave(region, site);
    } else {
      state.Begin(region, site);
    }
  };
  const auto end = [&](uint32_t region, const td_site* site) {
    if (user_forms) {
      state.EndUserReadAndLeave(region, site);
    } else {
      state.End(region, site);
    }
  };
  for (uint64_t i = 0; i < 300; ++i) {
    // A member whose index the inline read refuses (past the fakes'
    // counters): the group reader serves those reads, reading counter 0.
    const uint32_t index = i >= 150 && i < 160 ? fake_pmu::kCounters + 1 : 4;
    if (fake_pmu::Pmu().pages[3].index != index) {
      fake_pmu::UpdatePage(3, [index](perf_event_mmap_page& p) { p.index = index; });
    }
    fake_pmu::Advance(10);
    begin(outer, &outer_site);
    if (i == 100) state.EnableTrace(64);  // with outer open: its END comes while tracing
    fake_pmu::Advance(100);
    begin(inner, &inner_site);
    if (i == 200) state.EnableTrace(0);  // with a traced frame open: closed after tracing stopped
    fake_pmu::Advance(i % 13 + 1);
    if (i % 17 == 5) {
      // The kernel moves member 1 to the other of counters 1 and 9 inside
      // both open regions, folding its count into the offset: the END sees
      // the moved lock.
      fake_pmu::UpdatePage(1, [](perf_event_mmap_page& p) {
        const uint32_t to = p.index == 2 ? 10 : 2;
        const fake_pmu::State& pmu = fake_pmu::Pmu();
        p.offset += static_cast<int64_t>(pmu.pmc[p.index - 1] - pmu.pmc[to - 1]);
        p.index = to;
      });
      fake_pmu::Advance(2);  // the two counters advance at different rates: a stale copy would show
    }
    end(inner, &inner_site);
    if (i % 7 == 0) {
      begin(outer, &outer_site);  // recursion
      fake_pmu::Advance(5);
      end(outer, &outer_site);
    }
    end(outer, &outer_site);
    if (i % 11 == 0) {
      begin(inner, &inner_site);  // the same region at the top level
      fake_pmu::Advance(3);
      end(inner, &inner_site);
    }
  }
  EXPECT_EQ(fake_pmu::Pmu().kernel_reads, 0u);
  for (const NodeStats& node : state.nodes()) run.calls.push_back(node.calls);
  run.totals = state.ComputeTotals();
  return run;
}

TEST(PerfEventBackendOnFakePages, TheUserReadFormCountsWhatTheGeneralFormCounts) {
  std::string no_tsc;
  const bool tsc = ChooseMarkerClock(true, &no_tsc) == MarkerClock::kTsc;  // the user-read form's clock
  struct Restore {
    ~Restore() { ChooseMarkerClock(false, nullptr); }
  } restore;
  for (uint32_t sample_every : {1u, 3u}) {
    const FormRun user = RunMarkerSequence(true, sample_every);
    const FormRun general = RunMarkerSequence(false, sample_every);
    const FormRun made = RunMarkerSequence(true, sample_every, /*user_forms=*/true);
    EXPECT_FALSE(general.user_form);
    EXPECT_EQ(user.calls, general.calls) << "TD_SAMPLE=" << sample_every;
    EXPECT_EQ(user.totals.inclusive_words, general.totals.inclusive_words) << "TD_SAMPLE=" << sample_every;
    EXPECT_EQ(user.totals.exclusive_words, general.totals.exclusive_words) << "TD_SAMPLE=" << sample_every;
    EXPECT_EQ(made.calls, general.calls) << "the form made for five, TD_SAMPLE=" << sample_every;
    EXPECT_EQ(made.totals.inclusive_words, general.totals.inclusive_words) << "the form made for five, TD_SAMPLE=" << sample_every;
    EXPECT_EQ(made.totals.exclusive_words, general.totals.exclusive_words) << "the form made for five, TD_SAMPLE=" << sample_every;
    const FormRun made_alone = RunMarkerSequence(true, sample_every, /*user_forms=*/true, /*group_only=*/true);
    const FormRun general_alone = RunMarkerSequence(false, sample_every, false, /*group_only=*/true);
    EXPECT_EQ(made_alone.user_form, user.user_form) << "the group alone is read in user space too";
    if (made.user_form) {
      EXPECT_EQ(made.made.members, 5u) << "forms made for five members";
      EXPECT_EQ(made.made.group_word, 4) << "after the task-clock's four words";
      EXPECT_TRUE(made.made.fake);
      EXPECT_EQ(made_alone.made.members, 5u);
      EXPECT_EQ(made_alone.made.group_word, -1) << "the group alone: its word read at each marker";
    }
    EXPECT_EQ(general.made.members, 0u) << "no form made where the pages are not read inline";
    EXPECT_EQ(made_alone.calls, general_alone.calls) << "the group alone, TD_SAMPLE=" << sample_every;
    EXPECT_EQ(made_alone.totals.inclusive_words, general_alone.totals.inclusive_words)
        << "the group alone, TD_SAMPLE=" << sample_every;
    EXPECT_EQ(made_alone.totals.exclusive_words, general_alone.totals.exclusive_words)
        << "the group alone, TD_SAMPLE=" << sample_every;
    ASSERT_EQ(user.calls.size(), 4u) << "the thread, outer, outer/inner, inner";
    EXPECT_EQ(user.calls[1], 300u + 43u);
    const size_t words = user.totals.inclusive_words.size() / user.calls.size();
    EXPECT_GT(user.totals.inclusive_words[1 * words + 7], 0u) << "outer counted its first event";
    EXPECT_EQ(user.user_form, tsc);
    if (!tsc) GTEST_SKIP() << "compared the general form with itself: the user-read form needs the TSC clock: " << no_tsc;
  }
}

// The inline read is offered only where it reads exactly what Read() would.
TEST(PerfEventBackendOnFakePages, TheInlineReadIsOfferedOnlyWhereItApplies) {
  const auto sole_of = [](const CounterLayout& layout, UserReadSeams seams) -> bool {
    auto counters = OpenOnFakePages(layout, seams);
    if (!counters.ok()) {
      ADD_FAILURE() << "the counters did not open: " << counters.status();
      return false;
    }
    return (*counters)->SoleUserGroup() != nullptr;
  };
  const CounterLayout one_group = TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(4));
  fake_pmu::Reset();
  EXPECT_TRUE(sole_of(one_group, fake_pmu::Seams()));
  fake_pmu::Reset();
  EXPECT_FALSE(sole_of(one_group, fake_pmu::Seams(/*inline_reads=*/false))) << "fakes that answer only by call";
  fake_pmu::Reset();
  fake_pmu::Pmu().pages[1].pmc_width = 40;
  EXPECT_FALSE(sole_of(one_group, fake_pmu::Seams())) << "members of different widths";
  fake_pmu::Reset();
  EXPECT_FALSE(sole_of(fake_pmu::SoftwareAndHardwareGroup(4), fake_pmu::Seams())) << "the software group too";
  fake_pmu::Reset();
  EXPECT_FALSE(sole_of(TaskClockFromHardwareGroup(fake_pmu::SoftwareAndHardwareGroup(9)), fake_pmu::Seams()))
      << "more members than the inline read takes";
}

}  // namespace
}  // namespace td

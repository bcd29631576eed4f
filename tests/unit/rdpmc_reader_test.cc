// The rdpmc sequence-lock protocol against a fake mmap page, and the real
// kernel's page for a software event (which must send td back to read()).
#include "runtime/counters/rdpmc_reader.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace td {
namespace {

perf_event_mmap_page* g_page = nullptr;
uint64_t g_counter = 0;
int g_reads = 0;
int g_updates_left = 0;

uint64_t FakeCounter(uint32_t index) {
  EXPECT_EQ(index, 2u) << "the page's index is the counter + 1";
  ++g_reads;
  if (g_updates_left > 0) {
    // The kernel rescheduled the event while we read: new offset, new lock.
    --g_updates_left;
    g_page->lock += 2;
    g_page->offset += 1000;
  }
  return g_counter;
}

class RdpmcProtocol : public ::testing::Test {
 protected:
  void SetUp() override {
    page_ = perf_event_mmap_page{};
    page_.cap_user_rdpmc = 1;
    page_.index = 3;
    page_.pmc_width = 48;
    page_.offset = 5000;
    page_.time_enabled = 700;
    page_.time_running = 350;
    g_page = &page_;
    g_reads = 0;
    g_updates_left = 0;
  }
  perf_event_mmap_page page_;
};

TEST_F(RdpmcProtocol, AddsCounterToOffset) {
  g_counter = 1234;
  RdpmcSample s;
  ASSERT_TRUE(ReadWithRdpmc(&page_, &FakeCounter, &s));
  EXPECT_EQ(s.count, 6234u);
  EXPECT_EQ(s.time_enabled, 700u);
  EXPECT_EQ(s.time_running, 350u);
  EXPECT_EQ(s.attempts, 1);
}

TEST_F(RdpmcProtocol, WrappedCounterIsSignExtended) {
  // A 48-bit counter the kernel preset to -16 (it programs -period): the
  // offset already includes +16, so the sum is offset - 16.
  g_counter = 0xFFFFFFFFFFF0ull;
  RdpmcSample s;
  ASSERT_TRUE(ReadWithRdpmc(&page_, &FakeCounter, &s));
  EXPECT_EQ(s.count, 5000u - 16u);
  EXPECT_EQ(SignExtend(0x800000000000ull, 48), -(int64_t{1} << 47));
  EXPECT_EQ(SignExtend(0x7FFFFFFFFFFFull, 48), (int64_t{1} << 47) - 1);
  EXPECT_EQ(SignExtend(~uint64_t{0}, 64), -1);
}

TEST_F(RdpmcProtocol, ConcurrentUpdateForcesARetryAndAConsistentValue) {
  g_counter = 10;
  g_updates_left = 2;
  RdpmcSample s;
  ASSERT_TRUE(ReadWithRdpmc(&page_, &FakeCounter, &s));
  EXPECT_EQ(s.attempts, 3);
  EXPECT_EQ(g_reads, 3);
  EXPECT_EQ(s.count, 5000u + 2000u + 10u) << "the offset of the last, unchanged page";
}

TEST_F(RdpmcProtocol, EndlessUpdatesGiveUp) {
  g_counter = 10;
  g_updates_left = 1000;
  RdpmcSample s;
  EXPECT_FALSE(ReadWithRdpmc(&page_, &FakeCounter, &s, 8));
  EXPECT_EQ(g_reads, 8);
}

TEST_F(RdpmcProtocol, FallsBackWhenNotOnACounterOrNotAllowed) {
  RdpmcSample s;
  page_.index = 0;
  EXPECT_FALSE(ReadWithRdpmc(&page_, &FakeCounter, &s));
  page_.index = 3;
  page_.cap_user_rdpmc = 0;
  EXPECT_FALSE(ReadWithRdpmc(&page_, &FakeCounter, &s));
  EXPECT_EQ(g_reads, 0) << "no rdpmc when the page forbids it";
}

// The capability masks are the kernel's bitfields.
TEST(RdpmcCapabilities, MasksAreTheBitfieldsOfThePage) {
  perf_event_mmap_page page{};
  page.cap_user_rdpmc = 1;
  EXPECT_EQ(page.capabilities, kCapUserRdpmc);
  page = perf_event_mmap_page{};
  page.cap_user_time = 1;
  EXPECT_EQ(page.capabilities, kCapUserTime);
  page = perf_event_mmap_page{};
  page.cap_user_time_short = 1;
  EXPECT_EQ(page.capabilities, kCapUserTimeShort);
}

// The markers' single attempts: the same values as the full protocol, and
// false (the caller then takes the full path) on a forbidding page or a
// concurrent update.
TEST_F(RdpmcProtocol, SingleAttemptsGiveTheProtocolsValuesOrStepAside) {
  g_counter = 0xFFFFFFFFFFF0ull;  // -16 in 48 bits
  uint64_t count = 0;
  ASSERT_TRUE(TryReadCount(&page_, &FakeCounter, &count));
  EXPECT_EQ(count, 5000u - 16u);

  page_.cap_user_time = 1;
  page_.time_mult = 1u << 9;  // 2 TSC ticks per ns
  page_.time_shift = 10;
  uint64_t enabled = 0, running = 0;
  ASSERT_TRUE(TryReadCountAndTimes(&page_, &FakeCounter, [] { return uint64_t{600}; }, &count, &enabled, &running));
  EXPECT_EQ(count, 5000u - 16u);
  EXPECT_EQ(enabled, 700u + 300u);
  EXPECT_EQ(running, 350u + 300u);

  g_updates_left = 1;
  EXPECT_FALSE(TryReadCount(&page_, &FakeCounter, &count)) << "the lock moved";
  page_.cap_user_time = 0;
  EXPECT_FALSE(TryReadCountAndTimes(&page_, &FakeCounter, [] { return uint64_t{0}; }, &count, &enabled, &running))
      << "no user time";
  page_.index = 0;
  const int reads = g_reads;
  EXPECT_FALSE(TryReadCount(&page_, &FakeCounter, &count));
  EXPECT_EQ(g_reads, reads) << "no rdpmc when not on a counter";
}

TEST(RdpmcKernelPage, SoftwareEventHasNoUserCounter) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0) GTEST_SKIP() << "skipped: perf_event_open unavailable for software events";
  void* map = mmap(nullptr, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_READ, MAP_SHARED, fd, 0);
  ASSERT_NE(map, MAP_FAILED);
  const auto* page = static_cast<const perf_event_mmap_page*>(map);
  RdpmcSample s;
  EXPECT_FALSE(ReadWithRdpmc(page, &ReadPmcInstruction, &s)) << "index 0: read() is the only way";
  EXPECT_EQ(page->index, 0u);
  munmap(map, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  close(fd);
}

TEST(PerfMetrics, FractionsBecomeSlots) {
  // retiring 0x33 (20 %), bad spec 0x1a, frontend 0x4c, backend 0x80 of 1,000,000 slots.
  const uint64_t metrics = 0x804c1a33;
  EXPECT_DOUBLE_EQ(MetricSlots(metrics, 1000000, 0), 0x33 * 1000000.0 / 255);
  EXPECT_DOUBLE_EQ(MetricSlots(metrics, 1000000, 3), 0x80 * 1000000.0 / 255);
  double sum = 0;
  for (int f = 0; f < 4; ++f) sum += MetricSlots(metrics, 255, f);
  EXPECT_DOUBLE_EQ(sum, 0x33 + 0x1a + 0x4c + 0x80);
  EXPECT_DOUBLE_EQ(MetricSlots(0xff00000000000000ull, 510, 7), 510.0);
}

}  // namespace
}  // namespace td

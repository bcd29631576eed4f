// User-space group reads against fake mmap pages: ordinary groups, the
// read() fallback, and the SLOTS + PERF_METRICS re-basing.
#include "runtime/counters/rdpmc_group.h"

#include <cstring>
#include <map>

#include "gtest/gtest.h"

namespace td {
namespace {

std::map<uint32_t, uint64_t> g_counters;  // rdpmc index → value
uint64_t g_tsc = 0;
std::vector<uint64_t> g_kernel_block;     // what read() of the group returns
int g_kernel_reads = 0;

uint64_t FakePmc(uint32_t index) { return g_counters.at(index); }
uint64_t FakeTsc() { return g_tsc; }
ssize_t FakeRead(int fd, void* buffer, size_t bytes) {
  EXPECT_EQ(fd, 42);
  ++g_kernel_reads;
  if (bytes != g_kernel_block.size() * sizeof(uint64_t)) return -1;
  std::memcpy(buffer, g_kernel_block.data(), bytes);
  return static_cast<ssize_t>(bytes);
}

constexpr UserReadHooks kFakeHooks{&FakePmc, &FakeTsc, &FakeRead};
constexpr uint32_t kSlotsIndex = (1u << 30) | 3;  // fixed counter 3
constexpr uint32_t kMetricsIndex = 1u << 29;      // the PERF_METRICS register

perf_event_mmap_page Page(uint32_t rdpmc_index, int64_t offset) {
  perf_event_mmap_page page{};
  page.cap_user_rdpmc = 1;
  page.cap_user_time = 1;
  page.index = rdpmc_index + 1;
  page.pmc_width = 48;
  page.offset = offset;
  page.time_enabled = 1000;
  page.time_running = 800;
  // 1 TSC tick = 0.5 ns: mult / 2^shift = 0.5.
  page.time_mult = 1u << 9;
  page.time_shift = 10;
  page.time_offset = 0;
  return page;
}

class RdpmcGroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_counters.clear();
    g_tsc = 0;
    g_kernel_reads = 0;
    g_kernel_block.clear();
  }
};

TEST_F(RdpmcGroupTest, OrdinaryGroupIsOffsetPlusCounterWithTimesBroughtUpToNow) {
  perf_event_mmap_page cycles = Page(0, 5000), instructions = Page(1, -20);
  g_counters = {{0, 700}, {1, 1234}};
  g_tsc = 400;  // 200 ns since the kernel wrote the page
  RdpmcGroupReader reader({&cycles, &instructions}, {-1, -1}, 42, kFakeHooks);
  uint64_t block[5] = {};
  ASSERT_TRUE(reader.Read(block));
  EXPECT_EQ(block[0], 2u);
  EXPECT_EQ(block[1], 1200u) << "time_enabled + 200 ns";
  EXPECT_EQ(block[2], 1000u) << "time_running + 200 ns: the event is on a counter";
  EXPECT_EQ(block[3], 5700u);
  EXPECT_EQ(block[4], 1214u);
  EXPECT_EQ(reader.user_reads(), 1u);
  EXPECT_EQ(reader.kernel_reads(), 0u);
  EXPECT_EQ(g_kernel_reads, 0);
}

TEST_F(RdpmcGroupTest, MultiplexedOutMemberSendsTheGroupToRead) {
  perf_event_mmap_page cycles = Page(0, 5000), instructions = Page(1, 0);
  instructions.index = 0;  // not on a counter right now
  g_counters = {{0, 700}};
  g_kernel_block = {2, 3000, 1500, 9000, 8000};
  RdpmcGroupReader reader({&cycles, &instructions}, {-1, -1}, 42, kFakeHooks);
  uint64_t block[5] = {};
  ASSERT_TRUE(reader.Read(block));
  EXPECT_EQ(std::vector<uint64_t>(block, block + 5), g_kernel_block);
  EXPECT_EQ(reader.user_reads(), 0u);
  EXPECT_EQ(reader.kernel_reads(), 1u);
}

TEST_F(RdpmcGroupTest, NoUserTimeMeansNoScalingSoRead) {
  perf_event_mmap_page cycles = Page(0, 5000);
  cycles.cap_user_time = 0;
  g_counters = {{0, 700}};
  g_kernel_block = {1, 3000, 3000, 9000};
  RdpmcGroupReader reader({&cycles}, {-1}, 42, kFakeHooks);
  uint64_t block[4] = {};
  ASSERT_TRUE(reader.Read(block));
  EXPECT_EQ(block[3], 9000u);
  EXPECT_EQ(g_kernel_reads, 1);
}

TEST_F(RdpmcGroupTest, ShortTimeCounterUsesThePagesBaseAndMask) {
  perf_event_mmap_page cycles = Page(0, 0);
  cycles.cap_user_time_short = 1;
  cycles.time_cycles = 0x1000;
  cycles.time_mask = 0xfff;
  g_counters = {{0, 1}};
  g_tsc = 0x5000 + 0x100;  // the masked TSC: 0x1000 + 0x100 cycles
  RdpmcGroupReader reader({&cycles}, {-1}, 42, kFakeHooks);
  uint64_t block[4] = {};
  ASSERT_TRUE(reader.Read(block));
  EXPECT_EQ(block[1], 1000u + (0x1100u / 2));
}

TEST(PerfMetricsField, TopdownPseudoEventsAndOthers) {
  EventInfo e;
  e.hardware = true;
  e.perf_type = PERF_TYPE_RAW;
  e.perf_config = 0x8000;
  EXPECT_EQ(PerfMetricsField(e), 0);
  e.perf_config = 0x8700;
  EXPECT_EQ(PerfMetricsField(e), 7);
  e.perf_config = 0x0400;  // slots
  EXPECT_EQ(PerfMetricsField(e), -1);
  e.perf_config = 0x80c0;  // an event code with a high umask is not a metric
  EXPECT_EQ(PerfMetricsField(e), -1);
  e.perf_config = 0x8000;
  e.hardware = false;
  EXPECT_EQ(PerfMetricsField(e), -1);
}

class MetricsGroupTest : public RdpmcGroupTest {
 protected:
  // slots (leader), topdown-retiring (field 0), topdown-be-bound (field 3),
  // topdown-mem-bound (field 7) and an ordinary counter beside them.
  perf_event_mmap_page slots_ = Page(kSlotsIndex, 0);
  perf_event_mmap_page retiring_ = Page(kMetricsIndex, 0);
  perf_event_mmap_page backend_ = Page(kMetricsIndex, 0);
  perf_event_mmap_page memory_ = Page(kMetricsIndex, 0);
  perf_event_mmap_page drops_ = Page(2, 100);
  RdpmcGroupReader Reader() {
    return RdpmcGroupReader({&slots_, &retiring_, &backend_, &memory_, &drops_}, {-1, 0, 3, 7, -1}, 42,
                            kFakeHooks);
  }
  uint64_t block_[8] = {};
};

TEST_F(MetricsGroupTest, FirstReadIsTheKernelsAndLaterOnesAddFractionsOfSlots) {
  RdpmcGroupReader reader = Reader();
  g_kernel_block = {5, 2000, 2000, 1000, 300, 400, 50, 77};
  ASSERT_TRUE(reader.Read(block_));
  EXPECT_EQ(g_kernel_reads, 1) << "no base yet";

  // 2550 slots since read() reset the registers: retiring 0x33/0xff = 20 %,
  // backend 0x80/0xff, memory bound 0xff/0xff (top byte: no sign extension).
  g_counters = {{kSlotsIndex, 2550}, {kMetricsIndex, 0xff00000080000033ull}, {2, 23}};
  ASSERT_TRUE(reader.Read(block_));
  EXPECT_EQ(g_kernel_reads, 1) << "served by rdpmc";
  EXPECT_EQ(block_[3], 1000u + 2550u);
  EXPECT_EQ(block_[4], 300u + 0x33u * 10u);
  EXPECT_EQ(block_[5], 400u + 0x80u * 10u);
  EXPECT_EQ(block_[6], 50u + 2550u);
  EXPECT_EQ(block_[7], 123u) << "ordinary member: offset + counter";
  EXPECT_EQ(reader.user_reads(), 1u);
}

TEST_F(MetricsGroupTest, KernelTouchingThePageForcesARebase) {
  RdpmcGroupReader reader = Reader();
  g_kernel_block = {5, 2000, 2000, 1000, 300, 400, 50, 77};
  ASSERT_TRUE(reader.Read(block_));
  slots_.time_enabled += 5000;  // a reschedule rewrote the page (and may have reset the registers)
  g_counters = {{kSlotsIndex, 10}, {kMetricsIndex, 0x33}, {2, 23}};
  g_kernel_block = {5, 9000, 9000, 4000, 900, 1900, 300, 150};
  ASSERT_TRUE(reader.Read(block_));
  EXPECT_EQ(g_kernel_reads, 2);
  EXPECT_EQ(block_[4], 900u) << "the kernel's converted total, never base + stale fractions";
  // Now the page is the one seen at the re-base: user reads add to the new base.
  ASSERT_TRUE(reader.Read(block_));
  EXPECT_EQ(g_kernel_reads, 2);
  EXPECT_EQ(block_[3], 4010u);
}

TEST_F(MetricsGroupTest, ManySlotsSinceTheBaseForceARebaseToKeepPrecision) {
  RdpmcGroupReader reader = Reader();
  g_kernel_block = {5, 2000, 2000, 1000, 300, 400, 50, 77};
  ASSERT_TRUE(reader.Read(block_));
  g_counters = {{kSlotsIndex, RdpmcGroupReader::kMetricsRebaseSlots + 1}, {kMetricsIndex, 0}, {2, 0}};
  ASSERT_TRUE(reader.Read(block_));
  EXPECT_EQ(g_kernel_reads, 2);
  g_counters[kSlotsIndex] = RdpmcGroupReader::kMetricsRebaseSlots;
  ASSERT_TRUE(reader.Read(block_));
  EXPECT_EQ(g_kernel_reads, 2) << "at the bound itself rdpmc still serves";
}

TEST_F(MetricsGroupTest, FailedKernelReadIsReported) {
  RdpmcGroupReader reader = Reader();
  g_kernel_block = {1, 2, 3};  // wrong size: read() returns -1
  EXPECT_FALSE(reader.Read(block_));
}

}  // namespace
}  // namespace td

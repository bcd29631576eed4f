#include "runtime/counters/pmu_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <map>

#include "gtest/gtest.h"
#include "tests/unit/counter_models.h"

namespace td {
namespace {

// A fake PMU: `counters` general-purpose counters (a group larger than that
// fails with EINVAL, as the kernel's group validation does), per-config
// errnos, and a paranoid setting that refuses kernel counting.
struct FakePmu {
  int counters = 4;
  std::map<uint64_t, int> refused;  // config -> errno
  bool kernel_refused = false;
  std::map<int, int> members;       // leader fd -> events in its group
  int opens = 0;
};
FakePmu* fake = nullptr;

int FakeOpen(perf_event_attr* attr, pid_t, int, int group_fd, unsigned long) {
  ++fake->opens;
  if (attr->type == PERF_TYPE_SOFTWARE) return open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (auto it = fake->refused.find(attr->config); it != fake->refused.end()) {
    errno = it->second;
    return -1;
  }
  if (fake->kernel_refused && !attr->exclude_kernel) {
    errno = EACCES;
    return -1;
  }
  if (group_fd >= 0 && fake->members[group_fd] >= fake->counters) {
    errno = EINVAL;
    return -1;
  }
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (group_fd < 0) {
    fake->members[fd] = 1;
  } else {
    ++fake->members[group_fd];
  }
  return fd;
}

using counter_models::Raw;

class PmuProbeTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = &pmu_; }
  void TearDown() override { fake = nullptr; }
  FakePmu pmu_;
};

TEST_F(PmuProbeTest, GroupCapacityIsTheNumberOfCountersTheKernelValidates) {
  for (int counters : {2, 4, 6}) {
    pmu_ = FakePmu{};
    pmu_.counters = counters;
    EXPECT_EQ(ProbeGroupCapacity(GeneralCounterProbeEvent(), &FakeOpen), counters) << counters;
  }
}

TEST_F(PmuProbeTest, GroupCapacityStopsAtTheLimitAndIsZeroWithoutAPmu) {
  pmu_.counters = 100;
  EXPECT_EQ(ProbeGroupCapacity(GeneralCounterProbeEvent(), &FakeOpen, 8), 8);
  pmu_.refused[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = ENOENT;
  EXPECT_EQ(ProbeGroupCapacity(GeneralCounterProbeEvent(), &FakeOpen), 0);
}

TEST_F(PmuProbeTest, GroupCapacityHoldsUnderParanoidTwo) {
  pmu_.counters = 6;
  pmu_.kernel_refused = true;
  EXPECT_EQ(ProbeGroupCapacity(GeneralCounterProbeEvent(), &FakeOpen), 6);
}

TEST_F(PmuProbeTest, EachEventGetsItsOwnErrno) {
  pmu_.refused[0x1] = ENOENT;
  pmu_.refused[0x2] = EOPNOTSUPP;
  pmu_.refused[0x3] = EINVAL;
  pmu_.refused[0x4] = EACCES;  // refused even user-space only
  const std::vector<EventInfo> events = {Raw("a", 0x1), Raw("b", 0x2), Raw("c", 0x3),
                                         Raw("d", 0x4), Raw("e", 0x5)};
  const auto results = ProbeEventsAlone(events, &FakeOpen);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0].err, ENOENT);
  EXPECT_EQ(results[1].err, EOPNOTSUPP);
  EXPECT_EQ(results[2].err, EINVAL);
  EXPECT_EQ(results[3].err, EACCES);
  EXPECT_EQ(results[4].name, "e");
  EXPECT_EQ(results[4].err, 0);
}

TEST_F(PmuProbeTest, AnEventRefusedWithKernelCountingOpensUserSpaceOnly) {
  pmu_.kernel_refused = true;
  const auto results = ProbeEventsAlone({Raw("a", 0x10)}, &FakeOpen);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].err, 0);
  EXPECT_EQ(pmu_.opens, 2);
}

}  // namespace
}  // namespace td

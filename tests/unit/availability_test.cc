// Every way counters can be missing produces the right one-line reason.
#include "runtime/counters/availability.h"

#include <errno.h>

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(Availability, EverythingAvailable) {
  const Availability a = DescribeAvailability({0, 0, 2, true});
  EXPECT_TRUE(a.hardware_counters);
  EXPECT_TRUE(a.software_counters);
  EXPECT_EQ(a.hardware_reason, "");
  EXPECT_EQ(a.hardware_errno, "");
}

TEST(Availability, NoPmuInAVirtualMachine) {
  const Availability a = DescribeAvailability({ENOENT, 0, 2, false});
  EXPECT_FALSE(a.hardware_counters);
  EXPECT_TRUE(a.software_counters);
  EXPECT_EQ(a.hardware_errno, "ENOENT");
  EXPECT_EQ(a.hardware_reason,
            "no hardware PMU is exposed to this machine (perf_event_open(cycles) failed with "
            "ENOENT, /sys/bus/event_source/devices has no cpu PMU); usual in virtual machines "
            "without PMU passthrough");
  EXPECT_EQ(a.measured,
            "wall time, calls, task-clock, page faults, context switches, CPU migrations");
}

TEST(Availability, ParanoidForbidsHardwareAndSaysTheFix) {
  const Availability a = DescribeAvailability({EACCES, 0, 3, true});
  EXPECT_FALSE(a.hardware_counters);
  EXPECT_NE(a.hardware_reason.find("kernel.perf_event_paranoid=3"), std::string::npos);
  EXPECT_NE(a.hardware_reason.find("sysctl -w kernel.perf_event_paranoid=2"), std::string::npos);
  EXPECT_NE(a.hardware_reason.find("CAP_PERFMON"), std::string::npos);
}

TEST(Availability, SeccompBlocksEverything) {
  const Availability a = DescribeAvailability({EPERM, EPERM, 2, true});
  EXPECT_FALSE(a.software_counters);
  EXPECT_FALSE(a.hardware_counters);
  EXPECT_NE(a.software_reason.find("seccomp"), std::string::npos);
  EXPECT_EQ(a.hardware_reason, a.software_reason);
  EXPECT_EQ(a.measured, "wall time and calls only");
}

TEST(Availability, KernelWithoutPerfEvents) {
  const Availability a = DescribeAvailability({ENOSYS, ENOSYS, -1, false});
  EXPECT_NE(a.software_reason.find("ENOSYS"), std::string::npos);
}

TEST(Availability, ErrnoNames) {
  EXPECT_EQ(ErrnoName(ENOENT), "ENOENT");
  EXPECT_EQ(ErrnoName(EACCES), "EACCES");
  EXPECT_EQ(ErrnoName(12345), "errno 12345");
}

}  // namespace
}  // namespace td

#include "runtime/machine/bandwidth_calibration.h"

#include <stdlib.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(Calibration, TriadComputesAndReportsWhatItMeasured) {
  auto cal = MeasureTriad(2, size_t{1} << 20, 3);  // small: checks the mechanics, not the peak
  ASSERT_TRUE(cal.ok()) << cal.status();
  EXPECT_EQ(cal->threads, 2);
  EXPECT_EQ(cal->array_bytes, size_t{1} << 20);
  EXPECT_GT(cal->triad_gbps, 0.0);
  EXPECT_EQ(cal->hostname, DescribeThisMachine().hostname);
  EXPECT_FALSE(MeasureTriad(0, size_t{1} << 20, 3).ok());
  EXPECT_GE(DefaultTriadArrayBytes(), size_t{64} << 20);
}

TEST(Calibration, SavedPerMachineAndFoundAgain) {
  char dir[] = "/tmp/td-cal-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  setenv("XDG_CACHE_HOME", dir, 1);
  EXPECT_EQ(CalibrationPath(), std::string(dir) + "/td/calibration.json");
  const MachineInfo machine = DescribeThisMachine();
  EXPECT_FALSE(CachedPeakGbps(machine).has_value());
  Calibration cal;
  cal.hostname = machine.hostname;
  cal.cpu_model_name = machine.cpu_model_name;
  cal.triad_gbps = 42.5;
  ASSERT_TRUE(SaveCalibration(CalibrationPath(), cal).ok());
  EXPECT_DOUBLE_EQ(CachedPeakGbps(machine).value(), 42.5);
  MachineInfo elsewhere = machine;
  elsewhere.hostname += "-other";
  EXPECT_FALSE(CachedPeakGbps(elsewhere).has_value()) << "a peak belongs to its machine";
  unsetenv("XDG_CACHE_HOME");
}

}  // namespace
}  // namespace td

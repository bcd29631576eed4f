// CPU facts from /proc/cpuinfo.
#include "runtime/machine/machine_info.h"

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(MachineInfo, ParsesTheFirstProcessorOfCpuinfo) {
  MachineInfo info;
  ParseCpuinfo(
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
      "model name\t: Intel(R) Xeon(R) Platinum 8480+\nstepping\t: 8\n\nprocessor\t: 1\n"
      "model\t\t: 1\n",
      &info);
  EXPECT_EQ(info.cpu_vendor, "GenuineIntel");
  EXPECT_EQ(info.cpu_family, 6);
  EXPECT_EQ(info.cpu_model, 143);
  EXPECT_EQ(info.cpu_stepping, 8);
  EXPECT_EQ(info.cpu_model_name, "Intel(R) Xeon(R) Platinum 8480+");
}

}  // namespace
}  // namespace td

// The PAPI backend's view of its events: td's names for kernel software
// events, hardware counters available only when one is counted.
#include "runtime/counters/papi_backend.h"

#include "gtest/gtest.h"
#include "runtime/counters/availability.h"

namespace td {
namespace {

TEST(PapiEvents, KernelSoftwareEventsKeepTdNamesAndAreNotHardware) {
  const EventInfo task_clock = PapiEventInfo("perf::TASK-CLOCK");
  EXPECT_EQ(task_clock.name, "task-clock");
  EXPECT_EQ(task_clock.unit, "ns");
  EXPECT_FALSE(task_clock.hardware);
  EXPECT_EQ(task_clock.pmu, "papi");
  EXPECT_EQ(PapiEventInfo("perf::FAULTS").name, "page-faults") << "aliases become td's name";
  EXPECT_EQ(PapiEventInfo("perf::CONTEXT-SWITCHES:u").name, "context-switches");
  for (const char* hardware : {"PAPI_TOT_CYC", "perf::CYCLES", "skl::INST_RETIRED:ANY", "perf::NOPE"}) {
    const EventInfo e = PapiEventInfo(hardware);
    EXPECT_EQ(e.name, hardware);
    EXPECT_TRUE(e.hardware) << hardware;
  }
}

TEST(PapiEvents, HardwareCountersAreAvailableOnlyWhenAHardwareEventIsCounted) {
  Availability probed;
  probed.software_counters = true;
  probed.hardware_reason = "no hardware PMU here";
  probed.hardware_errno = "ENOENT";
  const Availability software = PapiAvailability({PapiEventInfo("perf::TASK-CLOCK")}, probed);
  EXPECT_FALSE(software.hardware_counters);
  EXPECT_EQ(software.hardware_reason, "no hardware PMU here");
  EXPECT_EQ(software.measured, "wall time, calls and, through PAPI, task-clock");
  const Availability hardware =
      PapiAvailability({PapiEventInfo("PAPI_TOT_CYC"), PapiEventInfo("perf::TASK-CLOCK")}, probed);
  EXPECT_TRUE(hardware.hardware_counters);
  EXPECT_EQ(hardware.hardware_reason, "");
  EXPECT_EQ(hardware.hardware_errno, "");
}

}  // namespace
}  // namespace td

// TD_BACKEND=simulate outside tdsim: the backend refuses with the reason
// (the runtime then measures as usual), and its events are tdsim's, in the
// tool's order, none of them hardware (so none feeds Top-Down).
#include "runtime/counters/simulated_backend.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/counters/simulated_protocol.h"

namespace td {
namespace {

TEST(SimulatedBackend, EventsFollowTheToolsOrder) {
  const std::vector<EventInfo> events = SimulatedEvents();
  ASSERT_EQ(events.size(), static_cast<size_t>(TDSIM_NUM_COUNTERS));
  EXPECT_EQ(events[TDSIM_INSTRUCTIONS].name, "sim.instructions");
  EXPECT_EQ(events[TDSIM_BRANCH_MISSES].name, "sim.branch_misses");
  EXPECT_EQ(events[TDSIM_L1D_MISSES].name, "sim.l1d_misses");
  EXPECT_EQ(events[TDSIM_LL_MISSES].name, "sim.ll_misses");
  for (const EventInfo& e : events) {
    EXPECT_FALSE(e.hardware) << e.name;
    EXPECT_TRUE(IsSimulatedEvent(e.name));
  }
  EXPECT_FALSE(IsSimulatedEvent("instructions"));
}

// These unit tests run natively, never under tdsim.
TEST(SimulatedBackend, RefusesOutsideTheTool) {
  const auto backend = MakeSimulatedBackend(Availability{});
  ASSERT_FALSE(backend.ok());
  const std::string why(backend.status().message());
  EXPECT_TRUE(why.find("not running under Valgrind") != std::string::npos ||
              why.find("built without valgrind") != std::string::npos)
      << why;
}

}  // namespace
}  // namespace td

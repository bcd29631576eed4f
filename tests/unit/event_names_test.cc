// Every tool's spelling of an event normalised to one name.
#include "runtime/uarch/event_names.h"

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(EventNames, NormalizesEveryToolsSpelling) {
  EXPECT_EQ(NormalizeEventName("cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/u"),
            "int_misc.recovery_cycles:c1:e");
  EXPECT_EQ(NormalizeEventName("INT_MISC.RECOVERY_CYCLES:c1:e"), "int_misc.recovery_cycles:c1:e");
  EXPECT_EQ(NormalizeEventName("cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/"),
            "de_no_dispatch_per_slot.no_ops_from_frontend:c6");
  EXPECT_EQ(NormalizeEventName("cpu_atom/TOPDOWN_FE_BOUND.ALL/"), "topdown_fe_bound.all");
  EXPECT_EQ(NormalizeEventName("topdown-retiring:u"), "topdown-retiring");
  EXPECT_EQ(NormalizeEventName("TOPDOWN.SLOTS:u"), "slots");
  EXPECT_EQ(NormalizeEventName("cpu-cycles"), "cycles");
  EXPECT_EQ(NormalizeEventName("seconds time elapsed"), "seconds_time_elapsed");
  EXPECT_EQ(NormalizeEventName("EXE_ACTIVITY.3_PORTS_UTIL:u0x80"), "exe_activity.3_ports_util:u0x80");
}

}  // namespace
}  // namespace td

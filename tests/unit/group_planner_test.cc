// Group formation against the counter models of the definition files.
#include "runtime/counters/group_planner.h"

#include <linux/perf_event.h>

#include "gtest/gtest.h"
#include "tests/unit/counter_models.h"

namespace td {
namespace {

using counter_models::Model;
using counter_models::Raw;


EventInfo Generic(const std::string& name, uint64_t config) {
  EventInfo e = Raw(name, config);
  e.perf_type = PERF_TYPE_HARDWARE;
  return e;
}

std::vector<EventInfo> GeneralEvents(int n) {
  std::vector<EventInfo> events;
  for (int i = 0; i < n; ++i) events.push_back(Raw("E" + std::to_string(i), 0x0e + (i << 8)));
  return events;
}

TEST(CheckSchedulable, CountsGeneralAndFixedCounters) {
  const CounterModel skl = Model("skl");
  PlanOptions smt;
  std::vector<EventInfo> group = GeneralEvents(4);
  group.push_back(Generic("cycles", PERF_COUNT_HW_CPU_CYCLES));      // fixed 1
  group.push_back(Generic("instructions", PERF_COUNT_HW_INSTRUCTIONS));  // fixed 0
  EXPECT_TRUE(CheckSchedulable(group, skl, smt).ok());
  group.push_back(Raw("E4", 0x04c2));
  auto five = CheckSchedulable(group, skl, smt);
  ASSERT_FALSE(five.ok());
  EXPECT_NE(five.message().find("needs 5 general-purpose counters, the PMU has 4"), std::string::npos)
      << five;
  PlanOptions no_smt{.smt_on = false};
  EXPECT_TRUE(CheckSchedulable(group, skl, no_smt).ok()) << "8 counters with SMT off";
}

TEST(CheckSchedulable, NmiWatchdogTakesTheCyclesCounter) {
  const CounterModel skl = Model("skl");
  std::vector<EventInfo> group = GeneralEvents(4);
  group.push_back(Generic("cycles", PERF_COUNT_HW_CPU_CYCLES));
  PlanOptions watchdog{.nmi_watchdog = true};
  auto status = CheckSchedulable(group, skl, watchdog);
  ASSERT_FALSE(status.ok()) << "cycles must move to a general counter, and none is free";
  EXPECT_NE(status.message().find("nmi_watchdog=0"), std::string::npos);
  group.pop_back();
  EXPECT_TRUE(CheckSchedulable(group, skl, watchdog).ok());
  // AMD has no fixed counters: the watchdog costs a general one.
  const CounterModel zen = Model("zen4");
  EXPECT_TRUE(CheckSchedulable(GeneralEvents(6), zen, {}).ok());
  EXPECT_FALSE(CheckSchedulable(GeneralEvents(6), zen, watchdog).ok());
}

TEST(CheckSchedulable, CounterRestrictedEventsCompete) {
  const CounterModel ivb = Model("ivb");
  // L1D_PEND_MISS.PENDING and CYCLE_ACTIVITY.STALLS_L1D_PENDING both need counter 2.
  std::vector<EventInfo> both = {Raw("L1D_PEND_MISS.PENDING", 0x148),
                                 Raw("CYCLE_ACTIVITY.STALLS_L1D_PENDING", 0xc0c00a3)};
  // cmask lives above bit 16; the restriction is on event|umask.
  both[1].perf_config = 0x0ca3 | (12ull << 24);
  auto status = CheckSchedulable(both, ivb, {});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("counter-restricted"), std::string::npos) << status;
  EXPECT_TRUE(CheckSchedulable({both[0], Raw("UOPS_ISSUED.ANY", 0x10e)}, ivb, {}).ok());
  // ICL: five events of the 0-3 range cannot share a group, four can.
  const CounterModel icl = Model("icl");
  std::vector<EventInfo> offcore;
  for (int u = 1; u <= 5; ++u) offcore.push_back(Raw("OFFCORE" + std::to_string(u), 0x60 | (u << 8)));
  EXPECT_FALSE(CheckSchedulable(offcore, icl, {}).ok());
  offcore.pop_back();
  EXPECT_TRUE(CheckSchedulable(offcore, icl, {}).ok());
  // ...but the exempt CYCLE_ACTIVITY.STALLS_TOTAL may use counters 4-7.
  offcore.push_back(Raw("CYCLE_ACTIVITY.STALLS_TOTAL", 0x04a3 | (4ull << 24)));
  EXPECT_TRUE(CheckSchedulable(offcore, icl, {}).ok());
}

TEST(CheckSchedulable, AmdLargeIncrementEventsTakeAPair) {
  const CounterModel zen = Model("zen4");
  std::vector<EventInfo> group = GeneralEvents(5);
  group.push_back(Raw("FP_RET_SSE_AVX_OPS.ALL", 0xff03));
  auto status = CheckSchedulable(group, zen, {});
  EXPECT_FALSE(status.ok()) << "5 single events and a pair need 7 of 6 counters";
  EXPECT_NE(status.message().find("needs 7 general-purpose"), std::string::npos) << status;
  group.erase(group.begin());
  EXPECT_TRUE(CheckSchedulable(group, zen, {}).ok());
}

TEST(CheckSchedulable, TopdownMetricsNeedSlotsLeading) {
  const CounterModel icl = Model("icl");
  std::vector<EventInfo> group = {Raw("slots", 0x400), Raw("topdown-retiring", 0x8000),
                                  Raw("topdown-bad-spec", 0x8100), Raw("topdown-fe-bound", 0x8200),
                                  Raw("topdown-be-bound", 0x8300)};
  EXPECT_TRUE(CheckSchedulable(group, icl, {}).ok());
  std::swap(group[0], group[1]);
  auto status = CheckSchedulable(group, icl, {});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("led by slots"), std::string::npos);
}

// Found with event_list_fuzzer: a group one event larger than the counters
// its events may use was searched exhaustively ((counters)! arrangements)
// before being refused, for every merge PlanGroups tried: 60 raw events in
// TD_EVENTS on Skylake without SMT took minutes. 16 counters would take
// years; it is now refused without searching.
TEST(CheckSchedulable, TooManyEventsAreRefusedWithoutSearching) {
  CounterModel wide;
  wide.general = 16;
  const std::vector<EventInfo> group = GeneralEvents(17);
  const absl::Status status = CheckSchedulable(group, wide, PlanOptions());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("needs 17 general-purpose counters, the PMU has 16"), std::string::npos)
      << status;
  std::vector<GroupRequest> requests;
  for (const EventInfo& e : GeneralEvents(60)) requests.push_back({{e}, false, "TD_EVENTS"});
  PlanOptions no_smt;
  no_smt.smt_on = false;
  auto planned = PlanGroups(requests, Model("skl"), no_smt);
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_EQ(planned->size(), 8u);  // 60 events, 8 general-purpose counters
}

TEST(PlanGroups, MergesFormulasThatFitAndSplitsTheRest) {
  const CounterModel skl = Model("skl");
  const EventInfo cycles = Generic("cycles", PERF_COUNT_HW_CPU_CYCLES);
  std::vector<GroupRequest> requests;
  requests.push_back({{cycles, Raw("IDQ_UOPS_NOT_DELIVERED.CORE", 0x19c)}, false, "Frontend_Bound"});
  requests.push_back({{cycles, Raw("UOPS_RETIRED.RETIRE_SLOTS", 0x2c2)}, false, "Retiring"});
  requests.push_back({{cycles, Raw("UOPS_ISSUED.ANY", 0x10e), Raw("UOPS_RETIRED.RETIRE_SLOTS", 0x2c2),
                       Raw("INT_MISC.RECOVERY_CYCLES", 0x10d)},
                      false, "Bad_Speculation"});
  requests.push_back({GeneralEvents(4), false, "four more"});
  auto groups = PlanGroups(requests, skl, {});
  ASSERT_TRUE(groups.ok()) << groups.status();
  ASSERT_EQ(groups->size(), 2u);
  EXPECT_EQ((*groups)[0].size(), 5u) << "cycles once, four general events";
  EXPECT_EQ((*groups)[1].size(), 4u);
  for (const auto& group : *groups) EXPECT_TRUE(CheckSchedulable(group, skl, {}).ok());
}

TEST(PlanGroups, AddsTheSlotsLeaderAndRejectsImpossibleGroups) {
  const CounterModel spr = Model("spr");
  auto groups = PlanGroups({{{Raw("topdown-retiring", 0x8000), Raw("topdown-fe-bound", 0x8200)}, false, "L1"}},
                           spr, {});
  ASSERT_TRUE(groups.ok()) << groups.status();
  ASSERT_EQ((*groups)[0].size(), 3u);
  EXPECT_EQ((*groups)[0][0].perf_config, 0x400u);
  // Two counter-0-only events can never be counted together.
  auto impossible = PlanGroups({{{Raw("TOPDOWN.BAD_SPEC_SLOTS", 0x4a4), Raw("TOPDOWN.BR_MISPREDICT_SLOTS", 0x8a4)},
                                 true, "TD_EVENTS"}},
                               spr, {});
  ASSERT_FALSE(impossible.ok());
  EXPECT_NE(impossible.status().message().find("TD_EVENTS: group can never be scheduled"), std::string::npos)
      << impossible.status();
  // Forced groups stay as written: nothing joins them.
  auto forced = PlanGroups({{{Raw("A", 0x10e)}, true, "TD_EVENTS"}, {{Raw("B", 0x2c2)}, false, "TD_EVENTS"}},
                           spr, {});
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(forced->size(), 2u);
}

TEST(PlanGroups, UnknownModelKeepsEachRequestApart) {
  auto groups = PlanGroups({{GeneralEvents(9), false, "x"}, {GeneralEvents(2), false, "y"}}, CounterModel{}, {});
  ASSERT_TRUE(groups.ok());
  EXPECT_EQ(groups->size(), 2u);
}

}  // namespace
}  // namespace td

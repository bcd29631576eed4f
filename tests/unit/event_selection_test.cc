// Which groups a run opens, and how their multiplexed counts are reported.
#include "runtime/counters/event_selection.h"

#include <linux/perf_event.h>

#include <algorithm>

#include "gtest/gtest.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/report/counter_text.h"
#include "runtime/model/run_file.h"

namespace td {
namespace {

const DefinitionLibrary& Library() {
  static const auto* library = new DefinitionLibrary(*DefinitionLibrary::Load());
  return *library;
}

const MetricSet& Metrics(const std::string& uarch) {
  static auto* sets = new std::map<std::string, MetricSet>;
  auto it = sets->find(uarch);
  if (it == sets->end()) it = sets->emplace(uarch, *Library().ForUarch(uarch)).first;
  return it->second;
}

SelectionInput WithPmu(const std::string& uarch, int level) {
  SelectionInput input;
  input.hardware_available = true;
  input.metrics = &Metrics(uarch);
  input.library = &Library();
  input.level = level;
  return input;
}

bool Has(const std::vector<EventInfo>& group, const std::string& name) {
  return std::any_of(group.begin(), group.end(), [&](const EventInfo& e) { return e.name == name; });
}

TEST(SelectEvents, SoftwareEventsCountAndHardwareOnesSaySkippedWithoutAPmu) {
  SelectionInput input;
  input.td_events = "minor-faults,{major-faults,cpu-clock},cycles,skl::UOPS_ISSUED:ANY,no_such_event";
  input.hardware_reason = "no hardware PMU";
  input.library = &Library();
  const EventSelection s = SelectEvents(input);
  ASSERT_EQ(s.groups.size(), 3u) << "software events each in a group of their own";
  EXPECT_EQ(s.groups[0][0].name, "minor-faults");
  EXPECT_EQ(s.groups[2][0].name, "cpu-clock");
  ASSERT_EQ(s.notices.size(), 2u);
  EXPECT_NE(s.notices[0].find("software events never multiplex"), std::string::npos);
  EXPECT_EQ(s.notices[1], "TD_EVENTS: hardware events cycles, skl::UOPS_ISSUED:ANY not counted: no hardware PMU");
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_NE(s.errors[0].find("no_such_event"), std::string::npos) << s.errors[0];
}

TEST(SelectEvents, RepeatedEventsAreCountedOnceWithOneLine) {
  SelectionInput input;
  std::string events = "minor-faults";
  for (int i = 0; i < 300; ++i) events += ",task-clock";
  events += ",minor-faults,{cycles,cycles}";
  input.td_events = events;
  input.hardware_available = true;
  input.library = &Library();
  const EventSelection s = SelectEvents(input);
  size_t minor = 0, task_clock = 0;
  for (const auto& group : s.groups) {
    for (const EventInfo& e : group) {
      minor += e.name == "minor-faults";
      task_clock += e.name == "task-clock";
    }
  }
  EXPECT_EQ(minor, 1u);
  EXPECT_EQ(task_clock, 0u) << "the software group counts it already";
  const auto said = std::count_if(s.notices.begin(), s.notices.end(), [](const std::string& n) {
    return n == "TD_EVENTS: listed again or counted by default, counted once: task-clock (300 extra), "
                "minor-faults (1 extra), cycles (1 extra)";
  });
  EXPECT_EQ(said, 1) << (s.notices.empty() ? "" : s.notices.back());
}

TEST(SelectEvents, DefaultsAreTheFormulaEventsPlannedIntoSchedulableGroups) {
  for (const std::string uarch : {"skl", "icl", "spr", "zen4", "neoverse_v2"}) {
    const SelectionInput input = WithPmu(uarch, 1);
    const EventSelection s = SelectEvents(input);
    EXPECT_TRUE(s.errors.empty()) << uarch << ": " << (s.errors.empty() ? "" : s.errors[0]);
    ASSERT_FALSE(s.groups.empty()) << uarch;
    for (const auto& group : s.groups) {
      EXPECT_TRUE(CheckSchedulable(group, Metrics(uarch).counters, input.plan).ok()) << uarch;
    }
  }
  const EventSelection s = SelectEvents(WithPmu("skl", 1));
  bool frontend = false;
  for (const auto& g : s.groups) frontend |= Has(g, "IDQ_UOPS_NOT_DELIVERED.CORE");
  EXPECT_TRUE(frontend) << "Frontend_Bound's event is collected on Skylake";
}

TEST(SelectEvents, IceLakeCollectsTheSlotsLedMetricsGroup) {
  const EventSelection s = SelectEvents(WithPmu("icl", 1));
  const auto metrics_group = std::find_if(s.groups.begin(), s.groups.end(), [](const auto& g) {
    return std::any_of(g.begin(), g.end(), [](const EventInfo& e) { return e.perf_config == 0x8000; });
  });
  ASSERT_NE(metrics_group, s.groups.end());
  EXPECT_EQ(metrics_group->front().perf_config, 0x400u) << "slots leads";
}

TEST(SelectEvents, PassesSplitTheHardwareGroups) {
  SelectionInput input = WithPmu("skl", 3);
  const EventSelection all = SelectEvents(input);
  ASSERT_GE(all.hardware_groups_planned, 2);
  size_t total = 0;
  for (int pass = 1; pass <= 2; ++pass) {
    input.pass = pass;
    input.passes = 2;
    const EventSelection part = SelectEvents(input);
    EXPECT_EQ(part.hardware_groups_planned, all.hardware_groups_planned);
    total += part.groups.size();
  }
  EXPECT_EQ(total, all.groups.size()) << "every group in exactly one pass";
}

TEST(SelectEvents, ImpossibleGroupIsAnErrorAndTheRestStillCounts) {
  SelectionInput input = WithPmu("skl", 2);
  input.td_events = "{r010e,r020e,r040e,r080e,r01c2},instructions";
  const EventSelection s = SelectEvents(input);
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_NE(s.errors[0].find("TD_EVENTS: group can never be scheduled"), std::string::npos) << s.errors[0];
  ASSERT_EQ(s.groups.size(), 1u);
  EXPECT_EQ(s.groups[0][0].name, "instructions");
}

// A run with a second, multiplexed group: half of one region, none of another.
RunData MultiplexedRun() {
  RunData data;
  data.layout = SoftwareLayout();
  EventInfo instructions;
  instructions.name = "instructions";
  instructions.unit = "count";
  instructions.perf_type = PERF_TYPE_HARDWARE;
  instructions.perf_config = PERF_COUNT_HW_INSTRUCTIONS;
  instructions.hardware = true;
  data.layout.AddGroup({instructions});
  data.threads = {{0, 10, false, true, ""}};
  Region half{"half", "half", -1, {}, {}};
  RegionOnThread t{0, 1, 0, 0, 0, 1000, 1000, {}, {}};
  t.events = {{0, 0}, {1000, 1000}, {0, 0}, {0, 0}, {500000, 500000}};
  t.groups = {{1000, 1000}, {1000, 500}};
  half.threads.push_back(t);
  Region never{"never", "never", -1, {}, {}};
  t.events.back() = {0, 0};
  t.groups = {{1000, 1000}, {1000, 0}};
  never.threads.push_back(t);
  Region tiny{"tiny", "tiny", -1, {}, {}};
  t.calls = 10;
  t.events.back() = {30000, 30000};
  t.groups = {{1000, 1000}, {1000, 1000}};
  tiny.threads.push_back(t);
  data.regions = {half, never, tiny};
  return data;
}

TEST(Coverage, ScaledCountsCoverageAndNotMeasured) {
  const RunData data = MultiplexedRun();
  EXPECT_DOUBLE_EQ(*GroupCoverage(data.regions[0], 1), 0.5);
  EXPECT_DOUBLE_EQ(*GroupCoverage(data.regions[1], 1), 0.0);
  EXPECT_DOUBLE_EQ(*ScaledRegionCount(data, data.regions[0], 4), 1000000.0) << "500,000 × 1000/500";
  EXPECT_FALSE(ScaledRegionCount(data, data.regions[1], 4).has_value()) << "never ran: not 0";
  const std::string text = FormatCounterSection(data, {});
  EXPECT_NE(text.find("group 1 {instructions}: coverage  50%  instructions 1,000,000"), std::string::npos) << text;
  EXPECT_NE(text.find("never\n    group 1 {instructions}: not measured"), std::string::npos) << text;
  EXPECT_NE(text.find("too short to trust: 3,000 instructions per call"), std::string::npos) << text;
  EXPECT_EQ(text.find("half\n    group 1 {instructions}: coverage  50%  instructions 1,000,000\n    too short"),
            std::string::npos)
      << "1,000,000 instructions in one call is long enough";
}

TEST(Coverage, AnEventInTwoGroupsKeepsBothCopiesInJson) {
  RunData data = MultiplexedRun();
  EventInfo again = data.layout.events.back();  // "instructions" once more, in group 2
  data.layout.AddGroup({again});
  for (Region& r : data.regions) {
    r.threads[0].events.push_back({7, 7});
    r.threads[0].groups.push_back({1000, 1000});
  }
  const nlohmann::json j = RunToJson(data);
  const nlohmann::json& counters = j.at("regions")[0].at("threads")[0].at("counters");
  EXPECT_EQ(counters.at("instructions").at("inclusive"), 500000);
  EXPECT_EQ(counters.at("instructions@g2").at("inclusive"), 7);
  auto back = RunFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->regions[0].threads[0].events.back().inclusive, 7u);
  EXPECT_EQ(back->layout.GroupOf(back->layout.events.size() - 1), 2u);
}

TEST(Coverage, OnlyTheDefaultGroupPrintsNothing) {
  RunData data;
  data.layout = SoftwareLayout();
  EXPECT_EQ(FormatCounterSection(data, {}), "");
}

}  // namespace
}  // namespace td

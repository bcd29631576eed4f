// Which groups a run opens: formula events planned into groups, passes,
// memory traffic (TD_MEMORY) and hybrid parts' core types.
#include "runtime/counters/event_selection.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tests/unit/embedded_library.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/machine/machine_info.h"
#include "runtime/uarch/definitions.h"
#include "tests/unit/fake_sysfs.h"

namespace td {
namespace {

using fake_sysfs::FakeSysfs;

const MetricSet& Metrics(const std::string& uarch) {
  static auto* sets = new std::map<std::string, MetricSet>;
  auto it = sets->find(uarch);
  if (it == sets->end()) it = sets->emplace(uarch, *EmbeddedLibrary().ForUarch(uarch)).first;
  return it->second;
}

SelectionInput WithPmu(const std::string& uarch, int level) {
  SelectionInput input;
  input.hardware_available = true;
  input.metrics = &Metrics(uarch);
  input.library = &EmbeddedLibrary();
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
  input.library = &EmbeddedLibrary();
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
  input.library = &EmbeddedLibrary();
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
  EXPECT_TRUE(s.software_group_named) << "task-clock is the software group's: it stays";
  const auto said = std::count_if(s.notices.begin(), s.notices.end(), [](const std::string& n) {
    return n == "TD_EVENTS: listed again or counted by default, counted once: task-clock (300 extra), "
                "minor-faults (1 extra), cycles (1 extra)";
  });
  EXPECT_EQ(said, 1) << (s.notices.empty() ? "" : s.notices.back());
}

TEST(SelectEvents, OtherSoftwareEventsDoNotKeepTheSoftwareGroup) {
  SelectionInput input;
  input.td_events = "minor-faults,cycles";
  input.hardware_available = true;
  input.library = &EmbeddedLibrary();
  EXPECT_FALSE(SelectEvents(input).software_group_named);
  input.td_events = "cycles,page-faults";
  EXPECT_TRUE(SelectEvents(input).software_group_named);
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

// A machine with SMT off: its counts are whole cores' (perf's #core_wide), so
// TMA 5's pre-Ice-Lake formulas need no thread-share events.
MachineConstants SmtOff() {
  MachineInfo machine;
  machine.smt_active = 0;
  return ConstantsOf(machine);
}

SelectionInput SkxInput(const FakeSysfs& sysfs) {
  static const MetricSet* skx = new MetricSet(Metrics("skx"));
  SelectionInput input;
  input.hardware_available = true;
  input.metrics = skx;
  input.library = &EmbeddedLibrary();
  input.level = 1;
  input.sysfs_devices = sysfs.path();
  input.machine_constants = SmtOff();
  input.plan.smt_on = false;  // all of the core's counters
  return input;
}

size_t SystemWideGroups(const EventSelection& s) {
  return std::count_if(s.groups.begin(), s.groups.end(), [](const auto& g) { return g[0].system_wide(); });
}

bool Selects(const EventSelection& s, const std::string& name) {
  for (const auto& g : s.groups) {
    for (const EventInfo& e : g) {
      if (e.name == name) return true;
    }
  }
  return false;
}

TEST(SelectMemory, PermittedRunsOpenTheControllersInTheFirstPassOnly) {
  FakeSysfs sysfs;
  sysfs.AddServerImc(0, 13, "0");
  SelectionInput input = SkxInput(sysfs);
  input.system_wide_permitted = true;
  EventSelection s = SelectEvents(input);
  EXPECT_EQ(SystemWideGroups(s), 1u);
  EXPECT_FALSE(Selects(s, "LONGEST_LAT_CACHE.MISS")) << "no estimate when the controllers count";
  EXPECT_EQ(s.memory.rfind("socket-wide memory-controller counts, uncore_imc_0 on 1 socket", 0), 0u) << s.memory;
  input.pass = 2;
  input.passes = 2;
  EXPECT_EQ(SystemWideGroups(SelectEvents(input)), 0u);
}

TEST(SelectMemory, NotPermittedFallsBackToThePerThreadEstimate) {
  FakeSysfs sysfs;
  sysfs.AddServerImc(0, 13, "0");
  const EventSelection s = SelectEvents(SkxInput(sysfs));
  EXPECT_EQ(SystemWideGroups(s), 0u);
  EXPECT_TRUE(Selects(s, "LONGEST_LAT_CACHE.MISS"));
  EXPECT_EQ(s.memory.rfind("per-thread estimate: DRAM_Read_Bytes", 0), 0u) << s.memory;
  EXPECT_NE(s.memory.find("no socket counts: memory controllers count the whole socket and need "
                          "perf_event_paranoid <= 0, CAP_PERFMON or root"),
            std::string::npos)
      << s.memory;
}

TEST(SelectMemory, ModesAndExplicitEventLists) {
  FakeSysfs sysfs;
  sysfs.AddServerImc(0, 13, "0");
  SelectionInput input = SkxInput(sysfs);
  input.system_wide_permitted = true;
  input.memory = MemoryMode::kOff;
  EventSelection off = SelectEvents(input);
  EXPECT_EQ(SystemWideGroups(off), 0u);
  EXPECT_TRUE(off.memory.empty());
  input.memory = MemoryMode::kEstimate;
  EXPECT_TRUE(Selects(SelectEvents(input), "LONGEST_LAT_CACHE.MISS"));
  input.memory = MemoryMode::kAuto;
  input.td_events = "cycles";
  EXPECT_EQ(SystemWideGroups(SelectEvents(input)), 0u) << "auto adds nothing to the user's own list";
  input.memory = MemoryMode::kSocket;
  EXPECT_EQ(SystemWideGroups(SelectEvents(input)), 1u);
  input.system_wide_permitted = false;
  const EventSelection refused = SelectEvents(input);
  EXPECT_EQ(SystemWideGroups(refused), 0u);
  EXPECT_FALSE(Selects(refused, "LONGEST_LAT_CACHE.MISS")) << "socket was asked for, not the estimate";
  ASSERT_FALSE(refused.notices.empty());
  EXPECT_EQ(refused.notices.back().rfind("TD_MEMORY=socket: ", 0), 0u);
}

TEST(SelectMemory, WithoutAPmuNothingIsCountedAndAskingSaysWhy) {
  FakeSysfs sysfs;
  SelectionInput input = SkxInput(sysfs);
  input.hardware_available = false;
  input.hardware_reason = "no hardware PMU";
  EXPECT_TRUE(SelectEvents(input).notices.empty()) << "auto stays quiet: the missing PMU is said once elsewhere";
  input.memory = MemoryMode::kEstimate;
  const EventSelection s = SelectEvents(input);
  ASSERT_EQ(s.notices.size(), 1u);
  EXPECT_EQ(s.notices[0], "TD_MEMORY: memory traffic not measured: no hardware PMU");
}

TEST(SelectMemory, AutoTakesTheEstimateOnlyWhereACounterIsFree) {
  FakeSysfs sysfs;
  SelectionInput input = SkxInput(sysfs);
  const MetricSet zen4 = Metrics("zen4");
  input.metrics = &zen4;  // Level 1 fills all six counters
  input.memory = MemoryMode::kOff;
  const size_t groups = SelectEvents(input).groups.size();
  input.memory = MemoryMode::kAuto;
  const EventSelection automatic = SelectEvents(input);
  EXPECT_EQ(automatic.groups.size(), groups);
  EXPECT_TRUE(automatic.memory.empty());
  ASSERT_FALSE(automatic.notices.empty());
  EXPECT_NE(automatic.notices.back().find("TD_MEMORY=estimate counts it anyway"), std::string::npos);
  input.memory = MemoryMode::kEstimate;
  EXPECT_EQ(SelectEvents(input).groups.size(), groups + 1);
}

// Hybrid parts: each core type's events from its own definitions, on its own PMU.
TEST(SelectForCoreTypes, AlderLakeGetsGroupsOnBothCorePmus) {
  FakeSysfs sysfs;
  sysfs.Write("cpu_core/type", "4");
  sysfs.Write("cpu_atom/type", "10");
  SelectionInput input;
  input.hardware_available = true;
  input.level = 1;
  input.sysfs_devices = sysfs.path();
  input.memory = MemoryMode::kOff;
  const EventSelection s = SelectForCoreTypes(input, EmbeddedLibrary(), "adl");
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  bool core = false, atom = false;
  for (const auto& group : s.groups) {
    for (const EventInfo& e : group) {
      ASSERT_TRUE(e.core_type == "cpu_core" || e.core_type == "cpu_atom") << e.name;
      EXPECT_EQ(e.core_type, group.front().core_type) << "a group never spans core types";
      EXPECT_EQ(e.perf_type, e.core_type == "cpu_core" ? 4u : 10u) << e.name;
      core |= e.core_type == "cpu_core" && e.perf_config == 0x0400;  // slots
      atom |= e.core_type == "cpu_atom" && e.name == "TOPDOWN_FE_BOUND.ALL";
    }
  }
  EXPECT_TRUE(core) << "P-cores: the slots-led PERF_METRICS group";
  EXPECT_TRUE(atom) << "E-cores: Gracemont's TOPDOWN_* events";

  input.td_events = "cycles,minor-faults";
  const EventSelection listed = SelectForCoreTypes(input, EmbeddedLibrary(), "adl");
  std::vector<uint64_t> cycles_configs;
  size_t software = 0;
  for (const auto& group : listed.groups) {
    for (const EventInfo& e : group) {
      if (e.name == "cycles") cycles_configs.push_back(e.perf_config);
      software += e.name == "minor-faults";
    }
  }
  EXPECT_EQ(cycles_configs, (std::vector<uint64_t>{uint64_t{4} << 32, uint64_t{10} << 32}))
      << "perf's generic cycles, once per core PMU (type in config[63:32])";
  EXPECT_EQ(software, 1u) << "software events are counted once";
}

TEST(SelectForCoreTypes, OneCorePmuIsTheUsualSelection) {
  FakeSysfs sysfs;
  SelectionInput input = SkxInput(sysfs);
  input.memory = MemoryMode::kOff;
  const EventSelection plain = SelectEvents(input);
  const EventSelection via = SelectForCoreTypes(input, EmbeddedLibrary(), "skx");
  ASSERT_EQ(via.groups.size(), plain.groups.size());
  for (size_t g = 0; g < via.groups.size(); ++g) {
    ASSERT_EQ(via.groups[g].size(), plain.groups[g].size());
    for (size_t i = 0; i < via.groups[g].size(); ++i) {
      EXPECT_EQ(via.groups[g][i].perf_config, plain.groups[g][i].perf_config);
      EXPECT_TRUE(via.groups[g][i].core_type.empty());
    }
  }
}

// TD_LEVEL=6 on every Intel key: the deeper nodes of intel_depth_*.json
// bring their events; each is planned into a group or named in one line, and
// more levels never mean fewer events.
TEST(SelectEvents, EveryIntelKeyPlansItsDeepestLevel) {
  for (const char* uarch : {"snb", "ivb", "hsw", "bdw", "skl", "skx", "clx", "icl", "icx", "tgl", "spr", "emr", "adl_glc"}) {
    size_t previous = 0;
    for (int level : {2, 6}) {
      const EventSelection s = SelectEvents(WithPmu(uarch, level));
      size_t events = 0;
      for (const auto& group : s.groups) events += group.size();
      for (const std::string& e : s.errors) EXPECT_EQ(e.find('\n'), std::string::npos) << uarch << ": " << e;
      std::printf("%-8s level %d: %zu events in %zu groups, %zu lines\n", uarch, level, events, s.groups.size(),
                  s.errors.size() + s.notices.size());
      EXPECT_GT(events, previous) << uarch << " level " << level;
      previous = events;
    }
  }
}

// A formula's branch the machine rules out needs no events: PMM_Bound's
// loads only where there is persistent memory; unknown (the files' -1)
// counts as none, as in the analysis. (False_Sharing's remote-HITM branch
// works the same way with Sockets; its offcore events need libpfm4's extra
// register, which cannot be encoded here.)
TEST(SelectEvents, BranchesTheMachineRulesOutNeedNoEvents) {
  auto names = [](const std::string& uarch, int level, const MachineConstants& machine) {
    SelectionInput input = WithPmu(uarch, level);
    input.machine_constants = machine;
    std::set<std::string> out;
    for (const auto& group : SelectEvents(input).groups) {
      for (const EventInfo& e : group) out.insert(e.name);
    }
    return out;
  };
  const std::set<std::string> without = names("clx", 3, {{"Has_PMEM", 0}});
  const std::set<std::string> with = names("clx", 3, {{"Has_PMEM", 1}});
  const std::set<std::string> unknown = names("clx", 3, {});
  EXPECT_FALSE(without.count("MEM_LOAD_RETIRED.LOCAL_PMM"));
  EXPECT_FALSE(unknown.count("MEM_LOAD_RETIRED.LOCAL_PMM"));
  EXPECT_TRUE(with.count("MEM_LOAD_RETIRED.LOCAL_PMM"));
  EXPECT_TRUE(with.count("MEM_LOAD_L3_MISS_RETIRED.REMOTE_PMM"));
  EXPECT_GT(with.size(), without.size());
  MachineInfo machine;
  machine.sockets = 2;
  machine.persistent_memory = 0;
  const MachineConstants constants = ConstantsOf(machine);
  EXPECT_EQ(constants.at("Sockets"), 2);
  EXPECT_EQ(constants.at("Has_PMEM"), 0);
  EXPECT_FALSE(constants.contains("SMT_on")) << "unknown (-1) is left to the files";
}

// A PMU that refuses some events and has fewer counters than the files say:
// the nodes whose events open are still planned, in groups that fit.
SelectionInput ProbedSkylake(const FakeSysfs& sysfs, int level) {
  SelectionInput input = WithPmu("skl", level);
  input.sysfs_devices = sysfs.path();  // no kernel topdown events: the files' own forms
  input.memory = MemoryMode::kOff;
  input.machine_constants = SmtOff();
  return input;
}

std::set<std::string> EventNames(const EventSelection& s) {
  std::set<std::string> names;
  for (const auto& group : s.groups) {
    for (const EventInfo& e : group) names.insert(e.name);
  }
  return names;
}

TEST(ProbedPmu, NodesNeedingAnEventThatDoesNotOpenAreLeftOutAndTheRestPlanned) {
  FakeSysfs sysfs;
  SelectionInput input = ProbedSkylake(sysfs, 2);
  input.probed.unopened = {{"IDQ_UOPS_NOT_DELIVERED.CORE", ENOENT},  // Frontend_Bound
                           {"MACHINE_CLEARS.COUNT", EOPNOTSUPP},      // Bad_Speculation.Branch_Mispredicts
                           {"EXE_ACTIVITY.1_PORTS_UTIL", EINVAL},     // Backend_Bound.Memory_Bound
                           {"UOPS_RETIRED.MACRO_FUSED", EACCES}};     // Retiring.Heavy_Operations
  const EventSelection s = SelectEvents(input);
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  // Bad_Speculation, Retiring, Backend_Bound and Frontend_Bound.Fetch_Latency remain.
  EXPECT_EQ(EventNames(s), (std::set<std::string>{"UOPS_ISSUED.ANY", "UOPS_RETIRED.RETIRE_SLOTS",
                                                  "INT_MISC.RECOVERY_CYCLES", "CPU_CLK_UNHALTED.THREAD",
                                                  "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE"}));
  ASSERT_EQ(s.notices.size(), 1u);
  EXPECT_EQ(s.notices[0],
            "events that do not open on this machine: IDQ_UOPS_NOT_DELIVERED.CORE (ENOENT), MACHINE_CLEARS.COUNT "
            "(EOPNOTSUPP), EXE_ACTIVITY.1_PORTS_UTIL (EINVAL), UOPS_RETIRED.MACRO_FUSED (EACCES); the nodes that "
            "need them are not computed");
  EXPECT_EQ(s.not_opened, (std::map<std::string, std::string>{{"IDQ_UOPS_NOT_DELIVERED.CORE", "ENOENT"},
                                                              {"MACHINE_CLEARS.COUNT", "EOPNOTSUPP"},
                                                              {"EXE_ACTIVITY.1_PORTS_UTIL", "EINVAL"},
                                                              {"UOPS_RETIRED.MACRO_FUSED", "EACCES"}}));
  const EventSelection full = SelectEvents(ProbedSkylake(sysfs, 2));
  EXPECT_EQ(EventNames(full).size(), 15u) << "without the probe every level-2 node's events";
  EXPECT_EQ(full.notices, std::vector<std::string>{"Backend_Bound.Memory_Bound needs 5 events, more than one group "
                                                   "holds; they are counted in separate groups"});
}

// Only the architectural events (core cycles, instructions, reference
// cycles, branches, branch misses: the same encodings on every Intel core)
// open, as on a hypervisor that exposes no model-specific events: Skylake's
// tree needs a model-specific event in every node, so nothing of it is
// planned, and one line names every event it lacked; a TD_EVENTS list of the
// architectural events is still counted.
TEST(ProbedPmu, OnlyArchitecturalEventsOpening) {
  FakeSysfs sysfs;
  SelectionInput input = ProbedSkylake(sysfs, 3);
  const auto architectural = [](const EventInfo& e) {
    const uint64_t event_umask = e.perf_config & 0xffff;
    return e.perf_type == PERF_TYPE_HARDWARE ||
           ((e.perf_config >> 16) == 0 && (event_umask == 0x3c || event_umask == 0xc0 || event_umask == 0x13c ||
                                           event_umask == 0xc4 || event_umask == 0xc5));
  };
  size_t refused = 0;
  for (const auto& group : SelectEvents(input).groups) {
    for (const EventInfo& e : group) {
      if (!architectural(e) && input.probed.unopened.emplace(e.name, ENOENT).second) ++refused;
    }
  }
  ASSERT_GT(refused, 30u);
  const EventSelection s = SelectEvents(input);
  EXPECT_TRUE(s.groups.empty()) << s.groups.front().front().name;
  ASSERT_EQ(s.notices.size(), 1u);
  EXPECT_EQ(s.notices[0].rfind("events that do not open on this machine: IDQ_UOPS_NOT_DELIVERED.CORE (ENOENT), ", 0),
            0u)
      << s.notices[0];
  EXPECT_EQ(s.not_opened.size(), refused) << "every refused event was needed by a node";

  input.td_events = "cycles,instructions,ref-cycles,branches,branch-misses,r010e";
  input.probed.unopened["r010e"] = ENOENT;
  const EventSelection listed = SelectEvents(input);
  EXPECT_EQ(EventNames(listed),
            (std::set<std::string>{"cycles", "instructions", "ref-cycles", "branches", "branch-misses"}));
  ASSERT_EQ(listed.notices.size(), 1u);
  EXPECT_EQ(listed.notices[0], "TD_EVENTS: events that do not open on this machine: r010e (ENOENT); not counted");
}

// Events a group holds that only a general-purpose counter can take: those
// with no fixed counter of their own (or whose fixed counter the NMI watchdog
// holds: core cycles).
int GeneralPurposeEvents(const std::vector<EventInfo>& group, const CounterModel& model, bool watchdog) {
  int general = 0;
  for (const EventInfo& e : group) {
    const auto event_umask = static_cast<uint32_t>(e.perf_config & 0xffff);
    const bool plain = e.perf_type == PERF_TYPE_RAW && (e.perf_config >> 16) == 0;
    const bool fixed = plain && std::find(model.fixed.begin(), model.fixed.end(), event_umask) != model.fixed.end() &&
                       !(watchdog && event_umask == (model.cycles & 0xffff));
    general += fixed ? 0 : 1;
  }
  return general;
}

TEST(ProbedPmu, GroupsHoldNoMoreGeneralPurposeEventsThanTheProbeFound) {
  FakeSysfs sysfs;
  for (const bool watchdog : {false, true}) {
    SelectionInput input = ProbedSkylake(sysfs, 3);
    input.plan.smt_on = false;  // Skylake's files: 8 counters without SMT, 4 with
    input.plan.nmi_watchdog = watchdog;
    const size_t unprobed = SelectEvents(input).groups.size();
    std::map<int, size_t> groups;
    for (const int counters : {2, 4, 6}) {
      input.probed.general_counters = counters;
      const EventSelection s = SelectEvents(input);
      EXPECT_TRUE(s.errors.empty()) << counters << ": " << s.errors.front();
      int most = 0;
      for (const auto& group : s.groups) {
        most = std::max(most, GeneralPurposeEvents(group, Metrics("skl").counters, watchdog));
      }
      EXPECT_EQ(most, counters) << "watchdog " << watchdog << ": groups filled up to the probed counters";
      groups[counters] = s.groups.size();
      ASSERT_FALSE(s.notices.empty());
      EXPECT_EQ(s.notices[0],
                absl::StrFormat("the PMU offers %d general-purpose counters where skl's definitions say 8 (a virtual "
                                "machine or another user holds the rest); groups planned for %d",
                                counters, counters));
    }
    EXPECT_GT(groups[2], groups[4]);
    EXPECT_GT(groups[4], groups[6]);
    EXPECT_GT(groups[6], unprobed);
    input.probed.general_counters = 8;
    EXPECT_EQ(SelectEvents(input).groups.size(), unprobed) << "as many as the files say: as planned before";
    EXPECT_TRUE(SelectEvents(input).notices.empty());
  }
}

// The kernel validates a group against the PMU alone, so the probe counts
// the counter the watchdog holds; the planner takes it off once. Zen has no
// fixed counters: the watchdog costs a general-purpose one.
TEST(ProbedPmu, TheNmiWatchdogCostsOneCounterOnce) {
  FakeSysfs sysfs;
  SelectionInput input = WithPmu("zen4", 2);
  input.sysfs_devices = sysfs.path();
  input.memory = MemoryMode::kOff;
  input.probed.general_counters = 4;
  for (const bool watchdog : {false, true}) {
    input.plan.nmi_watchdog = watchdog;
    size_t most = 0;
    for (const auto& group : SelectEvents(input).groups) most = std::max(most, group.size());
    EXPECT_EQ(most, watchdog ? 3u : 4u);
  }
}

TEST(ProbedPmu, AnUnknownCpuIsPlannedForTheProbedCounters) {
  SelectionInput input;
  input.td_events = "r010e,r020e,r040e,r080e,r01c2";
  input.hardware_available = true;
  input.library = &EmbeddedLibrary();
  EXPECT_EQ(SelectEvents(input).groups.size(), 5u) << "unknown counters: each event alone, the kernel decides";
  input.probed.general_counters = 2;
  const EventSelection s = SelectEvents(input);
  ASSERT_EQ(s.groups.size(), 3u);
  EXPECT_EQ(s.groups[0].size(), 2u);
  EXPECT_EQ(s.groups[1].size(), 2u);
  EXPECT_EQ(s.groups[2].size(), 1u);
  EXPECT_TRUE(s.notices.empty()) << "no definitions to contradict";
}

// SelectForThisMachine probes with the open function it is given: each event
// the selection needs opened alone once, then a growing group for the
// capacity, and plans with what it learned.
struct FakeMachinePmu {
  int counters = 2;
  std::map<uint64_t, int> refused;  // raw config -> errno
  std::map<int, int> members;       // leader fd -> events in its group
  std::vector<std::string> opened;  // "type:config" of each open
};
FakeMachinePmu* machine_pmu = nullptr;

int FakeMachineOpen(perf_event_attr* attr, pid_t, int, int group_fd, unsigned long) {
  machine_pmu->opened.push_back(absl::StrFormat("%d:%x", attr->type, attr->config));
  if (const auto it = machine_pmu->refused.find(attr->config); it != machine_pmu->refused.end()) {
    errno = it->second;
    return -1;
  }
  if (group_fd >= 0 && machine_pmu->members[group_fd] >= machine_pmu->counters) {
    errno = EINVAL;
    return -1;
  }
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (group_fd >= 0) {
    ++machine_pmu->members[group_fd];
  } else {
    machine_pmu->members[fd] = 1;  // descriptors are reused after close
  }
  return fd;
}

TEST(ProbedPmu, SelectForThisMachineProbesWithTheInjectedOpen) {
  FakeMachinePmu pmu;
  machine_pmu = &pmu;
  pmu.refused[0x19c] = ENOENT;  // IDQ_UOPS_NOT_DELIVERED.CORE
  Availability availability;
  availability.hardware_counters = true;
  const EventSelection s =
      SelectForThisMachine(&FakeMachineOpen, "", 1, availability, 1, 1, MemoryMode::kOff, "skl", "");
  machine_pmu = nullptr;
  EXPECT_TRUE(s.errors.empty()) << s.errors.front();
  EXPECT_EQ(s.not_opened, (std::map<std::string, std::string>{{"IDQ_UOPS_NOT_DELIVERED.CORE", "ENOENT"}}));
  // TMA 5.01's core clocks follow this machine's SMT: per thread with SMT on
  // (or unknown), Skylake needs the thread's share of the core's cycles.
  const int smt = DescribeThisMachine().smt_active;
  std::set<std::string> wanted = {"UOPS_ISSUED.ANY", "UOPS_RETIRED.RETIRE_SLOTS", "CPU_CLK_UNHALTED.THREAD",
                                  smt == 1 ? "INT_MISC.RECOVERY_CYCLES_ANY" : "INT_MISC.RECOVERY_CYCLES"};
  if (smt != 0) wanted.insert({"CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_UNHALTED.REF_XCLK"});
  EXPECT_EQ(EventNames(s), wanted);
  // Cycles take the fixed counter; the general-purpose events split over groups of two.
  for (const auto& group : s.groups) EXPECT_LE(GeneralPurposeEvents(group, Metrics("skl").counters, false), 2);
  EXPECT_GE(s.groups.size(), 2u);
  // Each of Level 1's distinct events (the refused one too) is opened once;
  // then the capacity probe's branch instructions: 2 open, the third is refused.
  const size_t distinct = wanted.size() + 1;
  ASSERT_EQ(pmu.opened.size(), distinct + 3u);
  EXPECT_EQ(pmu.opened[distinct], absl::StrFormat("%d:%x", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS));
  EXPECT_EQ(std::count(pmu.opened.begin(), pmu.opened.end(), pmu.opened[distinct]), 3);
  bool said = false;
  for (const std::string& n : s.notices) {
    said |= n.rfind("the PMU offers 2 general-purpose counters where skl's definitions say", 0) == 0;
  }
  EXPECT_TRUE(said);

  FakeMachinePmu untouched;
  machine_pmu = &untouched;
  availability.hardware_counters = false;
  SelectForThisMachine(&FakeMachineOpen, "", 1, availability, 1, 1, MemoryMode::kOff, "skl", "");
  machine_pmu = nullptr;
  EXPECT_TRUE(untouched.opened.empty()) << "no probe without hardware counters";
}

}  // namespace
}  // namespace td

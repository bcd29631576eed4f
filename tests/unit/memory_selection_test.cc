// Memory-controller counters from a fake sysfs tree: PMU instances, their
// cpumask, format fields and event aliases with scale and unit.
#include "runtime/counters/memory_selection.h"

#include <linux/perf_event.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "runtime/counters/event_selection.h"
#include "runtime/uarch/definitions.h"

namespace td {
namespace {

namespace fs = std::filesystem;

class FakeSysfs {
 public:
  FakeSysfs() {
    root_ = fs::temp_directory_path() / ("td-sysfs-" + std::to_string(getpid()) + "-" + std::to_string(++count_));
    fs::create_directories(root_);
  }
  ~FakeSysfs() { fs::remove_all(root_); }
  void Write(const std::string& path, const std::string& text) const {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text << "\n";
  }
  // An Intel server IMC channel as Linux describes it.
  void AddServerImc(int n, int type, const std::string& cpumask) const {
    const std::string pmu = "uncore_imc_" + std::to_string(n);
    Write(pmu + "/type", std::to_string(type));
    Write(pmu + "/cpumask", cpumask);
    Write(pmu + "/format/event", "config:0-7");
    Write(pmu + "/format/umask", "config:8-15");
    Write(pmu + "/events/cas_count_read", "event=0x04,umask=0x03");
    Write(pmu + "/events/cas_count_read.scale", "6.103515625e-5");
    Write(pmu + "/events/cas_count_read.unit", "MiB");
    Write(pmu + "/events/cas_count_write", "event=0x04,umask=0x0c");
    Write(pmu + "/events/cas_count_write.scale", "6.103515625e-5");
    Write(pmu + "/events/cas_count_write.unit", "MiB");
  }
  std::string path() const { return root_.string(); }

 private:
  static inline int count_ = 0;
  fs::path root_;
};

const DefinitionLibrary& Library() {
  static const auto* library = new DefinitionLibrary(*DefinitionLibrary::Load());
  return *library;
}

MetricSet Metrics(const std::string& uarch) { return *Library().ForUarch(uarch); }

TEST(ParseCpuList, SinglesAndRanges) {
  EXPECT_EQ(ParseCpuList("0,28"), (std::vector<int>{0, 28}));
  EXPECT_EQ(ParseCpuList("0-2,8\n"), (std::vector<int>{0, 1, 2, 8}));
  EXPECT_TRUE(ParseCpuList("").empty());
  EXPECT_TRUE(ParseCpuList("x").empty());
}

TEST(SocketCounters, ServerImcChannelsOnTwoSockets) {
  FakeSysfs sysfs;
  sysfs.AddServerImc(0, 13, "0,28");
  sysfs.AddServerImc(1, 14, "0,28");
  auto counters = ResolveSocketCounters(Metrics("skx").memory, sysfs.path());
  ASSERT_TRUE(counters.ok()) << counters.status();
  EXPECT_EQ(counters->description,
            "uncore_imc_0..1 on 2 sockets (memory-controller channels; the kernel's "
            "cas_count_read/cas_count_write, 64 B each)");
  ASSERT_EQ(counters->groups.size(), 4u) << "2 channels x 2 sockets";
  const std::vector<EventInfo>& first = counters->groups[0];
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].name, "uncore_imc_0.read@cpu0");
  EXPECT_EQ(first[0].perf_type, 13u);
  EXPECT_EQ(first[0].perf_config, 0x0304u);
  EXPECT_EQ(first[0].cpu, 0);
  EXPECT_DOUBLE_EQ(first[0].bytes_per_count, 64.0) << "6.103515625e-5 MiB";
  EXPECT_EQ(first[1].traffic, "write");
  EXPECT_EQ(first[1].perf_config, 0x0c04u);
  EXPECT_EQ(counters->groups[1][0].name, "uncore_imc_0.read@cpu28");
  EXPECT_EQ(counters->groups[3][1].perf_type, 14u);
}

TEST(SocketCounters, UnusableControllerGivesWayToTheNextOne) {
  FakeSysfs sysfs;
  sysfs.Write("uncore_imc_0/type", "13");  // present, but without the aliases
  sysfs.Write("uncore_imc_0/cpumask", "0");
  sysfs.Write("uncore_imc_0/format/event", "config:0-7");
  sysfs.Write("uncore_imc/type", "15");
  sysfs.Write("uncore_imc/cpumask", "0");
  sysfs.Write("uncore_imc/format/event", "config:0-7");
  sysfs.Write("uncore_imc/events/data_reads", "event=0x01");
  sysfs.Write("uncore_imc/events/data_writes", "event=0x02");
  auto counters = ResolveSocketCounters(Metrics("skl").memory, sysfs.path());
  ASSERT_TRUE(counters.ok()) << counters.status();
  ASSERT_EQ(counters->groups.size(), 1u);
  EXPECT_EQ(counters->groups[0][0].name, "uncore_imc.read@cpu0");
  EXPECT_EQ(counters->groups[0][1].perf_config, 0x02u);
  EXPECT_DOUBLE_EQ(counters->groups[0][1].bytes_per_count, 64.0) << "no .scale: the file's value";

  fs::remove_all(sysfs.path() + "/uncore_imc");
  auto broken = ResolveSocketCounters(Metrics("skl").memory, sysfs.path());
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().message(),
            "memory controller uncore_imc_0: event \"uncore_imc_0/cas_count_read/\": PMU uncore_imc_0 has no "
            "field \"cas_count_read\" (see " + sysfs.path() + "/uncore_imc_0/format)");
}

TEST(SocketCounters, Zen3DataFabricChannelsEachInAGroupOfTheirOwn) {
  FakeSysfs sysfs;
  sysfs.Write("amd_df/type", "11");
  sysfs.Write("amd_df/cpumask", "0");
  sysfs.Write("amd_df/format/event", "config:0-7,32-35,59-60");
  sysfs.Write("amd_df/format/umask", "config:8-15");
  auto counters = ResolveSocketCounters(Metrics("zen3").memory, sysfs.path());
  ASSERT_TRUE(counters.ok()) << counters.status();
  ASSERT_EQ(counters->groups.size(), 8u) << "8 channels, more than the DF's 4 counters";
  EXPECT_EQ(counters->groups[0][0].perf_config, 0x3807u);
  EXPECT_EQ(counters->groups[4][0].perf_config, 0x3807u | (uint64_t{1} << 32)) << "event 0x107: bits 8+ go to 32-35";
  EXPECT_EQ(counters->groups[4][0].traffic, "total");
  EXPECT_EQ(counters->groups[4][0].name, "amd_df.total4@cpu0");
}

TEST(SocketCounters, NothingPresentIsNotFound) {
  FakeSysfs sysfs;
  EXPECT_TRUE(absl::IsNotFound(ResolveSocketCounters(Metrics("zen4").memory, sysfs.path()).status()));
  EXPECT_TRUE(absl::IsNotFound(ResolveSocketCounters(Metrics("neoverse_v2").memory, sysfs.path()).status()));
}

SelectionInput SkxInput(const FakeSysfs& sysfs) {
  static const MetricSet* skx = new MetricSet(Metrics("skx"));
  SelectionInput input;
  input.hardware_available = true;
  input.metrics = skx;
  input.library = &Library();
  input.level = 1;
  input.sysfs_devices = sysfs.path();
  return input;
}

size_t SystemWideGroups(const EventSelection& s) {
  return std::count_if(s.groups.begin(), s.groups.end(), [](const auto& g) { return g[0].system_wide(); });
}

bool Counts(const EventSelection& s, const std::string& name) {
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
  EXPECT_FALSE(Counts(s, "LONGEST_LAT_CACHE.MISS")) << "no estimate when the controllers count";
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
  EXPECT_TRUE(Counts(s, "LONGEST_LAT_CACHE.MISS"));
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
  EXPECT_TRUE(Counts(SelectEvents(input), "LONGEST_LAT_CACHE.MISS"));
  input.memory = MemoryMode::kAuto;
  input.td_events = "cycles";
  EXPECT_EQ(SystemWideGroups(SelectEvents(input)), 0u) << "auto adds nothing to the user's own list";
  input.memory = MemoryMode::kSocket;
  EXPECT_EQ(SystemWideGroups(SelectEvents(input)), 1u);
  input.system_wide_permitted = false;
  const EventSelection refused = SelectEvents(input);
  EXPECT_EQ(SystemWideGroups(refused), 0u);
  EXPECT_FALSE(Counts(refused, "LONGEST_LAT_CACHE.MISS")) << "socket was asked for, not the estimate";
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
  const EventSelection s = SelectForCoreTypes(input, Library(), "adl");
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
  const EventSelection listed = SelectForCoreTypes(input, Library(), "adl");
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
  const EventSelection via = SelectForCoreTypes(input, Library(), "skx");
  ASSERT_EQ(via.groups.size(), plain.groups.size());
  for (size_t g = 0; g < via.groups.size(); ++g) {
    ASSERT_EQ(via.groups[g].size(), plain.groups[g].size());
    for (size_t i = 0; i < via.groups[g].size(); ++i) {
      EXPECT_EQ(via.groups[g][i].perf_config, plain.groups[g][i].perf_config);
      EXPECT_TRUE(via.groups[g][i].core_type.empty());
    }
  }
}

}  // namespace
}  // namespace td

// Memory-controller counters from a fake sysfs tree: PMU instances, their
// cpumask, format fields and event aliases with scale and unit.
#include "runtime/counters/memory_selection.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/unit/embedded_library.h"
#include "runtime/uarch/definitions.h"
#include "tests/unit/fake_sysfs.h"

namespace td {
namespace {

namespace fs = std::filesystem;
using fake_sysfs::FakeSysfs;

MetricSet MetricsFor(const std::string& uarch) { return *EmbeddedLibrary().ForUarch(uarch); }

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
  auto counters = ResolveSocketCounters(MetricsFor("skx").memory, sysfs.path());
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
  auto counters = ResolveSocketCounters(MetricsFor("skl").memory, sysfs.path());
  ASSERT_TRUE(counters.ok()) << counters.status();
  ASSERT_EQ(counters->groups.size(), 1u);
  EXPECT_EQ(counters->groups[0][0].name, "uncore_imc.read@cpu0");
  EXPECT_EQ(counters->groups[0][1].perf_config, 0x02u);
  EXPECT_DOUBLE_EQ(counters->groups[0][1].bytes_per_count, 64.0) << "no .scale: the file's value";

  fs::remove_all(sysfs.path() + "/uncore_imc");
  auto broken = ResolveSocketCounters(MetricsFor("skl").memory, sysfs.path());
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
  auto counters = ResolveSocketCounters(MetricsFor("zen3").memory, sysfs.path());
  ASSERT_TRUE(counters.ok()) << counters.status();
  ASSERT_EQ(counters->groups.size(), 8u) << "8 channels, more than the DF's 4 counters";
  EXPECT_EQ(counters->groups[0][0].perf_config, 0x3807u);
  EXPECT_EQ(counters->groups[4][0].perf_config, 0x3807u | (uint64_t{1} << 32)) << "event 0x107: bits 8+ go to 32-35";
  EXPECT_EQ(counters->groups[4][0].traffic, "total");
  EXPECT_EQ(counters->groups[4][0].name, "amd_df.total4@cpu0");
}

TEST(SocketCounters, NothingPresentIsNotFound) {
  FakeSysfs sysfs;
  EXPECT_TRUE(absl::IsNotFound(ResolveSocketCounters(MetricsFor("zen4").memory, sysfs.path()).status()));
  EXPECT_TRUE(absl::IsNotFound(ResolveSocketCounters(MetricsFor("neoverse_v2").memory, sysfs.path()).status()));
}

}  // namespace
}  // namespace td

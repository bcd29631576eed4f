// TD_EVENTS parsing and resolution, for PMUs this machine does not have.
#include "runtime/counters/event_spec.h"

#include <linux/perf_event.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "tests/unit/embedded_library.h"

namespace td {
namespace {

TEST(ParseEventList, BracesForceGroupsAndPmuTermsKeepTheirCommas) {
  auto groups = ParseEventList("cycles, {UOPS_ISSUED:ANY,INT_MISC:RECOVERY_CYCLES:c=1:e},"
                               "cpu/event=0xa4,umask=0x02/,r01c2");
  ASSERT_TRUE(groups.ok()) << groups.status();
  ASSERT_EQ(groups->size(), 4u);
  EXPECT_EQ((*groups)[0].events, std::vector<std::string>{"cycles"});
  EXPECT_FALSE((*groups)[0].forced);
  EXPECT_EQ((*groups)[1].events,
            (std::vector<std::string>{"UOPS_ISSUED:ANY", "INT_MISC:RECOVERY_CYCLES:c=1:e"}));
  EXPECT_TRUE((*groups)[1].forced);
  EXPECT_EQ((*groups)[2].events, std::vector<std::string>{"cpu/event=0xa4,umask=0x02/"});
  EXPECT_EQ((*groups)[3].events, std::vector<std::string>{"r01c2"});
}

TEST(ParseEventList, MalformedListsSayWhere) {
  EXPECT_EQ(ParseEventList("a,,b").status().message(), "empty event name at character 3");
  EXPECT_EQ(ParseEventList("{a,b").status().message(), "'{' is never closed");
  EXPECT_EQ(ParseEventList("a}").status().message(), "'}' without '{' at character 2");
  EXPECT_EQ(ParseEventList("{a,{b}}").status().message(), "unexpected '{' at character 4");
  EXPECT_EQ(ParseEventList("cpu/event=1").status().message(), "a PMU event is missing its closing '/'");
  EXPECT_FALSE(ParseEventList("a,").ok());
}

TEST(EventResolver, PerfNamesRawAndTerms) {
  EventResolver resolver;
  resolver.library = &EmbeddedLibrary();
  resolver.sysfs_devices = "/nonexistent";
  auto cycles = resolver.Resolve("cycles");
  ASSERT_TRUE(cycles.ok());
  EXPECT_EQ(cycles->perf_type, PERF_TYPE_HARDWARE);
  EXPECT_EQ(cycles->perf_config, PERF_COUNT_HW_CPU_CYCLES);
  EXPECT_TRUE(cycles->hardware);
  auto faults = resolver.Resolve("page-faults");
  ASSERT_TRUE(faults.ok());
  EXPECT_EQ(faults->perf_type, PERF_TYPE_SOFTWARE);
  EXPECT_FALSE(faults->hardware);
  auto raw = resolver.Resolve("r01c2");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->perf_type, PERF_TYPE_RAW);
  EXPECT_EQ(raw->perf_config, 0x1c2u);
  // Without sysfs the core PMU uses Intel/AMD's event-select layout (reference §1.5).
  auto terms = resolver.Resolve("cpu/event=0xa4,umask=0x02/");
  ASSERT_TRUE(terms.ok()) << terms.status();
  EXPECT_EQ(terms->perf_config, 0x02a4u);
  auto modifiers = resolver.Resolve("cpu/event=0x0d,umask=0x01,cmask=1,edge/");
  ASSERT_TRUE(modifiers.ok());
  EXPECT_EQ(modifiers->perf_config, 0x104010du);  // INT_MISC.RECOVERY_CYCLES:c1:e
  auto amd = resolver.Resolve("cpu/event=0x1a0,umask=0x01/");
  ASSERT_TRUE(amd.ok());
  EXPECT_EQ(amd->perf_config, 0x1000001a0u) << "AMD event bits 8-11 go to config[35:32]";
  auto bad_field = resolver.Resolve("cpu/evnt=1/");
  ASSERT_FALSE(bad_field.ok());
  EXPECT_NE(bad_field.status().message().find("no field \"evnt\""), std::string::npos);
  auto too_wide = resolver.Resolve("cpu/umask=0x100/");
  ASSERT_FALSE(too_wide.ok());
  EXPECT_NE(too_wide.status().message().find("does not fit"), std::string::npos);
}

TEST(EventResolver, SysfsFormatFilesDecideTheLayout) {
  const auto dir = std::filesystem::temp_directory_path() / ("td_sysfs_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "amd_df" / "format");
  std::ofstream(dir / "amd_df" / "type") << "11\n";
  std::ofstream(dir / "amd_df" / "format" / "event") << "config:0-7,32-37\n";
  std::ofstream(dir / "amd_df" / "format" / "umask") << "config:8-15,24-27\n";
  EventResolver resolver;
  resolver.sysfs_devices = dir.string();
  auto e = resolver.Resolve("amd_df/event=0x1f,umask=0x7fe/");
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->perf_type, 11u);
  EXPECT_EQ(e->perf_config, 0x1f | (0xfeull << 8) | (0x7ull << 24));
  auto missing = resolver.Resolve("uncore_imc_0/event=0x04/");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("does not exist on this machine"), std::string::npos);
}

TEST(EventResolver, LibpfmNamesWithExplicitPmuAndTdTable) {
  EventResolver resolver;
  resolver.library = &EmbeddedLibrary();
  auto e = resolver.Resolve("skl::UOPS_ISSUED.ANY");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->perf_config, 0x10eu);
  EXPECT_EQ(e->pmu, "skl");
  resolver.pmu = "icl";
  auto slots = resolver.Resolve("TOPDOWN.SLOTS");
  ASSERT_TRUE(slots.ok());
  EXPECT_EQ(slots->perf_config, 0x400u) << "td's table: libpfm4 4.13 lacks it";
  auto typo = resolver.Resolve("UOPS_ISUED:ANY");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("closest: UOPS_ISSUED"), std::string::npos) << typo.status();
  auto generic_typo = resolver.Resolve("instructons");
  ASSERT_FALSE(generic_typo.ok());
  EXPECT_NE(generic_typo.status().message().find("perf names: instructions"), std::string::npos)
      << generic_typo.status();
}

}  // namespace
}  // namespace td

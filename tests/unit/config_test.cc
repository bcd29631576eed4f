#include "runtime/driver/config.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/support/build_paths.h"

namespace td {
namespace {

// The configuration of `vars`; its problems are appended to *errors.
Config Read(const std::map<std::string, std::string>& vars, std::vector<std::string>* errors) {
  ConfigReading reading = ReadConfig([&vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
  errors->insert(errors->end(), reading.problems.begin(), reading.problems.end());
  return reading.config;
}

TEST(Config, DefaultsWhenNothingIsSet) {
  std::vector<std::string> errors;
  const Config c = Read({}, &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(c.disabled);
  EXPECT_TRUE(c.write_json);
  EXPECT_EQ(c.json_dir, ".");
  EXPECT_EQ(c.text_output.kind, TextOutput::Kind::kStderr);
  EXPECT_EQ(c.backend, BackendChoice::kPerfEvent);
  EXPECT_TRUE(c.rdpmc);
}

TEST(Config, TextOutputIsDecodedOnce) {
  struct Case {
    const char* value;
    TextOutput::Kind kind;
    const char* path;
  };
  for (const Case& c : {Case{"", TextOutput::Kind::kStderr, ""}, Case{"stderr", TextOutput::Kind::kStderr, ""},
                        Case{"-", TextOutput::Kind::kStderr, ""}, Case{"stdout", TextOutput::Kind::kStdout, ""},
                        Case{"none", TextOutput::Kind::kNone, ""}, Case{"out/r.txt", TextOutput::Kind::kFile, "out/r.txt"},
                        Case{"None", TextOutput::Kind::kFile, "None"}}) {
    std::vector<std::string> errors;
    const Config config = Read({{"TD_OUTPUT", c.value}}, &errors);
    EXPECT_TRUE(errors.empty()) << c.value;
    EXPECT_EQ(config.text_output.kind, c.kind) << c.value;
    EXPECT_EQ(config.text_output.path, c.path) << c.value;
  }
}

TEST(Config, SoftwareEventsAutoOrAll) {
  std::vector<std::string> errors;
  EXPECT_FALSE(Read({}, &errors).all_software_events);
  EXPECT_TRUE(Read({{"TD_SOFTWARE_EVENTS", "all"}}, &errors).all_software_events);
  EXPECT_FALSE(Read({{"TD_SOFTWARE_EVENTS", "AUTO"}}, &errors).all_software_events);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(Read({{"TD_SOFTWARE_EVENTS", "some"}}, &errors).all_software_events);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "TD_SOFTWARE_EVENTS=\"some\" is not understood; accepted: auto, all; using auto");
}

TEST(Config, ClockAutoTscOrMonotonic) {
  std::vector<std::string> errors;
  const Config fallback = Read({}, &errors);
  EXPECT_TRUE(fallback.tsc_clock);
  EXPECT_FALSE(fallback.tsc_clock_asked);
  const Config asked = Read({{"TD_CLOCK", "TSC"}}, &errors);
  EXPECT_TRUE(asked.tsc_clock);
  EXPECT_TRUE(asked.tsc_clock_asked) << "asked for: why it is not used is said";
  EXPECT_FALSE(Read({{"TD_CLOCK", "monotonic"}}, &errors).tsc_clock);
  EXPECT_TRUE(errors.empty());
  EXPECT_TRUE(Read({{"TD_CLOCK", "hpet"}}, &errors).tsc_clock);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "TD_CLOCK=\"hpet\" is not understood; accepted: auto, tsc, monotonic; using auto");
}

TEST(Config, ReadsEveryVariable) {
  std::vector<std::string> errors;
  const Config c = Read({{"TD_DISABLE", "Yes"},
                         {"TD_JSON", "off"},
                         {"TD_OUTPUT", "report.txt"},
                         {"TD_OUTPUT_DIR", "/tmp/x"},
                         {"TD_BACKEND", "none"},
                         {"TD_QUIET", "1"},
                         {"TD_RDPMC", "off"}},
                        &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(c.rdpmc);
  EXPECT_TRUE(c.disabled);
  EXPECT_FALSE(c.write_json);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(c.text_output.kind, TextOutput::Kind::kFile);
  EXPECT_EQ(c.text_output.path, "report.txt");
  EXPECT_EQ(c.json_dir, "/tmp/x");
  EXPECT_EQ(c.backend, BackendChoice::kNone);
}

TEST(Config, BadValuesNameTheVariableAndKeepDefaults) {
  std::vector<std::string> errors;
  const Config c = Read({{"TD_DISABLE", "2"}, {"TD_BACKEND", "papy"}, {"TD_OUTPUT_DIR", ""}},
                        &errors);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0],
            "TD_DISABLE=\"2\" is not understood; accepted: 1, 0, true, false, yes, no, on, off; "
            "using 0");
  EXPECT_NE(errors[1].find("TD_OUTPUT_DIR"), std::string::npos);
  EXPECT_NE(errors[2].find("TD_BACKEND=\"papy\""), std::string::npos);
  EXPECT_NE(errors[2].find("accepted: perf, papi, simulate, none"), std::string::npos);
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.json_dir, ".");
  EXPECT_EQ(c.backend, BackendChoice::kPerfEvent);
}

TEST(ParseBool, AcceptsCommonSpellings) {
  bool v = false;
  EXPECT_TRUE(ParseBool("TRUE", &v));
  EXPECT_TRUE(v);
  EXPECT_TRUE(ParseBool("no", &v));
  EXPECT_FALSE(v);
  EXPECT_FALSE(ParseBool("enable", &v));
}

}  // namespace
}  // namespace td

namespace td {
namespace {

TEST(Config, EventsLevelAndPass) {
  std::vector<std::string> errors;
  Config c = Read({{"TD_EVENTS", "cycles,{a,b}"}, {"TD_LEVEL", "4"}, {"TD_PASS", "2/3"}, {"TD_BACKEND", "papi"}},
                  &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(c.events, "cycles,{a,b}");
  EXPECT_EQ(c.level, 4);
  EXPECT_EQ(c.pass, 2);
  EXPECT_EQ(c.passes, 3);
  EXPECT_EQ(c.backend, BackendChoice::kPapi);
  EXPECT_EQ(Read({{"TD_BACKEND", "Simulate"}}, &errors).backend, BackendChoice::kSimulate);
  EXPECT_TRUE(errors.empty());
  c = Read({{"TD_LEVEL", "9"}, {"TD_PASS", "4/3"}}, &errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "TD_LEVEL=\"9\" is not understood; accepted: 1 to 6; using 2");
  EXPECT_NE(errors[1].find("TD_PASS=\"4/3\""), std::string::npos);
  EXPECT_EQ(c.passes, 1);
}

// Every variable ReadConfig asks for is a row of the table, and every row is
// asked for: the table cannot drift from what td reads.
TEST(Config, CalibrationFileFollowsXdgCacheHomeThenHome) {
  std::vector<std::string> errors;
  EXPECT_EQ(Read({{"XDG_CACHE_HOME", "/c"}, {"HOME", "/h"}}, &errors).calibration_file, "/c/td/calibration.json");
  EXPECT_EQ(Read({{"XDG_CACHE_HOME", "relative"}, {"HOME", "/h"}}, &errors).calibration_file,
            "/h/.cache/td/calibration.json")
      << "the XDG rule: a relative path is ignored";
  EXPECT_EQ(Read({}, &errors).calibration_file, "/tmp/.cache/td/calibration.json");
  EXPECT_TRUE(errors.empty());
}

TEST(Config, MpiRankFromTheFirstLauncherThatSetsOne) {
  std::vector<std::string> errors;
  const Config ompi = Read({{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"SLURM_PROCID", "0"},
                            {"SLURM_JOB_ID", "42"}, {"PMIX_NAMESPACE", "ns"}},
                           &errors);
  ASSERT_TRUE(ompi.mpi.has_value());
  EXPECT_EQ(ompi.mpi->rank, 5);
  EXPECT_EQ(ompi.mpi->size, 8);
  EXPECT_EQ(ompi.mpi->job, "42") << "Slurm's job id names the job whichever launcher started the ranks";
  EXPECT_EQ(ompi.mpi->launcher, "Open MPI");
  const Config pmi = Read({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}, &errors);
  ASSERT_TRUE(pmi.mpi.has_value());
  EXPECT_EQ(pmi.mpi->launcher, "PMI");
  EXPECT_EQ(pmi.mpi->job, "");
  EXPECT_FALSE(Read({}, &errors).mpi.has_value());
  EXPECT_TRUE(errors.empty());
  const Config bad = Read({{"OMPI_COMM_WORLD_RANK", "9"}, {"OMPI_COMM_WORLD_SIZE", "8"}}, &errors);
  EXPECT_FALSE(bad.mpi.has_value());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("OMPI_COMM_WORLD_RANK=\"9\""), std::string::npos) << errors[0];
  errors.clear();
  EXPECT_EQ(Read({{"TD_REPORT_RANKS", "all"}}, &errors).rank_reports, RankReports::kAll);
  EXPECT_EQ(Read({{"TD_REPORT_RANKS", "some"}}, &errors).rank_reports, RankReports::kRankZero);
  EXPECT_EQ(errors.size(), 1u);
}

// A rank that the launcher ends keeps its data: TD_SIGNALS is on by default
// in an MPI job only, and TD_SIGNALS=0 still turns it off there.
TEST(Config, SignalsOnByDefaultInMpiJobs) {
  std::vector<std::string> errors;
  EXPECT_FALSE(Read({}, &errors).signals);
  EXPECT_TRUE(Read({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}}, &errors).signals);
  EXPECT_FALSE(
      Read({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"TD_SIGNALS", "0"}}, &errors).signals);
  EXPECT_TRUE(Read({{"TD_SIGNALS", "1"}}, &errors).signals);
  EXPECT_TRUE(errors.empty());
}

// A rank that SIGKILL ends keeps its data up to its last flush: the periodic
// flush is on (every 10 s) by default in an MPI job only; TD_FLUSH_INTERVAL
// sets it anywhere, and 0 turns it off there too.
TEST(Config, PeriodicFlushOffByDefaultOutsideMpiJobs) {
  std::vector<std::string> errors;
  EXPECT_EQ(Read({}, &errors).flush_interval_s, 0u);
  EXPECT_EQ(Read({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}}, &errors).flush_interval_s,
            kMpiFlushIntervalS);
  EXPECT_EQ(Read({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"TD_FLUSH_INTERVAL", "0"}}, &errors)
                .flush_interval_s,
            0u);
  EXPECT_EQ(Read({{"TD_FLUSH_INTERVAL", "3"}}, &errors).flush_interval_s, 3u);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(Read({{"TD_FLUSH_INTERVAL", "soon"}}, &errors).flush_interval_s, 0u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("TD_FLUSH_INTERVAL=\"soon\""), std::string::npos) << errors[0];
}

TEST(ConfigUnknown, EachUnknownTdNameWithTheNearestKnownOne) {
  EXPECT_EQ(UnknownSettings({"TD_OUTPT", "PATH", "TD_OUTPUT", "td_output_dir", "TD_METRICS_DIRS"}),
            (std::vector<std::string>{"unknown setting TD_OUTPT; did you mean TD_OUTPUT?",
                                      "unknown setting TD_METRICS_DIRS; did you mean TD_METRICS_DIR?"}));
  EXPECT_EQ(UnknownSettings({"TD_WHATEVER_ELSE_ENTIRELY"}),
            (std::vector<std::string>{"unknown setting TD_WHATEVER_ELSE_ENTIRELY; `td config` lists the settings"}));
  // Read by the Python binding and the project's scripts, not by the runtime.
  EXPECT_TRUE(UnknownSettings({"TD_CLI", "TD_FUZZ_SEED", "TD_FUZZ_SECONDS", "TD_MPI_TEST_SKIP"}).empty());
}

TEST(ConfigTable, ListsExactlyTheVariablesReadConfigReads) {
  std::set<std::string> asked;
  const ConfigReading reading = ReadConfig([&asked](const char* name) -> const char* {
    asked.insert(name);
    return nullptr;
  });
  EXPECT_TRUE(reading.problems.empty());
  asked.erase("HOME");  // only the fallback of XDG_CACHE_HOME, documented in its row
  std::set<std::string> listed;
  for (const Setting& s : Settings()) listed.insert(s.name);
  EXPECT_EQ(asked, listed);
}

TEST(ConfigTable, DocsTableIsTheGeneratedOne) {
  std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/../../docs/usage.md");
  ASSERT_TRUE(in) << "docs/usage.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const size_t begin = doc.find("| variable | values | default | meaning |");
  const size_t end = doc.find("<!-- end of generated table -->");
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(doc.substr(begin, end - begin), SettingsMarkdownTable())
      << "regenerate the table in docs/usage.md with `td config --markdown`";
}

}  // namespace
}  // namespace td

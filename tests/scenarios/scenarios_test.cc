// End-to-end: a real program linked against libtd, run as a child process.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "tests/scenarios/run_scenario.h"
#include "tests/support/build_paths.h"

namespace td::testing {
namespace {

constexpr double kMs = 1e6;

ScenarioRun RunApp(const std::string& scenario, const std::vector<std::string>& env = {}) {
  return RunScenario(TD_SCENARIO_APP, scenario, env);
}

// The single report of a run that must have written exactly one.
const nlohmann::json& OnlyReport(const ScenarioRun& run) {
  EXPECT_EQ(run.reports.size(), 1u) << run.err;
  static const nlohmann::json empty = {{"regions", nlohmann::json::array()}};
  return run.reports.empty() ? empty : run.reports.front();
}

const nlohmann::json& Region(const nlohmann::json& report, const std::string& path) {
  const nlohmann::json* region = FindRegion(report, path);
  static const nlohmann::json missing = {{"threads", nlohmann::json::array()}};
  EXPECT_NE(region, nullptr) << "no region " << path;
  return region != nullptr ? *region : missing;
}

TEST(Scenario, NestingBuildsATreeWithExclusiveTimes) {
  const ScenarioRun run = RunApp("nested");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  EXPECT_EQ(report.at("schema_version"), 3);
  const auto& outer = Region(report, "outer");
  const auto& inner_a = Region(report, "outer/inner_a");
  const auto& leaf = Region(report, "outer/inner_a/leaf");
  const auto& inner_b = Region(report, "outer/inner_b");
  EXPECT_EQ(outer.at("parent"), -1);
  EXPECT_EQ(SumOverThreads(inner_b, "calls"), 3);
  EXPECT_GE(SumOverThreads(leaf, "wall_inclusive_ns"), 5 * kMs);
  EXPECT_GE(SumOverThreads(inner_a, "wall_inclusive_ns"), 15 * kMs);
  // Exclusive = inclusive minus the children's inclusive.
  const double a_excl = SumOverThreads(inner_a, "wall_exclusive_ns");
  EXPECT_NEAR(a_excl, SumOverThreads(inner_a, "wall_inclusive_ns") -
                          SumOverThreads(leaf, "wall_inclusive_ns"), 1000);
  EXPECT_GE(a_excl, 10 * kMs);
  const double outer_excl = SumOverThreads(outer, "wall_exclusive_ns");
  EXPECT_NEAR(outer_excl,
              SumOverThreads(outer, "wall_inclusive_ns") -
                  SumOverThreads(inner_a, "wall_inclusive_ns") -
                  SumOverThreads(inner_b, "wall_inclusive_ns"),
              1000);
  EXPECT_GE(outer_excl, 5 * kMs);
  // The app spins on its thread's CPU clock, which task-clock also counts.
  // The counters are read outside the clock (before it at BEGIN, after it at
  // END), so task-clock also holds the two reads: about 1 µs each here, but
  // an ASan run with the VM loaded once took 137 µs more than the wall time.
  // Counting the leaf twice would add 5 ms.
  EXPECT_GE(SumCounter(leaf, "task-clock"), 4.9 * kMs);
  EXPECT_LE(SumCounter(leaf, "task-clock"), SumOverThreads(leaf, "wall_inclusive_ns") + 0.5 * kMs);
  EXPECT_NE(run.err.find("region"), std::string::npos) << "text report on stderr";
  EXPECT_NE(run.err.find("└─ leaf"), std::string::npos) << run.err;
}

TEST(Scenario, RecursionIsNotDoubleCounted) {
  const ScenarioRun run = RunApp("recursion");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  ASSERT_EQ(report.at("regions").size(), 1u) << "recursion shares one node";
  const auto& r = Region(report, "recurse");
  EXPECT_EQ(SumOverThreads(r, "calls"), 6);
  EXPECT_EQ(SumOverThreads(r, "recursive_calls"), 5);
  const double inclusive = SumOverThreads(r, "wall_inclusive_ns");
  EXPECT_GE(inclusive, 12 * kMs);  // six 2 ms spins of CPU time
  // Counted once: about 12 ms of CPU, not the 6+5+4+3+2+1 = 21 spins (42 ms)
  // that summing every activation's inclusive time would give. task-clock,
  // unlike wall time, is not inflated by a loaded machine.
  EXPECT_LT(SumCounter(r, "task-clock"), 30 * kMs);
  // All time is the region's own.
  EXPECT_NEAR(SumOverThreads(r, "wall_exclusive_ns"), inclusive, 0.001 * inclusive);
}

TEST(Scenario, PthreadsEachKeepTheirOwnData) {
  const ScenarioRun run = RunApp("pthreads");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  EXPECT_EQ(report.at("threads").size(), 8u);
  const auto& work = Region(report, "work");
  EXPECT_EQ(work.at("threads").size(), 8u);
  EXPECT_EQ(SumOverThreads(work, "calls"), 800);
  for (const auto& t : report.at("threads")) EXPECT_TRUE(t.at("exited_before_finalize"));
  EXPECT_NE(run.err.find("· thread 7"), std::string::npos) << run.err;
}

TEST(Scenario, OpenMpThreadsAreFoldedAtFinalize) {
  const ScenarioRun run = RunApp("openmp");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  const auto& work = Region(report, "omp_work");
  EXPECT_EQ(work.at("threads").size(), 4u);
  EXPECT_EQ(SumOverThreads(work, "calls"), 200);
  // Each thread is labelled with its number in the team (read from GCC's
  // OpenMP runtime at its first marker, inside the parallel region); LLVM's
  // libomp, which clang builds use, is never asked (runtime/driver/runtime.cc).
  std::set<int> numbers;
  for (const auto& t : report.at("threads")) numbers.insert(t.value("openmp_thread", -1));
#if defined(__clang__)
  EXPECT_EQ(numbers, (std::set<int>{-1}));
#else
  EXPECT_EQ(numbers, (std::set<int>{0, 1, 2, 3}));
#endif
  EXPECT_NE(run.err.find("across threads (imbalance"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("  omp_work                       4 "), std::string::npos) << run.err;
}

TEST(Scenario, AThreadThatExitsEarlyKeepsItsData) {
  const ScenarioRun run = RunApp("thread_exit");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  ASSERT_EQ(report.at("threads").size(), 2u);
  EXPECT_TRUE(report.at("threads")[0].at("exited_before_finalize"));
  EXPECT_FALSE(report.at("threads")[1].at("exited_before_finalize"));
  EXPECT_GE(SumOverThreads(Region(report, "early_work"), "wall_inclusive_ns"), 3 * kMs);
  const auto& open = Region(report, "left_open");
  EXPECT_EQ(SumOverThreads(open, "unterminated"), 1);
  EXPECT_GE(SumOverThreads(open, "wall_inclusive_ns"), 1 * kMs);
  EXPECT_NE(run.err.find("thread exit"), std::string::npos) << run.err;
}

TEST(Scenario, MismatchedEndWarnsOncePerSiteAndKeepsGoodRegions) {
  const ScenarioRun run = RunApp("mismatch");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  const auto& a = Region(report, "a");
  const auto& b = Region(report, "a/b");
  EXPECT_EQ(SumOverThreads(a, "calls"), 10);
  EXPECT_EQ(SumOverThreads(b, "closed_implicitly"), 10);
  EXPECT_EQ(SumOverThreads(Region(report, "good"), "calls"), 1);
  EXPECT_GE(SumOverThreads(a, "wall_inclusive_ns"), 10 * 0.2 * kMs);
  int mismatch_warnings = 0;
  int nothing_open = 0;
  for (const auto& d : report.at("diagnostics")) {
    const std::string m = d.at("message");
    if (m.find("TD_REGION_END(\"a\")") != std::string::npos) {
      ++mismatch_warnings;
      EXPECT_NE(m.find("\"b\""), std::string::npos) << m;
      EXPECT_NE(m.find("scenario_app.cc:"), std::string::npos) << m;
    }
    if (m.find("TD_REGION_END(\"zzz\")") != std::string::npos) ++nothing_open;
  }
  EXPECT_EQ(mismatch_warnings, 1);
  EXPECT_EQ(nothing_open, 1);
}

TEST(Scenario, UnterminatedRegionsAreClosedAtFinalize) {
  const ScenarioRun run = RunApp("unterminated");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& r = Region(OnlyReport(run), "never_closed");
  EXPECT_EQ(SumOverThreads(r, "unterminated"), 1);
  EXPECT_GE(SumOverThreads(r, "wall_inclusive_ns"), 2 * kMs);
  EXPECT_NE(run.err.find("unterminated ×1"), std::string::npos) << run.err;
}

TEST(Scenario, SleepingShowsWallTimeButNoCpuTime) {
  const ScenarioRun run = RunApp("sleep50");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& r = Region(OnlyReport(run), "sleep");
  EXPECT_GE(SumOverThreads(r, "wall_inclusive_ns"), 50 * kMs);
  EXPECT_LT(SumCounter(r, "task-clock"), 5 * kMs);
  EXPECT_GE(SumCounter(r, "context-switches"), 1);
}

TEST(Scenario, FirstTouchOf64MiBCountsPageFaults) {
  const ScenarioRun run = RunApp("pagefaults");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& r = Region(OnlyReport(run), "first_touch");
  // 16,384 pages, one fault each at least; sanitizers' shadow memory adds a
  // machine-dependent number, so the upper bound is the kernel's own count
  // for the same thread and loop (getrusage inside the region), plus the few
  // faults td's own BEGIN/END may take.
  const size_t at = run.out.find("minflt=");
  ASSERT_NE(at, std::string::npos) << run.out;
  const long kernel_faults = std::stol(run.out.substr(at + 7));
  EXPECT_GE(kernel_faults, 16384);
  EXPECT_GE(SumCounter(r, "page-faults"), kernel_faults);
  EXPECT_LE(SumCounter(r, "page-faults"), kernel_faults + 64);
}

TEST(Scenario, ForkedChildWritesOnlyItsOwnData) {
  const ScenarioRun run = RunApp("fork");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.reports.size(), 2u) << run.err;
  const long child_pid = std::stol(run.out.substr(run.out.find('=') + 1));
  const auto& child = run.reports[0].at("program").at("pid") == child_pid ? run.reports[0]
                                                                           : run.reports[1];
  const auto& parent = &child == &run.reports[0] ? run.reports[1] : run.reports[0];
  EXPECT_EQ(FindRegion(child, "before_fork"), nullptr) << "parent data written twice";
  EXPECT_NE(FindRegion(child, "around_fork/child_work"), nullptr);
  EXPECT_EQ(FindRegion(parent, "around_fork/child_work"), nullptr);
  EXPECT_EQ(SumOverThreads(Region(parent, "before_fork"), "calls"), 1);
  EXPECT_GE(SumOverThreads(Region(parent, "around_fork"), "wall_inclusive_ns"), 2 * kMs);
}

TEST(Scenario, MarkersAfterFinalizeAreIgnored) {
  const ScenarioRun run = RunApp("after_finalize");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  EXPECT_NE(FindRegion(report, "counted"), nullptr);
  EXPECT_EQ(FindRegion(report, "ignored"), nullptr);
  EXPECT_NE(run.out.find("active=0"), std::string::npos);
}

TEST(Scenario, DisabledWritesNothing) {
  const ScenarioRun run = RunApp("nested", {"TD_DISABLE=1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.reports.empty());
  EXPECT_EQ(run.err, "");
}

TEST(Scenario, BadEnvironmentValueNamesTheVariableAndKeepsTheDefault) {
  const ScenarioRun run = RunApp("nested", {"TD_DISABLE=maybe", "TD_BACKEND=magic"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("TD_DISABLE=\"maybe\""), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("accepted: 1, 0"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("TD_BACKEND=\"magic\""), std::string::npos) << run.err;
  const auto& report = OnlyReport(run);  // default: enabled, perf backend
  EXPECT_EQ(report.at("backend").at("name"), "perf_event");
  EXPECT_GE(report.at("diagnostics").size(), 2u);
}

TEST(Scenario, NoHardwarePmuIsOneClearLineAndRecordedInJson) {
  const ScenarioRun run = RunApp("nested");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& hw = OnlyReport(run).at("backend").at("hardware_counters");
  if (hw.at("available").get<bool>()) GTEST_SKIP() << "this machine has a hardware PMU";
  EXPECT_FALSE(hw.at("reason").get<std::string>().empty());
  EXPECT_NE(run.err.find("td: hardware counters unavailable: "), std::string::npos) << run.err;
  // Nothing resembling a hardware figure is printed.
  EXPECT_EQ(run.err.find("IPC"), std::string::npos);
  EXPECT_EQ(run.err.find("cycles "), std::string::npos);
}

TEST(Scenario, SeccompBlockedPerfEventOpenStillMeasuresTime) {
  const ScenarioRun run = RunApp("seccomp");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  const auto& backend = report.at("backend");
  EXPECT_FALSE(backend.at("software_counters").at("available"));
  EXPECT_NE(backend.at("software_counters").at("reason").get<std::string>().find("EPERM"),
            std::string::npos);
  EXPECT_EQ(backend.at("measured"), "wall time and calls only");
  const auto& leaf = Region(report, "outer/inner_a/leaf");
  EXPECT_TRUE(leaf.at("threads")[0].at("inclusive").is_null()) << "not measured, never zero";
  EXPECT_TRUE(leaf.at("threads")[0].at("exclusive").is_null());
  EXPECT_TRUE(leaf.at("threads")[0].at("groups").is_null());
  EXPECT_GE(SumOverThreads(leaf, "wall_inclusive_ns"), 5 * kMs);
  EXPECT_NE(run.err.find("seccomp"), std::string::npos) << run.err;
}

TEST(Scenario, BackendNoneMeasuresTimeOnly) {
  const ScenarioRun run = RunApp("nested", {"TD_BACKEND=none"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  EXPECT_EQ(report.at("backend").at("name"), "none");
  EXPECT_TRUE(report.at("events").empty());
  EXPECT_GE(SumOverThreads(Region(report, "outer"), "wall_inclusive_ns"), 20 * kMs);
}

// A misspelled setting would change nothing and say nothing: the runtime
// names it once, with the setting it was probably meant to be.
TEST(Scenario, AMisspelledSettingIsNamedOnceWithTheNearest) {
  const ScenarioRun run = RunApp("pthreads", {"TD_OUTPT=none", "TD_QUIET=1", "TD_NOT_A_THING_AT_ALL=1",
                                              "TD_CLI=td"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string line = "td: warning: unknown setting TD_OUTPT; did you mean TD_OUTPUT?\n";
  ASSERT_NE(run.err.find(line), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find(line), run.err.rfind(line)) << "said more than once:\n" << run.err;
  EXPECT_NE(run.err.find("td: warning: unknown setting TD_NOT_A_THING_AT_ALL; `td config` lists the settings\n"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("TD_CLI"), std::string::npos) << "the Python binding's setting is known:\n" << run.err;
}

TEST(Scenario, ScopeEndsOnException) {
  const ScenarioRun run = RunApp("scope");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  const auto& throws = Region(report, "throws");
  EXPECT_EQ(SumOverThreads(throws, "calls"), 1);
  EXPECT_EQ(SumOverThreads(throws, "unterminated"), 0);
  EXPECT_NE(FindRegion(report, "after"), nullptr) << "not nested inside 'throws'";
}

TEST(Scenario, DynamicNamesAreSeparateRegions) {
  const ScenarioRun run = RunApp("dynamic");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  for (const char* name : {"phase_0", "phase_1", "phase_2"}) {
    EXPECT_EQ(SumOverThreads(Region(report, name), "calls"), 1) << name;
  }
}

TEST(Scenario, ParameterisedRegionsGiveOneRowPerValue) {
  const ScenarioRun run = RunApp("sweep");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto& report = OnlyReport(run);
  for (int block : {16, 32, 48}) {
    const std::string name = "block[" + std::to_string(block) + "]";
    const auto& r = Region(report, name);
    EXPECT_EQ(SumOverThreads(r, "calls"), 2) << name;
    EXPECT_EQ(r.at("base_name"), "block");
    EXPECT_EQ(r.at("parameter"), block);
  }
  // Larger values spin longer on the CPU (wall time can be inflated by load;
  // task-clock cannot): 2 × 1 ms for block[16], 2 × 3 ms of thread CPU time
  // for block[48]. Under load perf's task-clock was seen to read up to 6 %
  // below the thread CPU clock the spin uses (565 µs for 600 µs), and under
  // the sanitizers a first block's task-clock ~0.8 ms above its spin (with
  // 100 µs spins that once put block[16] above block[48]).
  EXPECT_GE(SumCounter(Region(report, "block[48]"), "task-clock"), 5 * kMs);
  EXPECT_LT(SumCounter(Region(report, "block[16]"), "task-clock"),
            SumCounter(Region(report, "block[48]"), "task-clock"));
  EXPECT_EQ(Region(report, "scoped[-2]").at("parameter"), -2);
  EXPECT_TRUE(FindRegion(report, "block") == nullptr) << "no row for the bare name";
  EXPECT_NE(run.err.find("block[32]"), std::string::npos) << "text report row per value";
}

TEST(Scenario, TraceExportsBalancedBeginEndPerThread) {
  const ScenarioRun run = RunApp("pthreads", {"TD_TRACE=1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.traces.size(), 1u) << run.err;
  std::map<int64_t, std::vector<const nlohmann::json*>> by_thread;
  for (const auto& e : run.traces[0].at("traceEvents")) {
    if (e.at("ph") != "M") by_thread[e.at("tid").get<int64_t>()].push_back(&e);
  }
  ASSERT_EQ(by_thread.size(), 8u);
  for (const auto& [tid, events] : by_thread) {
    ASSERT_EQ(events.size(), 200u) << "100 begins and 100 ends on thread " << tid;
    double last_ts = -1;
    uint64_t last_clock = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      const auto& e = *events[i];
      EXPECT_EQ(e.at("name"), "work");
      EXPECT_EQ(e.at("ph"), i % 2 == 0 ? "B" : "E");
      EXPECT_GE(e.at("ts").get<double>(), last_ts);
      const uint64_t clock = e.at("args").at("task-clock").get<uint64_t>();
      EXPECT_GE(clock, last_clock) << "counters are cumulative";
      last_ts = e.at("ts").get<double>();
      last_clock = clock;
    }
  }
  EXPECT_EQ(run.traces[0].at("otherData").at("dropped_events_per_thread").at("0"), 0);
}

TEST(Scenario, TraceRingKeepsTheNewestAndReportsWhatItDropped) {
  const ScenarioRun run = RunApp("pthreads", {"TD_TRACE=1", "TD_TRACE_EVENTS=16"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.traces.size(), 1u);
  EXPECT_EQ(run.traces[0].at("otherData").at("dropped_events_per_thread").at("3"), 184);
  EXPECT_NE(run.err.find("overwrote its 184 oldest events (ring of 16)"), std::string::npos) << run.err;
  bool in_json = false;
  for (const auto& d : OnlyReport(run).at("diagnostics")) {
    in_json |= d.at("message").get<std::string>().find("TD_TRACE: thread") != std::string::npos;
  }
  EXPECT_TRUE(in_json);
  const ScenarioRun bad = RunApp("nested", {"TD_TRACE=1", "TD_TRACE_EVENTS=lots"});
  EXPECT_NE(bad.err.find("TD_TRACE_EVENTS=\"lots\" is not understood"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.traces.size(), 1u) << "default capacity used";
}

TEST(Scenario, UnwritableOutputDirectoryFallsBackAndSaysWhere) {
  const std::string tmp = RunScenario(TD_SCENARIO_APP, "unterminated").dir;  // a writable dir
  const ScenarioRun run =
      RunApp("nested", {"TD_OUTPUT_DIR=/nonexistent/td-test", "TMPDIR=" + tmp});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("TD_OUTPUT_DIR=/nonexistent/td-test"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("writing " + tmp + "/td-"), std::string::npos) << run.err;
}

TEST(Scenario, TextReportGoesToTdOutputFile) {
  const ScenarioRun run = RunApp("nested", {"TD_OUTPUT=report.txt"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string text = ReadFile(run.dir + "/report.txt");
  EXPECT_NE(text.find("outer"), std::string::npos);
  EXPECT_NE(text.find("├─ inner_a"), std::string::npos) << text;
  EXPECT_EQ(run.err.find("├─ inner_a"), std::string::npos);
}

TEST(Scenario, JsonIsNeverWrittenThroughASymlink) {
  // The JSON name holds the child's pid, which cannot be known in advance, so
  // the link is planted at the text report's name (TD_OUTPUT), written by the
  // same code path.
  const ScenarioRun first = RunApp("unterminated");
  const std::string victim = first.dir + "/victim.txt";
  { std::ofstream(victim) << "keep me"; }
  const std::string link = first.dir + "/td-link.json";
  ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
  const ScenarioRun run = RunApp("nested", {"TD_OUTPUT=" + link, "TD_JSON=0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(ReadFile(victim), "keep me");
  // Neither followed nor replaced: the link stays, one line says why, and
  // the report goes to stderr instead (docs/usage.md, "Output files").
  struct stat st {};
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by the report";
  EXPECT_NE(run.err.find("is a symbolic link to a file"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("outer"), std::string::npos) << run.err;
}


TEST(Scenario, ReplayBackendReportsTheRecordingWithItsTopDownTrees) {
  const std::string fixture = std::string(TD_TEST_DATA_DIR) + "/replay_skl_matmul.json";
  const ScenarioRun run = RunApp("nested", {"TD_BACKEND=replay:" + fixture});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.reports.empty()) << "the recording is reported, not re-recorded";
  EXPECT_NE(run.err.find("td: replaying " + fixture), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("Top-Down (skl)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("▶ Backend_Bound 78.0% › Memory_Bound 63.8% › L3_Miss_Bound 40.0% of cycles"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("▶ Backend_Bound 48.0% › Core_Bound 41.4%"), std::string::npos);
  EXPECT_NE(run.err.find("iron law: 5e+08 instructions × 2.00 CPI ÷ 3.00 GHz = 333.00 ms"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("outer"), std::string::npos) << "this run's own regions are not measured";
}

// A hostile recording (children out of range, as a fuzzer found) is one
// error line; the program is measured instead and keeps its own exit code.
TEST(Scenario, ReplayOfAHostileFileIsOneLineAndKeepsTheExitCode) {
  std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/replay_skl_matmul.json");
  nlohmann::json recording = nlohmann::json::parse(in);
  recording["regions"][0]["children"] = {999, -3};
  char dir[] = "/tmp/td-hostile-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string bad = std::string(dir) + "/bad.json";
  std::ofstream(bad) << recording.dump();
  const ScenarioRun run = RunApp("nested", {"TD_BACKEND=replay:" + bad});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const std::string line = "TD_BACKEND=replay:" + bad + ": " + bad +
                           ": regions[0].children[0] = 999 is not a region index; measuring this run instead\n";
  EXPECT_EQ(run.err.rfind("td: error: " + line, 0), 0u) << "the first line of stderr: " << run.err;
  ASSERT_EQ(run.reports.size(), 1u);
  EXPECT_NE(FindRegion(run.reports[0], "outer/inner_a/leaf"), nullptr);
  std::remove(bad.c_str());
  rmdir(dir);
}

// A device or FIFO as the recording: refused before it is read (it may
// never end, or never start), so the program neither hangs nor grows; it is
// measured instead and keeps its exit code.
TEST(Scenario, ReplayOfADeviceOrFifoIsRefusedAndTheRunMeasured) {
  char dir[] = "/tmp/td-replay-fifo-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string fifo = std::string(dir) + "/recording.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [file, kind] : {std::pair<std::string, std::string>{"/dev/zero", "a character device"},
                                   std::pair<std::string, std::string>{fifo, "a FIFO"}}) {
    const ScenarioRun run = RunApp("nested", {"TD_BACKEND=replay:" + file});
    EXPECT_EQ(run.exit_code, 0) << file << ": " << run.err;
    EXPECT_NE(run.err.find("TD_BACKEND=replay:" + file + ": cannot read " + file + ": " + kind +
                           ", not a regular file"),
              std::string::npos)
        << run.err;
    ASSERT_EQ(run.reports.size(), 1u) << file;
    EXPECT_NE(FindRegion(run.reports[0], "outer/inner_a/leaf"), nullptr) << file;
  }
  std::remove(fifo.c_str());
  rmdir(dir);
}

TEST(Scenario, ReplayOfAMissingFileSaysSoAndMeasuresTheRun) {
  const ScenarioRun run = RunApp("nested", {"TD_BACKEND=replay:/nonexistent/run.json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("TD_BACKEND=replay:/nonexistent/run.json: cannot open"), std::string::npos)
      << run.err;
  ASSERT_EQ(run.reports.size(), 1u);
  EXPECT_NE(FindRegion(run.reports[0], "outer/inner_a/leaf"), nullptr);
}

}  // namespace
}  // namespace td::testing

namespace td::testing {
namespace {

// TD_EVENTS on the real perf_event path: software events in groups of their
// own, counted per region with full coverage; hardware ones named as skipped
// when the machine has no PMU, and bad names reported without losing the run.
TEST(Scenario, TdEventsOpensRequestedSoftwareGroups) {
  const ScenarioRun run =
      RunApp("pagefaults", {"TD_EVENTS=minor-faults,{major-faults,cpu-clock},not_an_event", "TD_OUTPUT=stderr"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.reports.size(), 1u) << run.err;
  const nlohmann::json& report = run.reports[0];
  ASSERT_EQ(report.at("groups").size(), 4u) << report.at("groups").dump();
  EXPECT_EQ(report.at("groups")[1].at("events"), nlohmann::json::array({"minor-faults"}));
  EXPECT_EQ(report.at("groups")[3].at("events"), nlohmann::json::array({"cpu-clock"}));
  const nlohmann::json* region = FindRegion(report, "first_touch");
  ASSERT_NE(region, nullptr);
  EXPECT_GE(SumCounter(*region, "minor-faults"), 16000) << "64 MiB first touched";
  // cpu-clock ≈ task-clock for a thread that never sleeps here.
  EXPECT_GT(SumCounter(*region, "cpu-clock"), 0.5 * SumCounter(*region, "task-clock"));
  const nlohmann::json& times = region->at("threads")[0].at("groups")[1];  // [enabled, running]
  ASSERT_EQ(times.size(), 2u) << times.dump();
  EXPECT_GT(times[0].get<double>(), 0);
  EXPECT_EQ(times[0], times[1]) << "software groups never multiplex";
  EXPECT_NE(run.err.find("group 1 {minor-faults}: coverage 100%"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("not_an_event"), std::string::npos) << run.err;
}

// On a machine with a PMU: a loop of exactly 20,000,000 instructions counts
// within 1 %. Elsewhere it says why it is skipped.
TEST(HardwareCounters, KnownLoopInstructionsWithinOnePercent) {
  const ScenarioRun run = RunApp("known_loop", {"TD_EVENTS=instructions", "TD_OUTPUT=none"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.reports.size(), 1u);
  const nlohmann::json& report = run.reports[0];
  if (!report.at("backend").at("hardware_counters").at("available").get<bool>()) {
    GTEST_SKIP() << "skipped: no hardware PMU ("
                 << report.at("backend").at("hardware_counters").at("reason").get<std::string>() << ")";
  }
#if !defined(__x86_64__)
  GTEST_SKIP() << "skipped: the known loop is x86-64 assembly";
#endif
  const nlohmann::json* region = FindRegion(report, "known_loop");
  ASSERT_NE(region, nullptr);
  EXPECT_NEAR(SumCounter(*region, "instructions"), 20e6, 0.01 * 20e6);
}

// TD_BACKEND=papi: where PAPI cannot count (no PMU: its perf_event component
// is disabled) one error line says why and the run falls back to perf_event.
TEST(Scenario, PapiBackendSaysWhyItCannotCount) {
  const ScenarioRun run = RunApp("nested", {"TD_BACKEND=papi", "TD_OUTPUT=none"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.reports.size(), 1u);
  const std::string backend = run.reports[0].at("backend").at("name");
  if (backend == "papi") {
    EXPECT_TRUE(run.reports[0].at("backend").at("hardware_counters").at("available").get<bool>());
    return;  // a machine where PAPI counts: nothing to explain
  }
  EXPECT_EQ(backend, "perf_event");
  EXPECT_NE(run.err.find("td: error: TD_BACKEND=papi: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("; using the perf_event backend instead"), std::string::npos) << run.err;
  bool in_json = false;
  for (const auto& d : run.reports[0].at("diagnostics")) {
    in_json |= d.at("message").get<std::string>().find("TD_BACKEND=papi") != std::string::npos;
  }
  EXPECT_TRUE(in_json) << "the reason is kept in the JSON too";
  EXPECT_NE(FindRegion(run.reports[0], "outer"), nullptr) << "no data lost";
}

// A TD_BACKEND=papi run that PAPI could not serve: one line says why, not one
// per thread, and the perf_event software group measured every thread.
void ExpectOnePapiLineAndSoftwareCounts(const ScenarioRun& run) {
  ASSERT_EQ(run.exit_code, 0) << run.err;
  size_t lines = 0;
  for (size_t at = run.err.find("TD_BACKEND=papi"); at != std::string::npos;
       at = run.err.find("TD_BACKEND=papi", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << run.err;
  EXPECT_EQ(run.err.find("counters not measured"), std::string::npos) << run.err;
  const nlohmann::json& report = OnlyReport(run);
  const nlohmann::json& backend = report.at("backend");
  EXPECT_EQ(backend.at("name"), "perf_event") << "the backend actually used";
  const nlohmann::json& hardware = backend.at("hardware_counters");
  if (!hardware.at("available").get<bool>()) {
    EXPECT_FALSE(hardware.at("reason").get<std::string>().empty()) << "unavailable says why";
  }
  EXPECT_EQ(backend.at("measured"), "wall time, calls, task-clock, page faults, context switches, CPU migrations");
  const nlohmann::json& spin = Region(report, "spin");
  ASSERT_EQ(spin.at("threads").size(), 4u);
  for (const nlohmann::json& t : spin.at("threads")) {
    ASSERT_FALSE(t.at("inclusive").is_null()) << "thread " << t.at("thread");
    EXPECT_GT(t.at("counts_by_name").at("task-clock").at("inclusive").get<double>(), 0) << "thread " << t.at("thread");
  }
}

// TD_BACKEND=papi with four threads. Where PAPI counts, it is the backend and
// says so; where it cannot, the run falls back once for all threads. Without
// a PMU on x86-64 it runs again with libpfm4 told to assume one
// (LIBPFM_FORCE_PMU): PAPI's perf_event component is then enabled and fails
// only when events are added — the case that used to warn once per thread
// and record hardware counters as available.
TEST(Scenario, PapiThatCannotCountFallsBackOnceForAllThreads) {
  const ScenarioRun run = RunApp("four_threads", {"TD_BACKEND=papi", "TD_OUTPUT=none"});
  ASSERT_EQ(run.reports.size(), 1u) << run.err;
  const nlohmann::json& backend = run.reports[0].at("backend");
  if (backend.at("name") == "papi") {
    EXPECT_EQ(run.err.find("counters not measured"), std::string::npos) << run.err;
    EXPECT_EQ(run.reports[0].at("events")[0].at("pmu"), "papi");
    return;  // PAPI counts here: nothing to fall back from
  }
  ExpectOnePapiLineAndSoftwareCounts(run);
  if (backend.at("hardware_counters").at("available").get<bool>()) return;
#if defined(__x86_64__)
  const ScenarioRun forced =
      RunApp("four_threads", {"TD_BACKEND=papi", "TD_OUTPUT=none", "LIBPFM_FORCE_PMU=amd64_fam17h_zen2"});
  ExpectOnePapiLineAndSoftwareCounts(forced);
  EXPECT_FALSE(OnlyReport(forced).at("backend").at("hardware_counters").at("available").get<bool>());
#endif
}

// MPI ranks as the launcher describes them; no MPI library involved.
TEST(Scenario, MpiRankIsNamedInTheFileAndJsonAndOnlyRankZeroPrints) {
  const std::vector<std::string> job = {"OMPI_COMM_WORLD_SIZE=12", "PMIX_NAMESPACE=prterun-n1-77@1"};
  std::vector<std::string> rank2 = job;
  rank2.push_back("OMPI_COMM_WORLD_RANK=2");
  const ScenarioRun two = RunApp("nested", rank2);
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_TRUE(std::filesystem::exists(two.dir + "/td-td_scenario_app-prterun-n1-77_1-rank02.json")) << two.dir;
  const auto& report = OnlyReport(two);
  ASSERT_TRUE(report.contains("mpi"));
  EXPECT_EQ(report.at("mpi").at("rank"), 2);
  EXPECT_EQ(report.at("mpi").at("size"), 12);
  EXPECT_EQ(report.at("mpi").at("job"), "prterun-n1-77@1");
  EXPECT_EQ(report.at("mpi").at("launcher"), "Open MPI");
  EXPECT_EQ(report.at("mpi").at("host"), report.at("machine").at("hostname"));
  EXPECT_EQ(two.err, "") << "a rank other than 0 prints nothing when it has no problem to report";

  std::vector<std::string> rank0 = job;
  rank0.push_back("OMPI_COMM_WORLD_RANK=0");
  const ScenarioRun zero = RunApp("nested", rank0);
  ASSERT_EQ(zero.exit_code, 0) << zero.err;
  EXPECT_TRUE(std::filesystem::exists(zero.dir + "/td-td_scenario_app-prterun-n1-77_1-rank00.json"));
  EXPECT_NE(zero.err.find("td report: td_scenario_app"), std::string::npos) << zero.err;

  rank2.push_back("TD_REPORT_RANKS=all");
  const ScenarioRun all = RunApp("nested", rank2);
  EXPECT_NE(all.err.find("td report: td_scenario_app"), std::string::npos) << all.err;
}

TEST(Scenario, SlurmTasksAreRanksOfTheJob) {
  const ScenarioRun run = RunApp("nested", {"SLURM_PROCID=3", "SLURM_NTASKS=4", "SLURM_JOB_ID=991"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(std::filesystem::exists(run.dir + "/td-td_scenario_app-991-rank3.json"));
  const auto& report = OnlyReport(run);
  EXPECT_EQ(report.at("mpi").at("launcher"), "Slurm");
  EXPECT_EQ(report.at("mpi").at("job"), "991");
}

TEST(Scenario, WithoutALauncherThereIsNoMpiObject) {
  const ScenarioRun run = RunApp("nested");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(OnlyReport(run).contains("mpi"));
}

}  // namespace
}  // namespace td::testing

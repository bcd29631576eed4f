// The td command line as a new user meets it: help and version on stdout
// with status 0, one line on stderr for each mistake (status 2 for a misused
// command line, 1 for a file or data that says no), the nearest valid name
// when there is one, one encoding per event, and td run's checks made before
// the program runs. Each test runs the built td binary.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/counters/availability.h"
#include "runtime/counters/backend.h"
#include "tests/support/build_paths.h"

namespace {

namespace fs = std::filesystem;

struct Outcome {
  int status = -1;  // exit status; -1 when td did not exit normally
  std::string out;
  std::string err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh folder under the test's temporary directory.
std::string ScratchDir() {
  std::string dir = (fs::temp_directory_path() / "td-cli-test-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
  return dir;
}

// Runs td with `args` in `cwd`, with NAME=VALUE settings `env` added; its
// stdout and stderr go through files, so a long output cannot block it.
Outcome Td(const std::vector<std::string>& args, const std::string& cwd = "",
           const std::vector<std::string>& env = {}) {
  const std::string dir = ScratchDir();
  const std::string out_path = dir + "/out";
  const std::string err_path = dir + "/err";
  const std::string td = TD_CLI;  // made before fork: the child only execs
  const pid_t child = fork();
  if (child == 0) {
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    for (const std::string& setting : env) putenv(const_cast<char*>(setting.c_str()));
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || err < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0) _exit(126);
    std::vector<char*> argv = {const_cast<char*>(td.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(td.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  Outcome outcome;
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.out = Slurp(out_path);
  outcome.err = Slurp(err_path);
  fs::remove_all(dir);
  return outcome;
}

size_t Lines(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string Data(const std::string& name) { return std::string(TD_TEST_DATA_DIR) + "/" + name; }

// Every subcommand (tools/td/commands.h, plus help and version).
const std::vector<std::string> kCommands = {"run",    "report",    "compare", "explain", "recompute", "import-perf",
                                            "import-metrics", "events", "uarchs",  "calibrate", "config",
                                            "help",   "version"};

// Files that are no regular file of text are refused at once, in one line:
// a device or FIFO may never end or never start, and a sparse or binary file
// is refused at its first NUL, before the rest is read.
TEST(CliReaders, WhatIsNoRegularFileOfTextIsRefusedAtOnce) {
  const std::string dir = ScratchDir();
  const std::string fifo = dir + "/fifo.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string sparse = dir + "/sparse.json";
  { std::ofstream create(sparse); }
  ASSERT_EQ(truncate(sparse.c_str(), off_t{2} << 30), 0);  // 2 GiB of holes: no disk used
  const std::string trailing = dir + "/trailing.json";
  std::ofstream(trailing) << std::string("{\"a\": 1}\0\0", 10);
  const std::string loop = dir + "/loop.json";
  ASSERT_EQ(symlink(loop.c_str(), loop.c_str()), 0);
  const std::map<std::string, std::string> refusals = {
      {"/dev/zero", "td: cannot read /dev/zero: a character device, not a regular file; td reads recordings and "
                    "cases from regular files\n"},
      {fifo, "td: cannot read " + fifo + ": a FIFO, not a regular file; td reads recordings and cases from regular "
             "files\n"},
      {sparse, "td: " + sparse + ": not text: a NUL byte at offset 0\n"},
      {trailing, "td: " + trailing + ": not text: a NUL byte at offset 8\n"},
      {loop, "td: cannot open " + loop + ": " + std::strerror(ELOOP) + "\n"},
  };
  for (const auto& [file, line] : refusals) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"report", file}, {"recompute", file}, {"report", file, "--json"}}) {
      const Outcome o = Td(args);
      EXPECT_EQ(o.status, 1) << args[0] << " " << file;
      EXPECT_EQ(o.out, "") << args[0] << " " << file;
      EXPECT_EQ(o.err, line) << args[0] << " " << file;
    }
  }
  const Outcome both = Td({"compare", "/dev/zero", fifo});
  EXPECT_EQ(both.status, 1);
  EXPECT_EQ(both.err, refusals.at("/dev/zero"));
  fs::remove_all(dir);
}

// An object with very many keys is read in linear time: 200,000 keys are one
// line of refusal (no schema_version), not minutes of key comparisons.
TEST(CliReaders, AnObjectWithManyKeysIsRefusedInOneLine) {
  const std::string dir = ScratchDir();
  const std::string file = dir + "/keys.json";
  {
    std::ofstream out(file);
    out << "{";
    for (int k = 0; k < 200000; ++k) out << (k == 0 ? "" : ",") << "\"k" << k << "\":" << k;
    out << ",\"regions\":[]}";
  }
  const Outcome o = Td({"report", file});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "td: " + file + ": run: missing field \"schema_version\"\n");
  fs::remove_all(dir);
}

TEST(CliConventions, VersionGoesToStdout) {
  for (const std::string spelling : {"--version", "version"}) {
    const Outcome o = Td({spelling});
    EXPECT_EQ(o.status, 0) << spelling;
    EXPECT_EQ(o.out, std::string("td ") + TD_EXPECTED_VERSION + "\n") << spelling;
    EXPECT_EQ(o.err, "") << spelling;
  }
}

TEST(CliConventions, HelpGoesToStdoutAndSucceeds) {
  for (const std::string spelling : {"--help", "-h", "help"}) {
    const Outcome o = Td({spelling});
    EXPECT_EQ(o.status, 0) << spelling;
    EXPECT_EQ(o.err, "") << spelling;
    EXPECT_EQ(o.out.rfind("usage: td COMMAND", 0), 0u) << spelling << ": " << o.out;
    for (const std::string& command : kCommands) {
      EXPECT_TRUE(Contains(o.out, "\n  " + command + " ")) << spelling << " does not list " << command;
    }
    EXPECT_TRUE(Contains(o.out, "exit status: 0 done, 1 failed")) << o.out;
  }
}

TEST(CliConventions, EveryCommandHasHelpOnStdout) {
  for (const std::string& command : kCommands) {
    const Outcome long_flag = Td({command, "--help"});
    EXPECT_EQ(long_flag.status, 0) << command;
    EXPECT_EQ(long_flag.err, "") << command;
    EXPECT_EQ(long_flag.out.rfind("usage: td " + command, 0), 0u) << command << ": " << long_flag.out;
    EXPECT_GT(Lines(long_flag.out), 2u) << command << " has no help text";
    EXPECT_EQ(Td({command, "-h"}).out, long_flag.out) << command;
    EXPECT_EQ(Td({"help", command}).out, long_flag.out) << command;
  }
  // Help wins wherever it stands, even after a subcommand's own words.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"report", "--help"}, {"recompute", "--help"}, {"explain", "--help"}, {"events", "encode", "--help"}}) {
    const Outcome o = Td(args);
    EXPECT_EQ(o.status, 0) << args[0];
    EXPECT_EQ(o.err, "") << args[0];
    EXPECT_EQ(o.out.rfind("usage: td " + args[0], 0), 0u) << o.out;
  }
}

TEST(CliConventions, NoCommandIsMisuseWithTheUsageOnStderr) {
  const Outcome o = Td({});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.rfind("usage: td COMMAND", 0), 0u) << o.err;
}

TEST(CliConventions, UnknownCommandIsOneLineWithTheNearest) {
  Outcome o = Td({"reprot", "run.json"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "td: unknown command reprot; did you mean report?\n");
  o = Td({"frobnicate"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "td: unknown command frobnicate; `td help` lists the commands\n");
  o = Td({"help", "explian"});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "td: unknown command explian; did you mean explain?\n");
}

TEST(CliConventions, UnknownFlagIsOneLineWithTheNearest) {
  const std::string run = Data("replay_skl_matmul.json");
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"report", run, "--jsn"}, "td: unknown flag --jsn for report; did you mean --json?\n"},
      {{"compare", run, run, "--cvs"}, "td: unknown flag --cvs for compare; did you mean --csv?\n"},
      {{"run", "--pases", "2", "--", "true"}, "td: unknown flag --pases for run; did you mean --passes?\n"},
      {{"events", "encode", "cycles", "--pum", "icl"},
       "td: unknown flag --pum for events; did you mean --pmu?\n"},
      {{"--verison"}, "td: unknown flag --verison for td; did you mean --version?\n"},
      {{"report", run, "--zzzzzz"}, "td: unknown flag --zzzzzz for report; `td report --help` lists its flags\n"},
      {{"report", run, "--json", "--csv"}, "td: --json, --csv and --html each choose the output; give one\n"},
      {{"report", run, "--csv", "--html", "x.html"}, "td: --json, --csv and --html each choose the output; give one\n"},
      {{"compare", run, run, "--csv", "--html", "x.html"}, "td: --csv, --json and --html each choose the output; give one\n"},
      {{"recompute"}, "td: recompute takes one CASE.json; `td recompute --help` shows how\n"},
  };
  for (const Case& c : cases) {
    const Outcome o = Td(c.args);
    EXPECT_EQ(o.status, 2) << c.expected;
    EXPECT_EQ(o.out, "") << c.expected;
    EXPECT_EQ(o.err, c.expected);
  }
}

TEST(CliConventions, ExistingFlagsStillWork) {
  const std::string run = Data("replay_skl_matmul.json");
  const Outcome csv = Td({"report", run, "--csv"});
  EXPECT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("region,kind,name,value,flagged,critical\n", 0), 0u);
  // Flags may come before the operand, and take --flag=value.
  const Outcome first = Td({"report", "--region=multiply1", "--no-color", run});
  EXPECT_EQ(first.status, 0) << first.err;
  EXPECT_TRUE(Contains(first.out, "multiply1"));
  EXPECT_FALSE(Contains(first.out, "multiply2")) << "--region=multiply1 was not applied";
  const Outcome level = Td({"report", run, "--level", "zero"});
  EXPECT_EQ(level.status, 2);
  EXPECT_EQ(level.err, "td: --level takes a number from 1 (Level 1) upwards, not \"zero\"\n");
}

// The closing hint of td run, `td report X.json --html`, works as printed:
// the page goes beside the recording, replacing only a page td wrote.
TEST(CliConventions, HtmlWithoutANameGoesBesideTheInput) {
  const std::string dir = ScratchDir();
  fs::copy_file(Data("replay_skl_matmul.json"), dir + "/m.json");
  const Outcome o = Td({"report", dir + "/m.json", "--html"});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, "td: wrote " + dir + "/m.html\n");
  EXPECT_TRUE(Contains(Slurp(dir + "/m.html"), "<title>td report: ")) << "not the page";
  const Outcome again = Td({"report", "--html", "m.json"}, dir);  // before its operand, too
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.err, "td: wrote m.html\n") << "td's own page is replaced";
  {
    std::ofstream mine(dir + "/m.html");
    mine << "<p>my notes</p>\n";
  }
  const Outcome beside = Td({"report", "m.json", "--html"}, dir);
  ASSERT_EQ(beside.status, 0) << beside.err;
  EXPECT_EQ(beside.err, "td: wrote m.1.html\n");
  EXPECT_EQ(Slurp(dir + "/m.html"), "<p>my notes</p>\n") << "a page td did not write was replaced";
  fs::remove_all(dir);
}

TEST(CliConventions, AnUnknownRegionFailsNamingTheNearest) {
  const std::string run = Data("replay_skl_matmul.json");
  const Outcome typo = Td({"report", run, "--region", "multiply3"});
  EXPECT_EQ(typo.status, 1);
  EXPECT_EQ(typo.out, "");
  EXPECT_EQ(typo.err, "td: " + run + ": no region \"multiply3\"; did you mean multiply1?\n");
  const Outcome far = Td({"report", run, "--region", "nosuch", "--json"});
  EXPECT_EQ(far.status, 1);
  EXPECT_EQ(far.out, "");
  EXPECT_EQ(far.err, "td: " + run + ": no region \"nosuch\"; the nearest is multiply1\n");
}

TEST(CliFiles, ATimelineIsNamedAsOne) {
  const std::string dir = ScratchDir();
  {
    std::ofstream trace(dir + "/td-app-7.trace.json");
    trace << "{\"traceEvents\": [], \"otherData\": {}}\n";
  }
  const Outcome o = Td({"report", dir + "/td-app-7.trace.json"});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "td: " + dir + "/td-app-7.trace.json is a timeline (Chrome trace format), not a td recording: "
                   "open it in https://ui.perfetto.dev or chrome://tracing; `td report " + dir +
                   "/td-app-7.json` reports the run\n");
  fs::remove_all(dir);
}

TEST(CliConfig, UnknownSettingsAreNamedWithTheNearest) {
  const Outcome o = Td({"config"}, "", {"TD_OUTPT=none"});
  EXPECT_EQ(o.status, 1);
  EXPECT_TRUE(Contains(o.out, "\nwarning: unknown setting TD_OUTPT; did you mean TD_OUTPUT?\n")) << o.out;
  const Outcome fine = Td({"config"}, "", {"TD_OUTPUT=none", "TD_CLI=td"});
  EXPECT_EQ(fine.status, 0) << fine.out;
  EXPECT_FALSE(Contains(fine.out, "unknown")) << fine.out;
}

TEST(CliFiles, UnreadableFileGivesTheSystemsReason) {
  const std::string missing = "/nonexistent-td-test/run.json";
  for (const std::string command : {"report", "recompute"}) {
    const Outcome o = Td({command, missing});
    EXPECT_EQ(o.status, 1) << command;
    EXPECT_EQ(o.out, "") << command;
    EXPECT_EQ(o.err, "td: cannot open " + missing + ": " + std::strerror(ENOENT) + "\n") << command;
  }
  const Outcome perf = Td({"import-perf", "--uarch", "skl", missing});
  EXPECT_EQ(perf.status, 1);
  EXPECT_EQ(perf.err, "td: cannot open " + missing + ": " + std::strerror(ENOENT) + "\n");
  const std::string dir = ScratchDir();
  const Outcome folder = Td({"report", dir});
  EXPECT_EQ(folder.status, 1);
  EXPECT_EQ(folder.err, "td: cannot read " + dir + ": " + std::strerror(EISDIR) + "\n");
  if (geteuid() != 0) {  // root reads whatever the mode says
    const std::string locked = dir + "/locked.json";
    std::ofstream(locked) << "{}";
    chmod(locked.c_str(), 0);
    const Outcome o = Td({"report", locked});
    EXPECT_EQ(o.status, 1);
    EXPECT_EQ(o.err, "td: cannot open " + locked + ": " + std::strerror(EACCES) + "\n");
  }
  fs::remove_all(dir);
}

TEST(CliFiles, InvalidJsonGivesLineAndColumn) {
  const std::string dir = ScratchDir();
  const std::string bad = dir + "/bad.json";
  std::ofstream(bad) << "{\n  \"schema_version\": 1,\n  oops\n}\n";
  for (const std::string command : {"report", "recompute"}) {
    const Outcome o = Td({command, bad});
    EXPECT_EQ(o.status, 1) << command;
    EXPECT_EQ(o.err.rfind("td: " + bad + ": not valid JSON: line 3, column 3: ", 0), 0u) << command << ": " << o.err;
    EXPECT_EQ(Lines(o.err), 1u) << o.err;
  }
  const std::string cut = dir + "/cut.json";
  std::ofstream(cut) << "[1, 2,";
  const Outcome o = Td({"report", cut});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err.rfind("td: " + cut + ": not valid JSON: line 1, column 7: ", 0), 0u) << o.err;
  fs::remove_all(dir);
}

TEST(CliFiles, RecomputeOnARunRecordingPointsToReport) {
  const std::string run = Data("replay_skl_matmul.json");
  const Outcome o = Td({"recompute", run});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "td: " + run + " is a td run recording, not a case file; `td report " + run + "` analyses it\n");
  const Outcome fine = Td({"recompute", Data("icl_case.json")});
  EXPECT_EQ(fine.status, 0) << fine.err;
  EXPECT_TRUE(Contains(fine.out, "\"Retiring\": 0.3")) << fine.out;
}

// Hostile inputs: a directory, a recording whose region tree points outside
// itself, a case file with wrong types. Exit 1, one line, no crash.
TEST(CliFiles, HostileInputsAreOneLineAndExitOne) {
  const std::string dir = ScratchDir();
  const Outcome folder = Td({"report", dir});
  EXPECT_EQ(folder.status, 1);
  EXPECT_EQ(Lines(folder.err), 1u) << folder.err;
  nlohmann::json run = nlohmann::json::parse(Slurp(Data("replay_skl_matmul.json")));
  run["regions"][0]["children"] = {999, -3};
  const std::string bad_run = dir + "/bad_run.json";
  std::ofstream(bad_run) << run.dump();
  for (const std::string command : {"report", "compare"}) {
    std::vector<std::string> args = {command, bad_run};
    if (command == "compare") args.push_back(Data("replay_skl_matmul.json"));
    const Outcome o = Td(args);
    EXPECT_EQ(o.status, 1) << command;
    EXPECT_EQ(o.err, "td: " + bad_run + ": regions[0].children[0] = 999 is not a region index\n") << command;
  }
  run = nlohmann::json::parse(Slurp(Data("replay_skl_matmul.json")));
  run["regions"] = "oops";
  std::ofstream(bad_run, std::ios::trunc) << run.dump();
  const Outcome oops = Td({"report", bad_run});
  EXPECT_EQ(oops.status, 1);
  EXPECT_EQ(oops.err, "td: " + bad_run + ": run.regions: expected a list, got string \"oops\"\n");
  nlohmann::json c = nlohmann::json::parse(Slurp(Data("icl_case.json")));
  c["expected"] = "x";
  const std::string bad_case = dir + "/bad_case.json";
  std::ofstream(bad_case) << c.dump();
  const Outcome recompute = Td({"recompute", bad_case});
  EXPECT_EQ(recompute.status, 1);
  EXPECT_EQ(recompute.err, "td: " + bad_case + ": case: \"expected\": expected a list, got string \"x\"\n");
  fs::remove_all(dir);
}

TEST(CliExplain, AnyCaseAndTheNearestName) {
  const Outcome exact = Td({"explain", "Memory_Bound"});
  ASSERT_EQ(exact.status, 0) << exact.err;
  EXPECT_EQ(exact.out.rfind("Memory_Bound\n  ", 0), 0u) << exact.out;
  for (const std::string spelling : {"memory_bound", "MEMORY_BOUND", "backend_bound.memory_bound"}) {
    const Outcome o = Td({"explain", spelling});
    EXPECT_EQ(o.status, 0) << spelling << ": " << o.err;
    EXPECT_EQ(o.out, exact.out) << spelling;
  }
  const Outcome typo = Td({"explain", "Memroy_Bound"});
  EXPECT_EQ(typo.status, 1);
  EXPECT_EQ(typo.err, "td: no explanation for \"Memroy_Bound\"; did you mean Memory_Bound?\n");
  const Outcome nothing_close = Td({"explain", "zzzzzzzz"});
  EXPECT_EQ(nothing_close.err, "td: no explanation for \"zzzzzzzz\"; `td explain` lists them all\n");
}

nlohmann::json Encode(const std::vector<std::string>& args) {
  std::vector<std::string> full = {"events", "encode"};
  full.insert(full.end(), args.begin(), args.end());
  const Outcome o = Td(full);
  EXPECT_EQ(o.status, 0) << args[0] << ": " << o.err;
  return nlohmann::json::parse(o.out, nullptr, false);
}

TEST(CliEvents, EverySpellingOfAnEventEncodesTheSame) {
  // Reference table (Ice Lake): TOPDOWN.BACKEND_BOUND_SLOTS is event 0xa4,
  // umask 0x02, raw config 0x2a4; libpfm4 4.13 alone gives 0x200.
  for (const std::string spelling : {"TOPDOWN.BACKEND_BOUND_SLOTS", "TOPDOWN:BACKEND_BOUND_SLOTS",
                                     "topdown.backend_bound_slots", "Topdown:Backend_Bound_Slots",
                                     "icl::TOPDOWN:BACKEND_BOUND_SLOTS"}) {
    const nlohmann::json e = Encode({spelling, "--pmu", "icl"});
    EXPECT_EQ(e.value("config", ""), "0x2a4") << spelling;
    EXPECT_EQ(e.value("type", 0), 4) << spelling << ": PERF_TYPE_RAW";
    EXPECT_EQ(e.value("pmu", ""), "icl") << spelling;
  }
}

TEST(CliEvents, CyclesIsPerfsGenericEventWhateverTheHost) {
  const nlohmann::json e = Encode({"cycles"});
  EXPECT_EQ(e.value("type", -1), 0) << "PERF_TYPE_HARDWARE";
  EXPECT_EQ(e.value("config", ""), "0x0") << "PERF_COUNT_HW_CPU_CYCLES";
  EXPECT_EQ(e.value("source", ""), "perf generic");
}

TEST(CliEvents, UnknownPmuIsNotAnUnknownEvent) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"encode", "cycles", "--pmu", "nosuchpmu"}, {"list", "--pmu", "nosuchpmu"}}) {
    std::vector<std::string> full = {"events"};
    full.insert(full.end(), args.begin(), args.end());
    const Outcome o = Td(full);
    EXPECT_EQ(o.status, 1) << args[0];
    EXPECT_EQ(o.err, "td: unknown PMU \"nosuchpmu\"; `td events list --pmus` lists them all\n") << args[0];
  }
  const Outcome typo = Td({"events", "encode", "cycles", "--pmu", "icx_"});
  EXPECT_EQ(typo.status, 1);
  EXPECT_EQ(typo.err.rfind("td: unknown PMU \"icx_\"; closest: icx, ", 0), 0u) << typo.err;
  EXPECT_EQ(Lines(typo.err), 1u) << typo.err;
}

TEST(CliEvents, ListAgreesWithEncode) {
  const Outcome pmus = Td({"events", "list", "--pmus"});
  ASSERT_EQ(pmus.status, 0) << pmus.err;
  std::regex host_line("\n([A-Za-z0-9_]+) +host");
  std::smatch host;
  ASSERT_TRUE(std::regex_search(pmus.out, host, host_line)) << "no host PMU in\n" << pmus.out;
  const Outcome here = Td({"events", "list"});
  ASSERT_EQ(here.status, 0) << here.err;
  std::vector<std::string> names;
  std::istringstream lines(here.out);
  for (std::string name; std::getline(lines, name);) names.push_back(name);
  ASSERT_FALSE(names.empty());
  // Every listed name encodes, on the PMU --pmus calls the host's (a sample:
  // a host with a known PMU lists hundreds).
  const size_t step = std::max<size_t>(1, names.size() / 25);
  for (size_t i = 0; i < names.size(); i += step) {
    const nlohmann::json e = Encode({names[i]});
    if (e.value("source", "") != "perf generic") {
      EXPECT_EQ(e.value("pmu", ""), host[1].str()) << names[i];
    }
  }
  const Outcome icl = Td({"events", "list", "--pmu", "icl"});
  ASSERT_EQ(icl.status, 0) << icl.err;
  EXPECT_TRUE(Contains(icl.out, "\nTOPDOWN.BACKEND_BOUND_SLOTS\n"));
  EXPECT_TRUE(Contains(icl.out, "\nPERF_METRICS.BACKEND_BOUND\n")) << "td's table adds what libpfm4 4.13 lacks";
}

bool HasPmu() {
  return td::DescribeAvailability(td::ProbeMachine(&td::RealPerfEventOpen)).hardware_counters;
}

TEST(CliRun, MissingOutputFolderFailsBeforeTheProgramRuns) {
  const std::string dir = ScratchDir();
  const std::string marker = dir + "/ran";
  const Outcome o = Td({"run", "--out", "/nonexistent-td-test/d/m.json", "--", "sh", "-c", "touch " + marker});
  EXPECT_EQ(o.status, 1);
  EXPECT_FALSE(fs::exists(marker)) << "the program ran although its recording could not be written";
  EXPECT_EQ(o.err, std::string("td run: cannot write /nonexistent-td-test/d/m.json: /nonexistent-td-test/d: ") +
                       std::strerror(ENOENT) + "\n");
  fs::remove_all(dir);
}

TEST(CliRun, AProgramThatCannotStartIsReportedOnce) {
  const Outcome o = Td({"run", "--passes", "1", "--", "./no-such-program"});
  EXPECT_EQ(o.status, 1);
  const std::string expected = std::string("cannot start ./no-such-program: ") + std::strerror(ENOENT);
  EXPECT_TRUE(Contains(o.err, "td run: " + expected + "\n")) << o.err;
  EXPECT_EQ(o.err.find("cannot start"), o.err.rfind("cannot start")) << "said twice:\n" << o.err;
}

TEST(CliRun, WithoutPmuTwoPassesRunOnce) {
  if (HasPmu()) GTEST_SKIP() << "this machine has a PMU: passes share its counter groups";
  const std::string dir = ScratchDir();
  const std::string count = dir + "/count";
  // exec keeps the pid, so td run finds the recording of the child it started.
  const std::string script = "echo pass >> " + count + "; exec " + TD_SCENARIO_APP + " nested";
  const Outcome o = Td({"run", "--passes", "2", "--out", dir + "/m.json", "--", "sh", "-c", script});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(Slurp(count), "pass\n") << "the program ran more than once";
  EXPECT_TRUE(Contains(o.err, "td run: --passes 2: no PMU: one pass is enough (")) << o.err;
  EXPECT_TRUE(Contains(o.err, "td run: pass 1 of 1: ")) << o.err;
  EXPECT_FALSE(Contains(o.err, "of 2")) << o.err;
  EXPECT_TRUE(fs::exists(dir + "/m.json"));
  fs::remove_all(dir);
}

// td run ends as the program did, as `time` does: scripts read its status.
TEST(CliRun, ExitsWithTheProgramsStatus) {
  const std::string dir = ScratchDir();
  const Outcome o = Td({"run", "--passes", "1", "--out", dir + "/m.json", TD_SCENARIO_APP, "exit3"});
  EXPECT_EQ(o.status, 3) << o.err;
  EXPECT_TRUE(Contains(o.err, "td run: pass 1 of 1: " + std::string(TD_SCENARIO_APP) + " exited with status 3\n"))
      << o.err;
  EXPECT_TRUE(fs::exists(dir + "/m.json")) << "the recording of a failing program is still written";
  EXPECT_TRUE(Contains(o.out, "inner_a")) << "and its report printed:\n" << o.out;
  fs::remove_all(dir);
}

TEST(CliRun, AScratchFolderThatCannotBeMadeNamesTmpdirNotAPattern) {
  const Outcome o = Td({"run", "--passes", "1", "--", "true"}, "", {"TMPDIR=/nonexistent-td-test"});
  EXPECT_EQ(o.status, 1);
  EXPECT_TRUE(Contains(o.err, std::string("td run: cannot create a scratch directory in /nonexistent-td-test "
                                          "(TMPDIR): ") + std::strerror(ENOENT) + "\n"))
      << o.err;
  EXPECT_FALSE(Contains(o.err, "XXXXXX")) << o.err;
}

TEST(CliRun, AKilledProgramGives128PlusTheSignal) {
  const Outcome o = Td({"run", "--passes", "1", "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(o.status, 128 + SIGTERM) << o.err;
  EXPECT_TRUE(Contains(o.err, "td run: pass 1 of 1: sh was killed by signal 15 and wrote no td report\n")) << o.err;
  const Outcome exited = Td({"run", "--passes", "1", "--", "sh", "-c", "exit 7"});
  EXPECT_EQ(exited.status, 7) << exited.err;
}

TEST(CliRun, ASignalSentToTdRunEndsTheProgramAndLeavesNoScratchFolder) {
  // Before: the program ran on and a td-run-* folder stayed in TMPDIR.
  for (const int signal_number : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(signal_number);
    const std::string dir = ScratchDir();
    const std::string script = absl::StrFormat(
        "TMPDIR=%1$s '%2$s' run --passes 2 -- sh -c 'echo $$ > %1$s/program.pid; exec sleep 60' 2>%1$s/err & "
        "td=$!; i=0; while [ ! -s %1$s/program.pid ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
        "kill -%3$d $td; wait $td; echo $? > %1$s/status",
        dir, TD_CLI, signal_number);
    ASSERT_EQ(std::system(script.c_str()), 0);
    EXPECT_EQ(Slurp(dir + "/status"), std::to_string(128 + signal_number) + "\n") << Slurp(dir + "/err");
    const pid_t program = std::atoi(Slurp(dir + "/program.pid").c_str());
    ASSERT_GT(program, 0);
    EXPECT_NE(kill(program, 0), 0) << "the program was ended, not left running";
    for (const auto& entry : fs::directory_iterator(dir)) {
      EXPECT_NE(entry.path().filename().string().rfind("td-run-", 0), 0u) << entry.path() << " was left behind";
    }
    fs::remove_all(dir);
  }
}

TEST(CliRun, AutomaticOutputIsNamedLikeTheRuntimesFiles) {
  const std::string dir = ScratchDir();
  const Outcome o = Td({"run", "--passes", "1", TD_SCENARIO_APP, "nested"}, dir);
  ASSERT_EQ(o.status, 0) << o.err;
  std::vector<std::string> written;
  for (const auto& entry : fs::directory_iterator(dir)) written.push_back(entry.path().filename().string());
  ASSERT_EQ(written.size(), 1u) << "expected the recording alone in " << dir;
  EXPECT_TRUE(std::regex_match(written[0], std::regex("td-td_scenario_app-[0-9]+\\.json"))) << written[0];
  EXPECT_TRUE(Contains(o.err, "td run: wrote " + written[0] + " (")) << o.err;
  const nlohmann::json run = nlohmann::json::parse(Slurp(dir + "/" + written[0]), nullptr, false);
  ASSERT_FALSE(run.is_discarded());
  EXPECT_EQ("td-td_scenario_app-" + std::to_string(run["program"].value("pid", 0)) + ".json", written[0])
      << "the pid in the name is the program's";
  fs::remove_all(dir);
}

// `td report FILE --csv`'s value of (region, kind, name), or -1.
double CsvValue(const std::string& csv, const std::string& region, const std::string& kind, const std::string& name) {
  std::istringstream lines(csv);
  const std::string prefix = region + "," + kind + "," + name + ",";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size()));
  }
  return -1;
}

// Runs the scenario program's marker_cost scenario in `dir` with `env`
// ("NAME=value …") and returns the run file it wrote ("" if none); its
// stdout goes to dir/stdout.txt.
std::string RunMarkerCostScenario(const std::string& dir, const std::string& env,
                                  const std::string& scenario = "marker_cost") {
  const std::string command = "cd '" + dir + "' && env TD_OUTPUT=none " + env + " '" + TD_SCENARIO_APP + "' " +
                              scenario + " > stdout.txt 2> stderr.txt";
  if (std::system(command.c_str()) != 0) return "";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") return entry.path().string();
  }
  return "";
}

// td's own marker cost, measured at exit, is taken out of what regions
// report (TD_COMPENSATE, on by default); the file keeps raw values.
TEST(CliReport, TdsOwnMarkerCostIsTakenOut) {
  const std::string dir = ScratchDir();
  const std::string file = RunMarkerCostScenario(dir, "");
  ASSERT_FALSE(file.empty());
  const nlohmann::json run = nlohmann::json::parse(Slurp(file));
  ASSERT_TRUE(run.contains("marker_cost")) << "measured at exit";
  const nlohmann::json& cost = run["marker_cost"];
  EXPECT_EQ(cost["pairs"], 1400) << "seven rounds of 200";
  EXPECT_EQ(cost["inside"].size(), run["events"].size());
  const size_t task_clock = 1;  // the software group: page-faults, task-clock, …
  ASSERT_EQ(run["events"][task_clock]["name"], "task-clock");
  const double pair_cpu = cost["inside"][task_clock].get<double>() + cost["around"][task_clock].get<double>();
  EXPECT_GT(pair_cpu, 100) << "a pair's two reads cost more than 100 ns of CPU here: " << cost.dump();
  const std::string printed = Slurp(dir + "/stdout.txt");
  ASSERT_EQ(printed.rfind("work_cpu_ns ", 0), 0u) << printed;
  const double work_cpu = std::stod(printed.substr(std::string("work_cpu_ns ").size()));
  ASSERT_GT(work_cpu, 1e6) << "the work takes milliseconds";

  const Outcome compensated = Td({"report", file, "--csv"});
  ASSERT_EQ(compensated.status, 0) << compensated.err;
  const Outcome raw = Td({"report", file, "--csv"}, "", {"TD_COMPENSATE=0"});
  ASSERT_EQ(raw.status, 0) << raw.err;
  // CPU time (task-clock), which other processes on a busy machine do not
  // change: raw, "work" holds its 10,000 tick pairs; compensated, about the
  // work alone.
  const double work = CsvValue(compensated.out, "work", "count", "task-clock");
  const double work_raw = CsvValue(raw.out, "work", "count", "task-clock");
  EXPECT_GT(work_raw - work, 0.8 * 10000 * pair_cpu) << compensated.out << raw.out;
  EXPECT_NEAR(work, work_cpu, 0.25 * work_cpu) << "raw " << work_raw << "\n" << compensated.out;
  EXPECT_LT(CsvValue(compensated.out, "work", "time", "wall_inclusive_ns"),
            CsvValue(raw.out, "work", "time", "wall_inclusive_ns"));
  // An empty region keeps little of its raw task-clock (the reads' kernel
  // time). Timing-derived: on a machine busy with other work the pairs at the
  // start can cost more than the calibration's at exit, so the best of up to
  // three runs is checked.
  auto empty_keeps = [](const std::string& run_file) {
    const Outcome c = Td({"report", run_file, "--csv"});
    const Outcome r = Td({"report", run_file, "--csv"}, "", {"TD_COMPENSATE=0"});
    const double raw_cpu = CsvValue(r.out, "empty", "count", "task-clock");
    return raw_cpu > 0 ? CsvValue(c.out, "empty", "count", "task-clock") / raw_cpu : 1.0;
  };
  ASSERT_GT(CsvValue(raw.out, "empty", "count", "task-clock"), 0) << raw.out;
  double kept = empty_keeps(file);
  for (int retry = 0; retry < 2 && kept >= 0.25; ++retry) {
    const std::string again = ScratchDir();
    const std::string again_file = RunMarkerCostScenario(again, "");
    if (!again_file.empty()) kept = std::min(kept, empty_keeps(again_file));
    fs::remove_all(again);
  }
  EXPECT_LT(kept, 0.25) << compensated.out;
  EXPECT_LT(CsvValue(compensated.out, "empty", "time", "wall_inclusive_ns"),
            CsvValue(raw.out, "empty", "time", "wall_inclusive_ns"));
  EXPECT_EQ(CsvValue(compensated.out, "work/tick", "time", "calls"), 10000);
  const Outcome text = Td({"report", file});
  EXPECT_TRUE(Contains(text.out, "td's own cost taken out per marker pair: wall ")) << text.out;
  EXPECT_TRUE(Contains(text.out, "(measured over 1400 pairs at exit; TD_COMPENSATE=0 for raw values)")) << text.out;
  fs::remove_all(dir);
}

// TD_SAMPLE=10: the same run reads times and counts on one call in ten per
// region; calls stay exact, values are scaled to all calls, and only the
// pairs that were read are taken out as td's cost.
TEST(CliReport, SampledRunScalesToAllCallsAndTakesOutOnlyTheReadPairs) {
  const std::string dir = ScratchDir();
  const std::string file = RunMarkerCostScenario(dir, "TD_SAMPLE=10");
  ASSERT_FALSE(file.empty());
  const nlohmann::json run = nlohmann::json::parse(Slurp(file));
  EXPECT_EQ(run.value("sample_every", 0), 10);
  const std::string printed = Slurp(dir + "/stdout.txt");
  ASSERT_EQ(printed.rfind("work_cpu_ns ", 0), 0u) << printed;
  const double work_cpu = std::stod(printed.substr(std::string("work_cpu_ns ").size()));

  const Outcome compensated = Td({"report", file, "--csv"});
  ASSERT_EQ(compensated.status, 0) << compensated.err;
  const Outcome raw = Td({"report", file, "--csv"}, "", {"TD_COMPENSATE=0"});
  ASSERT_EQ(raw.status, 0) << raw.err;
  EXPECT_EQ(CsvValue(compensated.out, "work/tick", "time", "calls"), 10000) << "calls stay exact";
  EXPECT_EQ(CsvValue(compensated.out, "empty", "time", "calls"), 20000);
  // One tick pair in ten was read: the raw work holds about 1,000 pairs'
  // cost, not 10,000, and compensated it is about the work alone.
  const double work = CsvValue(compensated.out, "work", "count", "task-clock");
  EXPECT_NEAR(work, work_cpu, 0.25 * work_cpu) << "raw " << CsvValue(raw.out, "work", "count", "task-clock") << "\n"
                                               << compensated.out;
  // The empty region's scaled task-clock is mostly td's reads, taken out. A
  // read pair that follows unread ones costs more than the back-to-back
  // pairs of the calibration (measured: about a quarter stays, against
  // nearly none without sampling), so the bound is looser here.
  const double empty_cpu_raw = CsvValue(raw.out, "empty", "count", "task-clock");
  ASSERT_GT(empty_cpu_raw, 0) << raw.out;
  EXPECT_LT(CsvValue(compensated.out, "empty", "count", "task-clock"), 0.5 * empty_cpu_raw) << compensated.out;
  const Outcome text = Td({"report", file});
  EXPECT_TRUE(Contains(text.out, "sampled (TD_SAMPLE=10): times and counts read on 1 call in 10 per region and "
                                 "thread ("))
      << text.out;
  fs::remove_all(dir);
}

// td_region_sample: one region read on one call in ten, the others on every
// call; the file says which, compensation and reports follow it.
TEST(CliReport, RegionSampledFromTheApiScalesThatRegionOnly) {
  const std::string dir = ScratchDir();
  const std::string file = RunMarkerCostScenario(dir, "", "marker_cost_tick_sampled");
  ASSERT_FALSE(file.empty());
  const nlohmann::json run = nlohmann::json::parse(Slurp(file));
  EXPECT_FALSE(run.contains("sample_every")) << "TD_SAMPLE was not set";
  int tick_every = 0, empty_every = 0;
  for (const auto& region : run["regions"]) {
    if (region["path"] == "work/tick") tick_every = region.value("sample_every", 0);
    if (region["path"] == "empty") empty_every = region.value("sample_every", 0);
  }
  EXPECT_EQ(tick_every, 10);
  EXPECT_EQ(empty_every, 0) << "the run's interval (every call)";
  EXPECT_TRUE(Contains(Slurp(dir + "/stderr.txt"),
                       "td_region_sample(\"tick\", 5) after the region's first BEGIN: ignored"))
      << Slurp(dir + "/stderr.txt");
  const std::string printed = Slurp(dir + "/stdout.txt");
  ASSERT_EQ(printed.rfind("work_cpu_ns ", 0), 0u) << printed;
  const double work_cpu = std::stod(printed.substr(std::string("work_cpu_ns ").size()));
  const Outcome compensated = Td({"report", file, "--csv"});
  ASSERT_EQ(compensated.status, 0) << compensated.err;
  EXPECT_EQ(CsvValue(compensated.out, "work/tick", "time", "calls"), 10000) << "calls stay exact";
  EXPECT_EQ(CsvValue(compensated.out, "empty", "time", "calls"), 20000);
  const double work = CsvValue(compensated.out, "work", "count", "task-clock");
  EXPECT_NEAR(work, work_cpu, 0.25 * work_cpu) << compensated.out;
  const Outcome text = Td({"report", file});
  EXPECT_TRUE(Contains(text.out, "sampled (td_region_sample: tick 1 in 10): times and counts read on those calls "
                                 "per thread (1,000 of 10,000 calls of these regions)"))
      << text.out;
  fs::remove_all(dir);
}

// Counts up to 2^64 − 1 are valid in a recording; every output converts
// them without overflow (under UBSan an unchecked double -> integer cast of
// 2^64 aborts the tool).
TEST(CliFiles, CountsAtTheTopOfTheRangeCompareAndRender) {
  nlohmann::json run = nlohmann::json::parse(Slurp(Data("nopmu_matmul.json")));
  run["regions"][0]["threads"][0]["counters"]["page-faults"]["inclusive"] = 18446744073709551615ull;
  const std::string dir = ScratchDir();
  const std::string file = dir + "/huge.json";
  std::ofstream(file) << run.dump();
  const Outcome csv = Td({"compare", file, file, "--csv"});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_TRUE(Contains(csv.out, "18446744073709551615")) << csv.out;
  const Outcome html = Td({"compare", file, file, "--html", dir + "/c.html"});
  EXPECT_EQ(html.status, 0) << html.err;
  const Outcome report = Td({"report", file, "--html", dir + "/r.html"});
  EXPECT_EQ(report.status, 0) << report.err;
  EXPECT_TRUE(Contains(Slurp(dir + "/r.html"), "data-value=\"18446744073709551615\"")) << "the raw value, clamped";
  fs::remove_all(dir);
}

// One rank of a job, as a launcher would start it, writing into `dir`.
void RunRank(const std::string& dir, int rank, int size, const std::string& job) {
  const std::string command = "cd '" + dir + "' && env TD_OUTPUT=none OMPI_COMM_WORLD_RANK=" + std::to_string(rank) +
                              " OMPI_COMM_WORLD_SIZE=" + std::to_string(size) + " PMIX_NAMESPACE=" + job + " '" +
                              TD_SCENARIO_APP + "' rank_work";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

TEST(CliJob, ThreeRanksNameTheSlowestRankAndTheImbalance) {
  const std::string dir = ScratchDir();
  for (int rank = 0; rank < 3; ++rank) RunRank(dir, rank, 3, "j7");
  const Outcome text = Td({"report", dir});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "td job report: td_scenario_app, job j7, 3 ranks of 3")) << text.out;
  EXPECT_FALSE(Contains(text.out, "missing ranks")) << text.out;
  const Outcome json_out = Td({"report", "--json", dir});
  ASSERT_EQ(json_out.status, 0) << json_out.err;
  const nlohmann::json job = nlohmann::json::parse(json_out.out);
  EXPECT_EQ(job.at("ranks_present"), nlohmann::json({0, 1, 2}));
  std::map<std::string, nlohmann::json> regions;
  for (const auto& r : job.at("regions")) regions[r.at("path")] = r;
  ASSERT_EQ(regions.size(), 3u);
  EXPECT_EQ(regions.at("(program)").at("ranks").size(), 3u) << "every rank's whole run";
  const nlohmann::json& solve = regions.at("solve");
  EXPECT_EQ(solve.at("calls"), 9) << "3 calls on each of 3 ranks";
  // CPU work 1, 2 and 3 ms per call: in CPU time (task-clock) the spread is
  // max / mean = 3 / 2 and rank 2 the slowest. Wall time follows it on a quiet
  // machine only (the ranks run one after the other here, and parallel tests
  // preempt them), so the wall-based figures are checked for consistency.
  const nlohmann::json& task = solve.at("task_clock_ns");
  EXPECT_EQ(task.at("max_rank"), 2);
  EXPECT_NEAR(task.at("max").get<double>() / task.at("mean").get<double>(), 1.5, 0.2);
  EXPECT_EQ(solve.at("slowest_rank"), solve.at("wall_ns").at("max_rank"));
  EXPECT_DOUBLE_EQ(solve.at("imbalance").get<double>(),
                   solve.at("wall_ns").at("max").get<double>() / solve.at("wall_ns").at("mean").get<double>());
  const nlohmann::json& halo = regions.at("halo");
  EXPECT_EQ(halo.at("ranks").size(), 2u) << "rank 0 never ran it";
  EXPECT_EQ(halo.at("calls"), 6);

  const Outcome csv = Td({"report", "--csv", dir});
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(Lines(csv.out), 1u + 3 + 1 + 3 + 1 + 2 + 1) << "per rank rows, then an `all` row, per region:\n" << csv.out;
  EXPECT_TRUE(Contains(csv.out, "\nsolve,all,9,")) << csv.out;
  fs::remove_all(dir);
}

// Two jobs of the same program (3 ranks, then 2): per region, each job's
// ranks and mean wall time, and a speedup that is their ratio.
TEST(CliJob, TwoJobsCompareRegionByRegion) {
  const std::string a = ScratchDir();
  const std::string b = ScratchDir();
  for (int rank = 0; rank < 3; ++rank) RunRank(a, rank, 3, "ja");
  for (int rank = 0; rank < 2; ++rank) RunRank(b, rank, 2, "jb");
  const Outcome text = Td({"compare", a, b});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "A: td_scenario_app, job ja, 3 ranks")) << text.out;
  EXPECT_TRUE(Contains(text.out, "B: td_scenario_app, job jb, 2 ranks")) << text.out;
  const Outcome csv = Td({"compare", "--csv", a, b});
  ASSERT_EQ(csv.status, 0) << csv.err;
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream lines(csv.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line,
            "path,a_ranks,a_wall_mean_ns,a_wall_max_ns,a_imbalance,a_slowest_rank,"
            "b_ranks,b_wall_mean_ns,b_wall_max_ns,b_imbalance,b_slowest_rank,speedup,reference,"
            "a_useful_ns,b_useful_ns,a_parallel_efficiency,b_parallel_efficiency,computation_scalability,"
            "a_global_efficiency,b_global_efficiency,scaling,instruction_scalability,ipc_scalability,"
            "frequency_scalability,a_ipc,b_ipc");
  while (std::getline(lines, line)) {
    std::vector<std::string> fields = absl::StrSplit(line, ',');
    ASSERT_EQ(fields.size(), 26u) << line;
    EXPECT_EQ(fields[20], "strong") << line;
    EXPECT_EQ(fields[12], "b") << "B has fewer ranks: the reference";
    EXPECT_EQ(fields[17], "") << "no MPI times (no libtd-mpi): no scalability";
    rows[fields[0]] = fields;
  }
  ASSERT_EQ(rows.size(), 3u) << "(program), solve, halo:\n" << csv.out;
  const std::vector<std::string>& solve = rows.at("solve");
  EXPECT_EQ(solve[1], "3");
  EXPECT_EQ(solve[6], "2");
  EXPECT_NEAR(std::stod(solve[11]), std::stod(solve[2]) / std::stod(solve[7]), 1e-3);
  EXPECT_EQ(rows.at("halo")[1], "2") << "rank 0 never runs halo";
  EXPECT_EQ(rows.at("halo")[6], "1");
  const Outcome html = Td({"compare", "--html", a + "/x.html", a, b});
  EXPECT_EQ(html.status, 2) << html.err;
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(CliJob, MissingRanksAreListedAndMixedJobsRefused) {
  const std::string dir = ScratchDir();
  RunRank(dir, 0, 4, "j8");
  RunRank(dir, 2, 4, "j8");
  const Outcome partial = Td({"report", dir});
  ASSERT_EQ(partial.status, 0) << partial.err;
  EXPECT_TRUE(Contains(partial.out, "2 ranks of 4")) << partial.out;
  EXPECT_TRUE(Contains(partial.out, "missing ranks (no file given for them): 1, 3")) << partial.out;

  RunRank(dir, 1, 4, "other");
  const Outcome mixed = Td({"report", dir});
  EXPECT_EQ(mixed.status, 1);
  EXPECT_EQ(Lines(mixed.err), 1u) << mixed.err;
  EXPECT_TRUE(Contains(mixed.err, "job \"other\"")) << mixed.err;
  fs::remove_all(dir);
}


// The analysis commands on the files in tests/data: the values a reader of
// the docs sees (docs/usage.md, docs/reports.md), through each output.

// Each line of `text`, without its newline.
std::vector<std::string> LinesOf(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// A line of a text table as its whitespace-separated words: label, then cells.
std::vector<std::string> Words(const std::string& line) {
  return absl::StrSplit(line, ' ', absl::SkipEmpty());
}

// Where in `lines` the first line with these words is, from `from`; npos when none.
size_t FindRow(const std::vector<std::string>& lines, const std::vector<std::string>& words, size_t from = 0) {
  for (size_t i = from; i < lines.size(); ++i) {
    if (Words(lines[i]) == words) return i;
  }
  return std::string::npos;
}

// Every JSON object anywhere in `j` (itself included) that `match` accepts.
void CollectObjects(const nlohmann::json& j, const std::function<bool(const nlohmann::json&)>& match,
                    std::vector<nlohmann::json>* found) {
  if (j.is_object() && match(j)) found->push_back(j);
  if (j.is_structured()) {
    for (const auto& child : j) CollectObjects(child, match, found);
  }
}

TEST(CliRecompute, IceLakeCaseRetiresAThirdOfTheSlots) {
  const Outcome o = Td({"recompute", Data("icl_case.json")});
  ASSERT_EQ(o.status, 0) << o.err;
  const nlohmann::json answers = nlohmann::json::parse(o.out);
  EXPECT_EQ(answers.at("case"), "example-icl");
  ASSERT_TRUE(answers.at("values").at("Retiring").is_number()) << o.out;
  EXPECT_EQ(answers.at("values").at("Retiring").get<double>(), 0.3) << "300,000 of 1,000,000 slots";
}

TEST(CliRecompute, ACaseWithoutItsFieldsFails) {
  const Outcome o = Td({"recompute", Data("not_a_case.json")});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(Lines(o.err), 1u) << o.err;
  EXPECT_TRUE(Contains(o.err, "not_a_case.json: ")) << o.err;
}

// Skylake's tree follows TMA 5.01, where DRAM_Bound is L3_Miss_Bound; the
// recording (made with perf 6.12's events) gets it from the older formula.
TEST(CliReport, JsonMarksDramBoundCritical) {
  const Outcome o = Td({"report", Data("replay_skl_matmul.json"), "--json"});
  ASSERT_EQ(o.status, 0) << o.err;
  const nlohmann::json report = nlohmann::json::parse(o.out);
  std::vector<nlohmann::json> dram;
  CollectObjects(report, [](const nlohmann::json& node) {
    return node.contains("name") && node.at("name") == "Backend_Bound.Memory_Bound.L3_Miss_Bound";
  }, &dram);
  ASSERT_FALSE(dram.empty()) << o.out;
  EXPECT_TRUE(std::any_of(dram.begin(), dram.end(), [](const nlohmann::json& node) {
    return node.contains("critical") && node.at("critical") == true &&
           node.at("formerly") == nlohmann::json::array({"Backend_Bound.Memory_Bound.DRAM_Bound"}) &&
           node.at("formula_version") == "4.8 (perf 6.12)";
  })) << "no L3_Miss_Bound (formerly DRAM_Bound) node on the critical path:\n" << o.out;
}

TEST(CliReport, ExplainSaysWhatDramBoundMeans) {
  const Outcome o = Td({"report", Data("replay_skl_matmul.json"), "--explain"});
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<std::string> lines = LinesOf(o.out);
  const auto title = std::find(lines.begin() + (lines.empty() ? 0 : 1), lines.end(), "L3_Miss_Bound");
  ASSERT_NE(title, lines.end()) << o.out;
  ASSERT_NE(title + 1, lines.end()) << o.out;
  EXPECT_EQ(*(title + 1), "  Cycles loads waited for data from beyond the local L3 cache: memory, another socket or CXL "
                          "memory (TMA's new name for DRAM_Bound).") << o.out;
}

TEST(CliReport, CsvRowsPerRegion) {
  const Outcome o = Td({"report", Data("replay_skl_matmul.json"), "--csv"});
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<std::string> lines = LinesOf(o.out);
  ASSERT_GE(lines.size(), 2u) << o.out;
  EXPECT_EQ(lines[0], "region,kind,name,value,flagged,critical");
  EXPECT_EQ(lines[1], "multiply1,time,calls,1,0,0");
  // A node's row: its share, flagged and on the critical path.
  auto node_row = [&](const std::string& region, const std::string& node, size_t from) {
    for (size_t i = from; i < lines.size(); ++i) {
      const std::vector<std::string> fields = absl::StrSplit(lines[i], ',');
      if (fields.size() == 6 && fields[0] == region && fields[1] == "node" && fields[2] == node) return i;
    }
    return std::string::npos;
  };
  const size_t memory = node_row("multiply1", "Backend_Bound.Memory_Bound", 2);
  ASSERT_NE(memory, std::string::npos) << o.out;
  // The recording has perf 6.12's events: TMA 5.01's Skylake formulas need
  // more, so the older ones give the value, and a row after the node says so.
  ASSERT_LT(memory + 1, lines.size());
  EXPECT_EQ(lines[memory + 1], "multiply1,node_note,Backend_Bound.Memory_Bound,formula of TMA 4.8 (perf 6.12),0,0");
  const Outcome text = Td({"report", Data("replay_skl_matmul.json")});
  EXPECT_TRUE(Contains(text.out, "\n  older formulas, TMA 4.8 (perf 6.12), where this recording lacks the current ones' "
                                 "events: Frontend_Bound, Bad_Speculation, Retiring, Backend_Bound, Memory_Bound, "
                                 "L3_Miss_Bound, Core_Bound\n")) << text.out;
  const size_t core = node_row("multiply2", "Backend_Bound.Core_Bound", memory + 1);
  ASSERT_NE(core, std::string::npos) << o.out;
  for (const auto& [row, share] : {std::pair{memory, std::string("0.63")}, std::pair{core, std::string("0.41")}}) {
    const std::vector<std::string> fields = absl::StrSplit(lines[row], ',');
    EXPECT_EQ(fields[3].rfind(share, 0), 0u) << lines[row];
    EXPECT_EQ(fields[3].find_first_not_of("0123456789", 2), std::string::npos) << lines[row];
    EXPECT_EQ(fields[4], "1") << "flagged: " << lines[row];
    EXPECT_EQ(fields[5], "1") << "critical: " << lines[row];
  }
}

// Two runs of one program with other arguments, hosts or days are told apart
// by the report's header.
TEST(CliReport, TheHeaderSaysWhatTheRunWas) {
  // The second and third lines of the text report of a recording in tests/data.
  const auto identity = [](const std::string& file) {
    const Outcome o = Td({"report", Data(file)});
    EXPECT_EQ(o.status, 0) << o.err;
    const std::vector<std::string> lines = LinesOf(o.out);
    return lines.size() < 3 ? std::vector<std::string>() : std::vector<std::string>{lines[1], lines[2]};
  };
  // A constructed recording has no start; a run without hardware counts no key.
  EXPECT_EQ(identity("replay_skl_matmul.json"),
            (std::vector<std::string>{"command: ./td_matmul 1024", "on lab-skylake; td 0.1.0; key skl, TMA 5.01"}));
  EXPECT_EQ(identity("nopmu_matmul.json"), (std::vector<std::string>{"command: build/samples/td_matmul 200",
                                                                     "started 2026-11-23 14:13:13 UTC on vm; td 0.1.0"}));
  const Outcome page = Td({"report", Data("nopmu_matmul.json"), "--html", "/dev/stdout"});
  EXPECT_TRUE(Contains(page.out, "<p class=\"identity\">command: build/samples/td_matmul 200<br>started "
                                 "2026-11-23 14:13:13 UTC on vm; td 0.1.0</p>"))
      << "the page says the same";
}

TEST(CliCompare, TwoRegionsOfOneRun) {
  const Outcome o = Td({"compare", Data("replay_skl_matmul.json"), "--regions", "multiply1,multiply2"});
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<std::string> lines = LinesOf(o.out);
  const size_t speedup = FindRow(lines, {"Speedup", "1.00", "2.49"});
  ASSERT_NE(speedup, std::string::npos) << o.out;
  ASSERT_LT(speedup + 1, lines.size()) << o.out;
  EXPECT_EQ(Words(lines[speedup + 1]), (std::vector<std::string>{"IPC", "0.50", "1.25"})) << o.out;
  EXPECT_NE(FindRow(lines, {"Memory_Bound", "63.8%!", "6.6%"}, speedup + 2), std::string::npos) << o.out;
}

TEST(CliCompare, UnknownRegionFails) {
  const Outcome o = Td({"compare", Data("replay_skl_matmul.json"), "--regions", "multiply1,nope"});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(Lines(o.err), 1u) << o.err;
  EXPECT_TRUE(Contains(o.err, "no region \"nope\"")) << o.err;
}

TEST(CliCompare, TwoRunsAsCsv) {
  const Outcome o = Td({"compare", Data("replay_skl_matmul.json"), Data("replay_skl_matmul.json"), "--region",
                        "multiply2", "--csv"});
  ASSERT_EQ(o.status, 0) << o.err;
  const std::vector<std::string> lines = LinesOf(o.out);
  ASSERT_GE(lines.size(), 3u) << o.out;
  EXPECT_EQ(lines[0], "row,replay_skl_matmul.json,replay_skl_matmul.json");
  EXPECT_EQ(lines[1], "Speedup,1.00,1.00");
  EXPECT_EQ(lines[2], "IPC,1.25,1.25");
}

TEST(CliCompare, HtmlFlagsMemoryBound) {
  const std::string dir = ScratchDir();
  const std::string page = dir + "/compare.html";
  const Outcome o =
      Td({"compare", Data("replay_skl_matmul.json"), "--regions", "multiply1,multiply2", "--html", page});
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, "");
  const std::string wrote = "td: wrote " + page + "\n";
  ASSERT_GE(o.err.size(), wrote.size()) << o.err;
  EXPECT_EQ(o.err.substr(o.err.size() - wrote.size()), wrote);
  const std::string html = Slurp(page);
  const std::string cell = "<td class=\"flagged\">63.8%!</td>";
  size_t cells = 0;
  for (size_t at = html.find(cell); at != std::string::npos; at = html.find(cell, at + 1)) ++cells;
  EXPECT_EQ(cells, 1u) << html;
  fs::remove_all(dir);
}

}  // namespace

// td import-metrics: perf's JSON for a CPU td does not ship, into a
// definition file td loads; and one line for each input it cannot use.
TEST(CliImportMetrics, SierraForestBecomesADefinitionFile) {
  const std::string srf = Data("perf-metrics/x86/sierraforest");
  const Outcome o = Td({"import-metrics", "--uarch", "srf", "--cpu", "GenuineIntel:6:175", "--kernel", "6.12.117", srf});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, "td import-metrics: srf: 26 nodes (Levels 1-3), 0 auxiliaries, 25 events, 0 not translated; "
                   "kernel 6.12.117\n");
  const nlohmann::json def = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(def.is_discarded()) << o.out.substr(0, 200);
  EXPECT_EQ(def["nodes"].size(), 26u);
  EXPECT_EQ(def["uarchs"]["srf"]["cpus"][0]["models"][0], 175);
  EXPECT_EQ(def["source"]["kernel"], "6.12.117");
  EXPECT_EQ(def["source"]["files"].size(), 8u);  // the metrics file and seven event files, each with its sha256
  // --out writes the same file; a hybrid file names its PMUs.
  const std::string dir = ScratchDir();
  const Outcome out = Td({"import-metrics", "--uarch=srf", "--kernel=6.12.117", "--cpu=GenuineIntel:6:0xaf",
                          "--out", dir + "/srf.json", srf});
  EXPECT_EQ(out.status, 0) << out.err;
  EXPECT_EQ(out.out, "");
  EXPECT_EQ(Slurp(dir + "/srf.json"), o.out);
  fs::remove_all(dir);
  const Outcome hybrid = Td({"import-metrics", "--uarch", "adl_x", Data("perf-metrics/x86/alderlake")});
  EXPECT_EQ(hybrid.status, 1);
  EXPECT_EQ(hybrid.err, "td: the metrics are those of several PMUs (cpu_atom, cpu_core); choose one with --pmu\n");
  const Outcome help = Td({"help", "import-metrics"});
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.out.rfind("usage: td import-metrics --uarch KEY", 0), 0u) << help.out;
}

// Arm: a core's metrics file over sbsa.json, with --slots and the MIDR's part;
// the same file td ships as neoverse_v3 (scripts/regenerate_arm.sh).
TEST(CliImportMetrics, ArmFilesWithSlotsAndAPart) {
  const std::string v3 = Data("perf-metrics/arm64/arm/neoverse-v3/metrics.json");
  const std::string sbsa = Data("perf-metrics/arm64/sbsa.json");
  const Outcome o = Td({"import-metrics", "--uarch", "v3_perf", "--cpu", "0x41:0xd84", "--slots", "10", "--kernel", "6.12.117",
                        v3, sbsa});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, "td import-metrics: v3_perf: 4 nodes (Levels 1-1), 0 auxiliaries, 7 events, 0 not translated; "
                   "kernel 6.12.117\n");
  const nlohmann::json def = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(def.is_discarded()) << o.out.substr(0, 200);
  EXPECT_EQ(def["uarchs"]["v3_perf"]["cpus"][0]["part"], 0xd84);
  EXPECT_EQ(def["uarchs"]["v3_perf"]["constants"]["Pipeline_Width"], 10);
  const Outcome bad = Td({"import-metrics", "--uarch", "v3_perf", "--slots", "ten", v3, sbsa});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(Lines(bad.err), 1u);
}

// --extend: the nodes td's own skx lacks, as td's depth file holds them.
TEST(CliImportMetrics, ExtendWritesTheDeeperNodesOfOneOfTdsKeys) {
  const Outcome o = Td({"import-metrics", "--extend", "--uarch", "skx", "--kernel", "6.12.117",
                        Data("perf-metrics/x86/skylakex")});
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.err, "td import-metrics: skx: 65 more nodes (Levels 3-6), 6 auxiliaries, 59 events, 0 not translated; "
                   "kernel 6.12.117\n");
  const nlohmann::json def = nlohmann::json::parse(o.out, nullptr, false);
  ASSERT_FALSE(def.is_discarded()) << o.out.substr(0, 200);
  EXPECT_EQ(def["source"]["extends"], "skx");
  EXPECT_EQ(def["family"], "skx_depth_from_perf");
  std::set<std::string> names;
  for (const auto& n : def["nodes"]) names.insert(n["name"].get<std::string>());
  EXPECT_TRUE(names.count("Frontend_Bound.Fetch_Latency.Branch_Resteers.Mispredicts_Resteers"));
  EXPECT_TRUE(names.count("Backend_Bound.Core_Bound.Ports_Utilization.Ports_Utilized_3m.ALU_Op_Utilization.Port_6"));
  EXPECT_FALSE(names.count("Backend_Bound.Memory_Bound.DRAM_Bound")) << "td's own node";
  Outcome bad = Td({"import-metrics", "--extend", "--uarch", "srf_perf", Data("perf-metrics/x86/sierraforest")});
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err, "td: --extend adds to one of td's own keys; srf_perf is not one\n");
  bad = Td({"import-metrics", "--extend", "--uarch", "skx", "--cpu", "GenuineIntel:6:85", Data("perf-metrics/x86/skylakex")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(Lines(bad.err), 1u);
}

TEST(CliImportMetrics, InputsItCannotUseAreOneLine) {
  const std::string missing = "/nonexistent-td-test/srf-metrics.json";
  Outcome o = Td({"import-metrics", "--uarch", "srf", missing});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err, "td: cannot open " + missing + ": " + std::strerror(ENOENT) + "\n");
  const std::string not_metrics = Data("not_a_case.json");
  o = Td({"import-metrics", "--uarch", "srf", not_metrics});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "td: " + not_metrics +
                       ": not a perf metrics or events file (a JSON list of MetricName or EventName entries)\n");
  o = Td({"import-metrics", "--uarch", "srf", Data("perf-metrics/x86/sierraforest/pipeline.json")});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(Lines(o.err), 1u);
  EXPECT_TRUE(Contains(o.err, "no perf metrics file among the inputs")) << o.err;
  o = Td({"import-metrics", "--uarch", "skx", Data("perf-metrics/x86/skylakex")});
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "td: --uarch skx is one of td's own keys (intel_snb_to_clx.json); choose another, e.g. skx_perf, or add the nodes td lacks with --extend\n");
  o = Td({"import-metrics", Data("perf-metrics/x86/sierraforest")});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(Lines(o.err), 1u);
  o = Td({"import-metrics", "--uarch", "srf", "--cpu", "Intel-6-175", Data("perf-metrics/x86/sierraforest")});
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(Lines(o.err), 1u);
}

// Two job files (tests/data: 2 and 4 ranks of tests/mpi/mpi_phases.c
// scaling, docs/hpc.md#scalability-between-two-rank-counts): the POP
// scalability against the job with fewer ranks, through the text, the CSV
// and the JSON; the values worked out from the files' rows by hand.
TEST(CliJob, CompareTwoJobFilesGivesTheirScalability) {
  const std::string two = Data("job_scaling_2ranks.json"), four = Data("job_scaling_4ranks.json");
  const Outcome json_out = Td({"compare", "--json", two, four});
  ASSERT_EQ(json_out.status, 0) << json_out.err;
  const nlohmann::json compare = nlohmann::json::parse(json_out.out);
  EXPECT_EQ(compare.at("reference"), "a");
  EXPECT_EQ(compare.at("a").at("ranks"), 2);
  EXPECT_EQ(compare.at("b").at("ranks"), 4);
  EXPECT_NEAR(compare.at("scalability").at("computation_scalability").get<double>(), 0.8957284568, 1e-9);
  const nlohmann::json& solve = compare.at("regions").at(1);
  ASSERT_EQ(solve.at("path"), "solve");
  EXPECT_EQ(solve.at("scalability").at("a_useful_ns"), 1495551547);
  EXPECT_EQ(solve.at("scalability").at("b_useful_ns"), 1730871150);
  EXPECT_NEAR(solve.at("scalability").at("computation_scalability").get<double>(), 0.8640455686, 1e-9);
  EXPECT_NEAR(solve.at("b").at("parallel_efficiency").get<double>(), 0.9009045305, 1e-9);
  EXPECT_NEAR(solve.at("scalability").at("b_global_efficiency").get<double>(), 0.7784225673, 1e-9);

  const Outcome csv = Td({"compare", "--csv", two, four});
  ASSERT_EQ(csv.status, 0) << csv.err;
  const std::vector<std::string> lines = LinesOf(csv.out);
  ASSERT_EQ(lines.size(), 3u) << csv.out;
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  const std::vector<std::string> row = absl::StrSplit(lines[2], ',');
  ASSERT_EQ(header.size(), row.size());
  std::map<std::string, std::string> field;
  for (size_t i = 0; i < header.size(); ++i) field[header[i]] = row[i];
  EXPECT_EQ(field["path"], "solve");
  EXPECT_EQ(field["reference"], "a");
  EXPECT_EQ(field["computation_scalability"], "0.8640");
  EXPECT_EQ(field["a_global_efficiency"], "0.9355");
  EXPECT_EQ(field["b_global_efficiency"], "0.7784");

  const Outcome text = Td({"compare", two, four});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "job ((program)): computation scalability 0.896, global efficiency A 0.954, B 0.818 "
                                  "(reference: A; strong scaling)"))
      << text.out;
  const std::vector<std::string> text_lines = LinesOf(text.out);
  EXPECT_NE(FindRow(text_lines, {"solve", "2", "4", "1.496", "s", "1.731", "s", "0.864", "0.936", "0.901", "0.936",
                                 "0.778"}),
            std::string::npos)
      << text.out;
  // Given the larger job first, the reference is B: the same scalability.
  const Outcome swapped = Td({"compare", "--json", four, two});
  ASSERT_EQ(swapped.status, 0) << swapped.err;
  const nlohmann::json other = nlohmann::json::parse(swapped.out);
  EXPECT_EQ(other.at("reference"), "b");
  EXPECT_NEAR(other.at("regions").at(1).at("scalability").at("computation_scalability").get<double>(), 0.8640455686,
              1e-9);
  // A job file and a directory holding the other job compare the same way.
  const std::string dir = ScratchDir();
  fs::copy_file(four, dir + "/td-prog-337051649-job.json");
  const Outcome mixed = Td({"compare", "--json", two, dir});
  ASSERT_EQ(mixed.status, 0) << mixed.err;
  EXPECT_EQ(nlohmann::json::parse(mixed.out), compare);
  fs::remove_all(dir);
  // --json is for jobs; two single runs are refused with it (exit 2), and
  // compare as before without it.
  const Outcome runs = Td({"compare", "--json", Data("nopmu_matmul.json"), Data("nopmu_matmul.json")});
  EXPECT_EQ(runs.status, 2) << runs.err;
  EXPECT_TRUE(Contains(runs.err, "--json compares two jobs")) << runs.err;
}

// The job view's heat map of the 4-rank job file: every cell holds its wall
// time, CPU time and MPI time and its step by each; the page opens on wall
// time unless --heat says otherwise.
TEST(CliJob, HtmlHeatMapHoldsAllThreeMetrics) {
  const std::string dir = ScratchDir();
  const std::string four = Data("job_scaling_4ranks.json");
  const Outcome page = Td({"report", four, "--html", dir + "/job.html"});
  ASSERT_EQ(page.status, 0) << page.err;
  const std::string html = Slurp(dir + "/job.html");
  EXPECT_TRUE(Contains(html, "<table class=\"heatmap\" data-metric=\"wall\">")) << "wall time by default";
  // solve on rank 3: 455.92 ms of wall time (95 % of rank 1's 480.31: step
  // 9), 293,295 ns of CPU (90 % of rank 0's 324,919: step 9), 20.20 ms in
  // MPI (4.4 %: step 0); rank 1 the slowest and the largest MPI share.
  EXPECT_TRUE(Contains(html, "<td class=\"cell h9\" data-ns=\"455922220\" data-c=\"293295\" "
                             "data-m=\"20199082\" data-h=\"990\"></td>"))
      << html;
  EXPECT_TRUE(Contains(html, "<td class=\"cell h9 slowest\" data-ns=\"480314809\" data-c=\"316472\" "
                             "data-m=\"48699701\" data-h=\"991\" data-t=\"wm\">&#9650;</td>"))
      << html;
  const Outcome by_mpi = Td({"report", four, "--html", dir + "/mpi.html", "--heat", "mpi"});
  ASSERT_EQ(by_mpi.status, 0) << by_mpi.err;
  const std::string mpi = Slurp(dir + "/mpi.html");
  EXPECT_TRUE(Contains(mpi, "data-metric=\"mpi\"")) << mpi;
  EXPECT_TRUE(Contains(mpi, "<td class=\"cell h1 slowest\" data-ns=\"480314809\"")) << mpi;
  EXPECT_EQ(Td({"report", four, "--html", dir + "/x.html", "--heat", "ipc"}).status, 2);
  EXPECT_EQ(Td({"report", four, "--heat", "cpu"}).status, 2) << "--heat is for the HTML page";
  fs::remove_all(dir);
}

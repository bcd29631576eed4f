// What td writes where, end to end: names that are byte strings (invalid
// UTF-8, '/', control bytes) survive into the JSON and back out of `td
// report`; TD_OUTPUT pointing at a device, FIFO or symlink is written into,
// never replaced; a file already at the JSON's name is never replaced.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/recorded/run_file.h"
#include "tests/scenarios/run_scenario.h"
#include "tests/support/build_paths.h"

namespace td::testing {
namespace {

namespace fs = std::filesystem;

// td's own JSON files in `dir` (not traces), by name.
std::vector<std::string> ReportFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("td-", 0) == 0 && name.find(".trace.") == std::string::npos && entry.path().extension() == ".json") {
      files.push_back(entry.path().string());
    }
  }
  return files;
}

const Region* FindByName(const RunData& run, const std::string& name) {
  for (const Region& r : run.regions) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

TEST(ByteStrings, InvalidUtf8NamesAndArgumentsKeepTheirBytesAndTheExitCode) {
  // Before: terminate called … type_error.316 invalid UTF-8 byte, exit 134.
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "odd_names 'caf\xe9.txt'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("terminate"), std::string::npos) << run.err;
  const std::vector<std::string> files = ReportFiles(run.dir);
  ASSERT_EQ(files.size(), 1u) << run.err;

  // The recording reads back into the same bytes.
  absl::StatusOr<RunData> data = ReadRunFile(files[0]);
  ASSERT_TRUE(data.ok()) << data.status();
  ASSERT_EQ(data->program.argv.size(), 3u);
  EXPECT_EQ(data->program.argv[2], "caf\xe9.txt");
  for (const char* name : {"\xff\xfe", "x\xc3", "a/b", "b/c", "\x1b[31mred\x1b[0m\a", "lit\\xe9\\",
                           "=HYPERLINK(\"http://x\")"}) {
    EXPECT_NE(FindByName(*data, name), nullptr) << "no region named " << name;
  }

  // The JSON holds them as readable text: invalid bytes as \xHH, a
  // backslash that would read as an escape doubled.
  const nlohmann::json& json = run.reports.at(0);
  EXPECT_EQ(json["program"]["argv"][2], "caf\\xe9.txt");
  std::vector<std::string> names;
  for (const auto& r : json["regions"]) names.push_back(r["name"].get<std::string>());
  EXPECT_NE(std::find(names.begin(), names.end(), "\\xff\\xfe"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "x\\xc3"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "lit\\\\xe9\\"), names.end());
}

TEST(ByteStrings, SlashInANameKeepsPathsApart) {
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "odd_names");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(run.reports.size(), 1u) << run.err;
  // "a/b" > "c" and "a" > "b/c" were both "a/b/c".
  const nlohmann::json* first = FindRegion(run.reports[0], "a\\x2fb/c");
  const nlohmann::json* second = FindRegion(run.reports[0], "a/b\\x2fc");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ((*first)["name"], "c");
  EXPECT_EQ((*second)["name"], "b/c");
  EXPECT_EQ(FindRegion(run.reports[0], "a/b/c"), nullptr);
  EXPECT_NE(FindRegion(run.reports[0], "\\x1b[31mred\\x1b[0m\\x07"), nullptr);

  // td compare --region takes the escaped path.
  const std::string file = ReportFiles(run.dir).at(0);
  int status = -1;
  const std::string out =
      Capture(std::string("'") + TD_CLI + "' compare '" + file + "' '" + file + "' --region 'a\\x2fb/c' 2>&1", &status);
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("region a\\x2fb/c of"), std::string::npos) << out;
}

TEST(ByteStrings, TextReportShowsControlBytesEscaped) {
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "odd_names");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The report (and every td line) on stderr: no raw ESC or BEL from a name.
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\a'), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\\x1b[31mred\\x1b[0m\\x07"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\\xff\\xfe"), std::string::npos) << run.err;

  // td report, text and CSV, from the recording.
  const std::string file = ReportFiles(run.dir).at(0);
  int status = -1;
  const std::string text = Capture(std::string("'") + TD_CLI + "' report '" + file + "' --no-color", &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1b[31mred"), std::string::npos) << text;
  const std::string csv = Capture(std::string("'") + TD_CLI + "' report '" + file + "' --csv", &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(csv.find('\x1b'), std::string::npos) << csv;
  // A would-be formula is neutralised with a leading quote; numbers are not.
  // (its path has the name's two slashes as \x2f).
  EXPECT_NE(csv.find("\n\"'=HYPERLINK(\"\"http:\\x2f\\x2fx\"\")\",time,calls,1,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\n=HYPERLINK"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\n\"=HYPERLINK"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\na\\x2fb/c,time,calls,1,"), std::string::npos) << csv;
}

TEST(ByteStrings, ProgramNameThatIsNotUtf8) {
  char dir[] = "/tmp/td-name-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string program = std::string(dir) + "/prog\xe9";
  ASSERT_EQ(symlink(TD_SCENARIO_APP.c_str(), program.c_str()), 0);
  const ScenarioRun run = RunScenario(program, "nested");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> files = ReportFiles(run.dir);
  ASSERT_EQ(files.size(), 1u) << run.err;
  EXPECT_NE(files[0].find("/td-prog_-"), std::string::npos) << files[0];
  absl::StatusOr<RunData> data = ReadRunFile(files[0]);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->program.name, "prog\xe9");
  EXPECT_EQ(run.reports.at(0)["program"]["name"], "prog\\xe9");
}

bool IsCharDevice(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// A null device of the test's own: a td that replaced devices must not take
// the machine's /dev/null with it when the test runs as root. Not root:
// /dev/null itself, which only root could replace. "" when neither.
std::string NullDevice() {
  if (geteuid() != 0) return "/dev/null";
  char pattern[] = "/tmp/td-dev-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return "";
  const std::string path = std::string(pattern) + "/null";
  return mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 ? path : "";
}

TEST(TdOutput, DevNullStaysADevice) {
  const std::string null_device = NullDevice();
  if (null_device.empty()) GTEST_SKIP() << "root without mknod: would risk the machine's /dev/null";
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "nested", {"TD_OUTPUT=" + null_device});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(IsCharDevice(null_device));
  EXPECT_EQ(run.err.find("td report:"), std::string::npos) << run.err;  // it went to /dev/null
  EXPECT_EQ(run.err.find("error"), std::string::npos) << run.err;
}

TEST(TdOutput, FifoWithAReaderReceivesTheReport) {
  char pattern[] = "/tmp/td-fifo-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string fifo = std::string(pattern) + "/report.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Opened before the program starts (non-blocking: no writer yet), read
  // until the writer has come and gone, at most a minute.
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::string received;
  std::thread drain([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    char buffer[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      const ssize_t n = read(reader, buffer, sizeof(buffer));
      if (n > 0) {
        received.append(buffer, static_cast<size_t>(n));
      } else if (n == 0 && !received.empty()) {
        break;  // the writer closed
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  });
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "nested", {"TD_OUTPUT=" + fifo});
  drain.join();
  close(reader);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(received.find("td report:"), std::string::npos) << run.err;
  EXPECT_NE(received.find("inner_a"), std::string::npos) << received;
  struct stat st {};
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(TdOutput, FifoWithoutAReaderNeitherHangsNorChangesTheExitCode) {
  char pattern[] = "/tmp/td-fifo-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string fifo = std::string(pattern) + "/report.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // `timeout` bounds it: a hang would read as exit status 124.
  const auto start = std::chrono::steady_clock::now();
  const ScenarioRun run =
      RunScenario("/usr/bin/timeout", std::string("60 '") + TD_SCENARIO_APP + "' nested", {"TD_OUTPUT=" + fifo});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("no process is reading"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("td report:"), std::string::npos) << run.err;  // nothing lost: on stderr
  struct stat st {};
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(TdOutput, SymlinkToAFileIsNeitherReplacedNorFollowed) {
  char pattern[] = "/tmp/td-link-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string target = std::string(pattern) + "/target.txt";
  const std::string link = std::string(pattern) + "/report.txt";
  std::ofstream(target) << "keep";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "nested", {"TD_OUTPUT=" + link});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  struct stat st {};
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(ReadFile(target), "keep");
  EXPECT_NE(run.err.find("is a symbolic link to a file"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("td report:"), std::string::npos) << run.err;  // nothing lost: on stderr
}

TEST(TdOutput, SymlinkToADeviceIsWrittenThrough) {
  char pattern[] = "/tmp/td-link-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string link = std::string(pattern) + "/report.txt";
  ASSERT_EQ(symlink("/dev/null", link.c_str()), 0);
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "nested", {"TD_OUTPUT=" + link});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  struct stat st {};
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_TRUE(IsCharDevice("/dev/null"));
  EXPECT_EQ(run.err.find("td report:"), std::string::npos) << run.err;
}

TEST(JsonName, AFileAlreadyThereIsLeftIntactAndTheRunLandsBeside) {
  // The app writes td-td_scenario_app-PID.json (and .trace.json) itself
  // before td does, as a process with the same pid in another pid namespace
  // sharing the folder would.
  const ScenarioRun run = RunScenario(TD_SCENARIO_APP, "pid_twin", {"TD_TRACE=1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string twin = "{\"twin\": \"not td's file from this run\"}\n";
  std::vector<std::string> twins, ours;
  for (const auto& entry : fs::directory_iterator(run.dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("td-", 0) != 0) continue;
    (ReadFile(entry.path().string()) == twin ? twins : ours).push_back(name);
  }
  ASSERT_EQ(twins.size(), 2u) << run.err;
  ASSERT_EQ(ours.size(), 2u) << run.err;
  std::sort(twins.begin(), twins.end());
  std::sort(ours.begin(), ours.end());
  // td-td_scenario_app-PID.json beside td-td_scenario_app-PID.1.json.
  const std::string stem = twins[0].substr(0, twins[0].size() - 5);
  EXPECT_EQ(ours[0], stem + ".1.json");
  EXPECT_EQ(ours[1], stem + ".1.trace.json");
  EXPECT_NE(run.err.find("td: wrote " + run.dir + "/" + stem + ".1.json"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(twins[0] + " already exists"), std::string::npos) << run.err;
  absl::StatusOr<RunData> data = ReadRunFile(run.dir + "/" + ours[0]);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_NE(FindByName(*data, "inner_a"), nullptr);
}

}  // namespace
}  // namespace td::testing

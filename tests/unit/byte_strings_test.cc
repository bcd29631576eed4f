// Names as byte strings (EscapeBytes, PathComponent, Printable), the JSON
// codec on names that are not UTF-8, CSV cells that look like formulas, and
// where WriteFileAtomically / WriteNewFile write and what they never replace.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/base/byte_strings.h"
#include "runtime/report/compare.h"
#include "runtime/report/csv_field.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/html_report.h"
#include "runtime/model/run_file.h"
#include "runtime/base/output_files.h"
#include "runtime/report/text_report.h"

namespace td {
namespace {

TEST(ByteStrings, ValidUtf8WithoutBackslashesIsKeptAsItIs) {
  for (const std::string s : {"", "outer", "caf\xc3\xa9", "\xe2\x80\x94 \xf0\x9f\x98\x80", "a/b", "x"}) {
    EXPECT_EQ(EscapeBytes(s), s);
  }
}

TEST(ByteStrings, InvalidBytesAreWrittenAsHex) {
  EXPECT_EQ(EscapeBytes("caf\xe9.txt"), "caf\\xe9.txt");
  EXPECT_EQ(EscapeBytes("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(EscapeBytes("x\xc3"), "x\\xc3");                  // lone lead byte
  EXPECT_EQ(EscapeBytes("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(EscapeBytes("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(EscapeBytes("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST(ByteStrings, OnlyBackslashesThatWouldReadAsEscapesAreDoubled) {
  EXPECT_EQ(EscapeBytes("C:\\dir\\file"), "C:\\dir\\file");
  EXPECT_EQ(EscapeBytes("\\xe9"), "\\\\xe9");       // the text \xe9, not the byte
  EXPECT_EQ(EscapeBytes("a\\\\b"), "a\\\\\\b");     // two backslashes: the first doubled
  EXPECT_EQ(EscapeBytes("\\\xe9"), "\\\\\\xe9");    // a backslash, then an invalid byte
  EXPECT_EQ(EscapeBytes("end\\"), "end\\");
}

TEST(ByteStrings, PathComponentsHaveNoSlashAndNoControlBytes) {
  EXPECT_EQ(PathComponent("a/b"), "a\\x2fb");
  EXPECT_EQ(PathComponent("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(PathComponent("copy[12]"), "copy[12]");
  EXPECT_EQ(PathComponent("\xc2\x9b"), "\\xc2\\x9b");  // C1 control (CSI)
  EXPECT_NE(PathComponent("a/b"), PathComponent("a\\x2fb"));
}

// Every string over an alphabet chosen to collide with the escapes, up to
// four characters, and random byte strings: the text is valid UTF-8 and
// reads back into the same bytes.
TEST(ByteStrings, EveryByteStringRoundTrips) {
  const std::string alphabet = std::string("\\x2fE9/A\x1b\xe9\xc3\xa9") + std::string(1, '\0');
  std::vector<std::string> cases = {""};
  for (int length = 1; length <= 4; ++length) {
    const size_t before = cases.size();
    for (size_t i = 0; i < before; ++i) {
      if (cases[i].size() != static_cast<size_t>(length - 1)) continue;
      for (char c : alphabet) cases.push_back(cases[i] + c);
    }
  }
  std::mt19937 random(42);
  for (int i = 0; i < 20000; ++i) {
    std::string s(random() % 16, '\0');
    for (char& c : s) c = static_cast<char>(random() % 4 == 0 ? '\\' : random() % 256);
    cases.push_back(s);
  }
  for (const std::string& s : cases) {
    const std::string text = EscapeBytes(s);
    ASSERT_TRUE(IsValidUtf8(text)) << text;
    ASSERT_EQ(UnescapeBytes(text), s) << text;
    const std::string component = PathComponent(s);
    ASSERT_TRUE(IsValidUtf8(component)) << component;
    ASSERT_EQ(component.find('/'), std::string::npos) << component;
    ASSERT_EQ(Printable(component), component);
    ASSERT_EQ(UnescapeBytes(component), s) << component;
    const std::string shown = Printable(s);
    ASSERT_TRUE(IsValidUtf8(shown));
    ASSERT_EQ(Printable(shown), shown);
  }
}

TEST(ByteStrings, PrintableEscapesControlsAndBadBytesOnly) {
  EXPECT_EQ(Printable("\x1b[2Jred\a"), "\\x1b[2Jred\\x07");
  EXPECT_EQ(Printable("caf\xe9 \\ caf\xc3\xa9"), "caf\\xe9 \\ caf\xc3\xa9");
  EXPECT_EQ(Printable("line\nnext\t"), "line\\x0anext\\x09");
}

TEST(ByteStrings, MakeJsonStringsValidLeavesNothingToThrowOn) {
  nlohmann::json j = {{"name", "\xff"}, {"list", {"ok", "x\xc3"}}, {"nested", {{"\xfe", 1}}}};
  MakeJsonStringsValid(&j);
  EXPECT_NO_THROW(j.dump());
  EXPECT_EQ(j["name"], "\\xff");
  EXPECT_EQ(j["list"][1], "x\\xc3");
  EXPECT_EQ(j["nested"]["\\xfe"], 1);
  nlohmann::json raw = {{"name", "\xff"}};
  EXPECT_EQ(DumpJson(raw), "{\"name\":\"\xef\xbf\xbd\"}");  // the last line of defence
}

RunData OddRun() {
  RunData data;
  data.td_version = "0.1.0";
  data.program = {"prog\xe9", 7, {"./prog\xe9", "caf\xe9.txt", "\\x41"}, 1, 2};
  data.machine.hostname = "host\xff";
  data.backend = "perf_event";
  data.layout = SoftwareLayout();
  data.availability.software_counters = true;
  data.threads = {{0, 100, false, true, ""}};
  Region top{"\xff\xfe", PathComponent("\xff\xfe"), -1, {1}, {}};
  RegionOnThread t{0, 1, 0, 0, 0, 1000, 500, {}, {}};
  t.events = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
  t.groups = {{1000, 1000}};
  top.threads.push_back(t);
  const std::string child_name = "a/b\x1b";
  Region child{child_name, top.path + "/" + PathComponent(child_name), 0, {}, {}};
  child.threads.push_back(t);
  data.regions = {top, child};
  data.diagnostics = {{Severity::kWarning, "TD_REGION_END(\"\xff\x1b[2J\") with no region open"}};
  return data;
}

TEST(JsonReport, NamesThatAreNotUtf8RoundTripExactly) {
  const RunData data = OddRun();
  const nlohmann::json j = RunToJson(data);
  std::string text;
  ASSERT_NO_THROW(text = j.dump(1));  // the strict dump: everything is valid UTF-8
  EXPECT_EQ(j["program"]["name"], "prog\\xe9");
  EXPECT_EQ(j["program"]["argv"][2], "\\\\x41");
  EXPECT_EQ(j["regions"][1]["path"], "\\xff\\xfe/a\\x2fb\\x1b");
  absl::StatusOr<RunData> back = RunFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->program.name, data.program.name);
  EXPECT_EQ(back->program.argv, data.program.argv);
  EXPECT_EQ(back->machine.hostname, data.machine.hostname);
  EXPECT_EQ(back->regions[0].name, "\xff\xfe");
  EXPECT_EQ(back->regions[1].name, "a/b\x1b");
  EXPECT_EQ(back->regions[1].path, data.regions[1].path);
  EXPECT_EQ(back->diagnostics[0].message, data.diagnostics[0].message);
  EXPECT_EQ(RunToJson(*back), j);
}

TEST(TextReport, ControlBytesInNamesAreEscaped) {
  const std::string text = FormatTextReport(OddRun());
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("a/b\\x1b"), std::string::npos) << text;
  EXPECT_NE(text.find("\\xff\\xfe"), std::string::npos) << text;
  EXPECT_NE(text.find("prog\\xe9"), std::string::npos) << text;
  EXPECT_TRUE(IsValidUtf8(text));
}

TEST(Csv, TextCellsThatLookLikeFormulasAreNeutralised) {
  EXPECT_EQ(CsvField("=1+2"), "'=1+2");
  EXPECT_EQ(CsvField("+cmd"), "'+cmd");
  EXPECT_EQ(CsvField("-x"), "'-x");
  EXPECT_EQ(CsvField("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvField("=HYPERLINK(\"a\",\"b\")"), "\"'=HYPERLINK(\"\"a\"\",\"\"b\"\")\"");
  EXPECT_EQ(CsvField("-0.5"), "-0.5");  // numbers stay numbers
  EXPECT_EQ(CsvField("+3"), "+3");
  EXPECT_EQ(CsvField("-1e-3"), "-1e-3");
  EXPECT_EQ(CsvField("outer/inner"), "outer/inner");
  EXPECT_EQ(CsvField("bell\a"), "bell\\x07");
}

TEST(Csv, ReportNeutralisesRegionsNamedLikeFormulas) {
  RunData data = OddRun();
  data.regions[0].name = "=cmd|'/C calc'!A0";
  data.regions[0].path = PathComponent(data.regions[0].name);
  const std::string csv = FormatCsvReport(data, nullptr);
  EXPECT_NE(csv.find("\n'=cmd|'\\x2fC calc'!A0,time,calls,1,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\n=cmd"), std::string::npos) << csv;
}

TEST(Csv, CompareNeutralisesLabelsRegionsAndRuns) {
  RunData run = OddRun();
  run.program.name = "@evil";
  run.regions[0].path = PathComponent("=r");
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counts";
  const std::vector<CompareColumn> columns = {MakeCompareColumn(run, 0, analysis, "+label\x1b")};
  const std::string csv = FormatComparison(columns, CompareFormat::kCsv);
  EXPECT_EQ(csv.rfind("row,'+label\\x1b\n", 0), 0u) << csv;
  EXPECT_NE(csv.find("\nregion,'=r\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nrun,'@evil (pid 7)\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nSpeedup,1.00\n"), std::string::npos) << csv;  // numbers as they were
  EXPECT_EQ(FormatComparison(columns, CompareFormat::kText).find('\x1b'), std::string::npos);
}

TEST(Html, NamesShowControlBytesAndBadUtf8Escaped) {
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counts";
  const std::string html = FormatHtmlReport(OddRun(), analysis);
  EXPECT_EQ(html.find('\x1b'), std::string::npos);
  EXPECT_TRUE(IsValidUtf8(html));
  EXPECT_NE(html.find("a/b\\x1b"), std::string::npos);
  EXPECT_NE(html.find("prog\\xe9"), std::string::npos);
}

std::string TempDir() {
  std::string pattern = "/tmp/td-bytes-test-XXXXXX";
  return mkdtemp(pattern.data());
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// As root, a null device of the test's own, so that a regression cannot
// replace the machine's /dev/null; otherwise /dev/null, which only root could.
TEST(OutputFiles, DevNullIsWrittenIntoNotReplaced) {
  std::string null_device = "/dev/null";
  if (geteuid() == 0) {
    null_device = TempDir() + "/null";
    if (mknod(null_device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "root without mknod";
  }
  ASSERT_TRUE(WriteFileAtomically(null_device, "report\n").ok());
  struct stat st {};
  ASSERT_EQ(lstat(null_device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(OutputFiles, FifoWithoutAReaderFailsAtOnce) {
  const std::string fifo = TempDir() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const absl::Status s = WriteFileAtomically(fifo, "report\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no process is reading"), std::string::npos) << s;
  struct stat st {};
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(OutputFiles, FifoReaderGetsEverything) {
  const std::string fifo = TempDir() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const std::string content(1 << 20, 'r');  // more than a pipe holds
  std::string received;
  std::thread drain([&] {
    char buffer[65536];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (received.size() < content.size() && std::chrono::steady_clock::now() < deadline) {
      const ssize_t n = read(reader, buffer, sizeof(buffer));
      if (n > 0) received.append(buffer, static_cast<size_t>(n));
      else std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const absl::Status s = WriteFileAtomically(fifo, content);
  drain.join();
  close(reader);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_EQ(received.size(), content.size());
}

TEST(OutputFiles, AReaderThatGoesAwayIsAnErrorNotASignal) {
  const std::string fifo = TempDir() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::thread quitter([&] {
    char buffer[16];
    for (int i = 0; i < 30000 && read(reader, buffer, sizeof(buffer)) <= 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    close(reader);  // after the first bytes: the writer meets EPIPE
  });
  const absl::Status s = WriteFileAtomically(fifo, std::string(4 << 20, 'q'));
  quitter.join();
  EXPECT_FALSE(s.ok());  // and this process is still here: no SIGPIPE
  EXPECT_NE(s.message().find("went away"), std::string::npos) << s;
}

TEST(OutputFiles, SymlinkToAFileIsRefusedAndKept) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/victim") << "keep";
  ASSERT_EQ(symlink((dir + "/victim").c_str(), (dir + "/out.txt").c_str()), 0);
  const absl::Status s = WriteFileAtomically(dir + "/out.txt", "report");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a symbolic link to a file"), std::string::npos) << s;
  struct stat st {};
  ASSERT_EQ(lstat((dir + "/out.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(Slurp(dir + "/victim"), "keep");
}

TEST(OutputFiles, SymlinkToADeviceIsWrittenThrough) {
  const std::string dir = TempDir();
  ASSERT_EQ(symlink("/dev/null", (dir + "/out.txt").c_str()), 0);
  EXPECT_TRUE(WriteFileAtomically(dir + "/out.txt", "report").ok());
  struct stat st {};
  ASSERT_EQ(lstat((dir + "/out.txt").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(OutputFiles, ADirectoryIsAnError) {
  const std::string dir = TempDir();
  const absl::Status s = WriteFileAtomically(dir, "report");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("is a directory"), std::string::npos) << s;
}

TEST(OutputFiles, RegularFilesAreStillReplacedAtomically) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/out.txt") << "old";
  ASSERT_TRUE(WriteFileAtomically(dir + "/out.txt", "new").ok());
  EXPECT_EQ(Slurp(dir + "/out.txt"), "new");
}

TEST(OutputFiles, NewFilesNeverReplaceOne) {
  const std::string dir = TempDir();
  std::ofstream(dir + "/td-app-7.json") << "twin";
  absl::StatusOr<std::string> first = WriteNewFile(dir, "td-app-7", ".json", "ours 1");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(*first, dir + "/td-app-7.1.json");
  absl::StatusOr<std::string> second = WriteNewFile(dir, "td-app-7", ".json", "ours 2");
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, dir + "/td-app-7.2.json");
  EXPECT_EQ(Slurp(dir + "/td-app-7.json"), "twin");
  EXPECT_EQ(Slurp(*first), "ours 1");
  EXPECT_EQ(Slurp(*second), "ours 2");
  absl::StatusOr<std::string> free_name = WriteNewFile(dir, "td-app-8", ".json", "x");
  ASSERT_TRUE(free_name.ok());
  EXPECT_EQ(*free_name, dir + "/td-app-8.json");
  // No temporary files are left behind.
  int files = 0;
  for (DIR* d = opendir(dir.c_str()); d != nullptr;) {
    dirent* e = readdir(d);
    if (e == nullptr) {
      closedir(d);
      break;
    }
    files += e->d_name[0] != '.' || std::string(e->d_name).find(".tmp.") != std::string::npos;
  }
  EXPECT_EQ(files, 4);
}

}  // namespace
}  // namespace td

// JSON round trip, text layout and file writing, on a constructed run.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "runtime/base/byte_strings.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/machine/machine_info.h"
#include "runtime/report/csv_report.h"
#include "absl/strings/str_cat.h"
#include "runtime/report/explanations.h"
#include "runtime/report/html_report.h"
#include "runtime/model/run_file.h"
#include "runtime/uarch/definitions.h"
#include "runtime/base/output_files.h"
#include "runtime/report/text_report.h"

namespace td {
namespace {

RunData TwoThreadRun() {
  RunData data;
  data.td_version = "0.1.0";
  data.program = {"app", 77, {"./app", "--n", "3"}, 1'000'000'000, 3'000'000'000};
  data.machine.cpu_vendor = "GenuineIntel";
  data.machine.cpu_model_name = "Test CPU";
  data.machine.cpu_family = 6;
  data.machine.cpu_model = 85;
  data.machine.logical_cpus = 8;
  data.backend = "perf_event";
  data.layout = SoftwareLayout();
  data.availability.software_counters = true;
  data.availability.hardware_reason = "no hardware PMU here";
  data.availability.hardware_errno = "ENOENT";
  data.availability.measured = "wall time, calls, task-clock";
  data.threads = {{0, 100, false, true, ""}, {1, 101, true, false, "EMFILE"}};
  Region outer{"outer", "outer", -1, {1}, {}};
  RegionOnThread t0{0, 2, 0, 0, 0, 2'000'000, 500'000, {}, {}};
  t0.events = {{10, 5}, {1'900'000, 400'000}, {1, 0}, {0, 0}};
  t0.groups = {{2'000'000, 2'000'000}};
  outer.threads.push_back(t0);
  RegionOnThread t1{1, 1, 0, 1, 0, 1'500'000, 1'500'000, {}, {}};
  outer.threads.push_back(t1);  // counters not measured on thread 1
  Region inner{"inner", "outer/inner", 0, {}, {}};
  RegionOnThread i0{0, 4, 3, 0, 0, 1'500'000, 1'500'000, {}, {}};
  i0.events = {{5, 5}, {1'500'000, 1'500'000}, {1, 1}, {0, 0}};
  i0.groups = {{1'500'000, 1'500'000}};
  inner.threads.push_back(i0);
  data.regions = {outer, inner};
  data.diagnostics = {{Severity::kWarning, "TD_REGION_END(\"x\") at a.c:3 ..."}};
  return data;
}

TEST(JsonReport, RoundTripsExactly) {
  const RunData data = TwoThreadRun();
  const nlohmann::json first = RunToJson(data);
  absl::StatusOr<RunData> back = RunFromJson(first);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(RunToJson(*back), first);
  EXPECT_EQ(back->regions[1].threads[0].events[1].inclusive, 1'500'000u);
  EXPECT_TRUE(back->regions[0].threads[1].events.empty());
  EXPECT_EQ(back->layout.words, data.layout.words);
}

// The runtime writes the file region by region (RunFileText); the bytes are
// those of the whole document dumped at once, with and without regions, and
// with names that are not UTF-8.
TEST(JsonReport, RunFileTextIsTheDumpedDocument) {
  RunData data = TwoThreadRun();
  EXPECT_EQ(RunFileText(data), DumpJson(RunToJson(data), 1) + "\n");
  data.regions[1].name = "in\xff\"ner";
  data.regions[1].path = "outer/in\xff\"ner";
  data.program.name = "regions\": []";
  EXPECT_EQ(RunFileText(data), DumpJson(RunToJson(data), 1) + "\n");
  data.regions.clear();
  EXPECT_EQ(RunFileText(data), DumpJson(RunToJson(data), 1) + "\n");
  EXPECT_NE(RunFileText(data).find("\"regions\": []"), std::string::npos);
  absl::StatusOr<RunData> read = RunFromJson(nlohmann::json::parse(RunFileText(TwoThreadRun())));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->regions.size(), 2u);
}

TEST(JsonReport, NotMeasuredIsNullNotZero) {
  const nlohmann::json j = RunToJson(TwoThreadRun());
  EXPECT_TRUE(j["regions"][0]["threads"][1]["counters"].is_null());
  EXPECT_EQ(j["regions"][0]["threads"][0]["counters"]["task-clock"]["exclusive"], 400'000);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["events"][0]["name"], "page-faults");
  EXPECT_EQ(j["events"][1]["group"], 0);
}

TEST(JsonReport, ErrorsNameTheField) {
  nlohmann::json j = RunToJson(TwoThreadRun());
  j["regions"][1]["threads"][0].erase("calls");
  auto missing = RunFromJson(j);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "regions[1].threads[0]: missing field \"calls\"");
  j = RunToJson(TwoThreadRun());
  j["schema_version"] = 99;
  auto version = RunFromJson(j);
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.status().message().find("schema_version 99"), std::string::npos);
}

TEST(TextReport, ShowsTreeThreadsAndNotMeasured) {
  const std::string text = FormatTextReport(TwoThreadRun());
  EXPECT_NE(text.find("hardware counters unavailable: no hardware PMU here"), std::string::npos);
  EXPECT_NE(text.find("└─ inner"), std::string::npos) << text;
  EXPECT_NE(text.find("· thread 1"), std::string::npos) << text;
  EXPECT_NE(text.find("recursive calls 3"), std::string::npos) << text;
  EXPECT_NE(text.find("unterminated ×1"), std::string::npos) << text;
  EXPECT_NE(text.find("thread 1: counters not measured: EMFILE"), std::string::npos) << text;
  EXPECT_NE(text.find("1 problem reported"), std::string::npos) << text;
  // outer: task-clock 1.90 ms over 2.00 ms wall -> 0.95 CPUs.
  EXPECT_NE(text.find("0.95"), std::string::npos) << text;
}

TEST(Explanations, EveryTreeNodeOfEveryUarchIsExplained) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  for (const std::string& uarch : library->Uarchs()) {
    auto set = library->ForUarch(uarch);
    ASSERT_TRUE(set.ok());
    for (const FormulaDefinition& node : set->nodes) {
      if (node.level > 0) EXPECT_NE(ExplanationFor(node.name), nullptr) << uarch << " " << node.name;
    }
  }
  for (const char* diagnosis : {"false_sharing", "stores_bound", "memory_bandwidth"}) {
    EXPECT_NE(ExplanationFor(diagnosis), nullptr) << diagnosis;
  }
  EXPECT_EQ(ExplanationFor("No_Such_Node"), nullptr);
}

TEST(CsvReport, RowsPerRegionAndNotMeasuredIsEmpty) {
  RunData data = TwoThreadRun();
  const std::string csv = FormatCsvReport(data, nullptr);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "region,kind,name,value,flagged,critical");
  EXPECT_NE(csv.find("outer,time,calls,3,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("outer,count,task-clock,1900000,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("outer/inner,scaled,page-faults,5,0,0\n"), std::string::npos) << csv;
  for (Region& r : data.regions) {
    for (RegionOnThread& t : r.threads) {
      t.events.clear();
      t.groups.clear();
    }
  }
  const std::string unmeasured = FormatCsvReport(data, nullptr);
  EXPECT_NE(unmeasured.find("outer,count,task-clock,,0,0\n"), std::string::npos) << unmeasured;
  EXPECT_NE(unmeasured.find("outer,scaled,task-clock,,0,0\n"), std::string::npos);
}

TEST(HtmlReport, SweepIsPlottedAgainstItsParameter) {
  RunData data = TwoThreadRun();
  data.regions.clear();
  for (long long block : {48, 16, 32}) {  // any order: the plot sorts by parameter
    Region r;
    r.name = absl::StrCat("block[", block, "]");
    r.path = r.name;
    r.base_name = "block";
    r.parameter = block;
    RegionOnThread t{0, 2, 0, 0, 0, block * 1000, block * 1000, {}, {}};
    r.threads.push_back(t);
    data.regions.push_back(r);
  }
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counters";
  const std::string html = FormatHtmlReport(data, analysis);
  EXPECT_NE(html.find("<svg class=\"sweep\" data-base=\"block\""), std::string::npos) << html;
  // wall per call: 16 µs × 1000 / 2 calls / 1000 = 8 µs, 16 µs, 24 µs, in parameter order.
  const size_t p16 = html.find("data-x=\"16\" data-y=\"8\"");
  const size_t p32 = html.find("data-x=\"32\" data-y=\"16\"");
  const size_t p48 = html.find("data-x=\"48\" data-y=\"24\"");
  ASSERT_NE(p16, std::string::npos) << html;
  ASSERT_NE(p32, std::string::npos);
  ASSERT_NE(p48, std::string::npos);
  EXPECT_LT(p16, p32);
  EXPECT_LT(p32, p48);
  // Without hardware counters the reason is said once, not again for Top-Down.
  EXPECT_NE(html.find("Top-Down: not available without hardware counters"), std::string::npos) << html;
  const size_t reason = html.find("no hardware PMU here");
  ASSERT_NE(reason, std::string::npos);
  EXPECT_EQ(html.find("no hardware PMU here", reason + 1), std::string::npos) << html;
  EXPECT_EQ(html.find("http"), std::string::npos) << "self-contained";
  EXPECT_EQ(HtmlEscape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
}

TEST(TextReport, Formatting) {
  EXPECT_EQ(HumanDuration(999), "999 ns");
  EXPECT_EQ(HumanDuration(12'345), "12.3 µs");
  EXPECT_EQ(HumanDuration(4'560'000), "4.56 ms");
  EXPECT_EQ(HumanDuration(1'234'000'000), "1.234 s");
  EXPECT_EQ(WithThousands(0), "0");
  EXPECT_EQ(WithThousands(1234567), "1,234,567");
  EXPECT_EQ(WithThousands(100), "100");
}

std::string TempDir() {
  std::string pattern = "/tmp/td-report-test-XXXXXX";
  return mkdtemp(pattern.data());
}

// A symlink to a file is neither followed nor replaced: an error, both kept.
TEST(OutputFiles, NeitherFollowsNorReplacesASymlinkToAFile) {
  const std::string dir = TempDir();
  const std::string victim = dir + "/victim";
  std::ofstream(victim) << "keep";
  ASSERT_EQ(symlink(victim.c_str(), (dir + "/out.json").c_str()), 0);
  EXPECT_FALSE(WriteFileAtomically(dir + "/out.json", "{}").ok());
  std::ifstream in(victim);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "keep");
  struct stat st {};
  ASSERT_EQ(lstat((dir + "/out.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(OutputFiles, UnwritableDirectoryIsAnError) {
  const absl::Status s = WriteFileAtomically("/nonexistent-dir/x.json", "{}");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent-dir/.x.json.tmp."), std::string::npos) << s;
}

TEST(OutputFiles, JsonFileNameIsSafe) {
  EXPECT_EQ(JsonFileName("my app/../x", 12), "td-my_app_.._x-12.json");
  EXPECT_EQ(JsonFileName("", 3), "td-program-3.json");
  EXPECT_EQ(JsonFileName(std::string(255, 'p'), 7), "td-" + std::string(128, 'p') + "-7.json")
      << "long names are cut so the temporary name still fits NAME_MAX";
}

TEST(MachineInfo, ParsesTheFirstProcessorOfCpuinfo) {
  MachineInfo info;
  ParseCpuinfo(
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
      "model name\t: Intel(R) Xeon(R) Platinum 8480+\nstepping\t: 8\n\nprocessor\t: 1\n"
      "model\t\t: 1\n",
      &info);
  EXPECT_EQ(info.cpu_vendor, "GenuineIntel");
  EXPECT_EQ(info.cpu_family, 6);
  EXPECT_EQ(info.cpu_model, 143);
  EXPECT_EQ(info.cpu_stepping, 8);
  EXPECT_EQ(info.cpu_model_name, "Intel(R) Xeon(R) Platinum 8480+");
}

}  // namespace
}  // namespace td

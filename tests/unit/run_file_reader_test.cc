// Hostile recorded-run files: every structural or cross-reference problem is
// one InvalidArgument error naming the file and the field; nothing crashes,
// recurses with the file's depth, or throws. Each case starts from a valid
// fixture, changes one thing with nlohmann and reads it back with ReadRunFile.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/perf_case.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/report/analysis_json.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/html_report.h"
#include "runtime/base/json_file.h"
#include "runtime/recorded/run_file.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/report/text_report.h"
#include "runtime/uarch/definitions.h"
#include "tests/support/build_paths.h"

namespace td {
namespace {

using nlohmann::json;

json Fixture(const std::string& name) {
  absl::StatusOr<json> j = ReadJsonFile(std::string(TD_TEST_DATA_DIR) + "/" + name);
  EXPECT_TRUE(j.ok()) << j.status();
  return j.ok() ? *j : json();
}

// replay_skl_matmul.json with multiply2 nested in multiply1, so the tree has
// a parent and a child to break.
json Nested() {
  json j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["children"] = {1};
  j["regions"][1]["parent"] = 0;
  j["regions"][1]["path"] = "multiply1/multiply2";
  return j;
}

class RunFileValidation : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (std::filesystem::temp_directory_path() / "td-run-validation-XXXXXX").string();
    ASSERT_NE(mkdtemp(dir_.data()), nullptr);
    path_ = dir_ + "/run.json";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  absl::StatusOr<RunData> Read(const json& j) { return ReadText(j.dump()); }
  absl::StatusOr<RunData> ReadText(const std::string& text) {
    std::ofstream(path_, std::ios::trunc) << text;
    return ReadRunFile(path_);
  }
  // The error for `j`: InvalidArgument, one line, "PATH: " then `expected`.
  void ExpectError(const json& j, const std::string& expected) {
    const absl::StatusOr<RunData> data = Read(j);
    ASSERT_FALSE(data.ok()) << "accepted; expected " << expected;
    EXPECT_EQ(data.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(data.status().message());
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind(path_ + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(RunFileValidation, FixturesAndTheNestedVariantAreAccepted) {
  for (const json& j : {Fixture("replay_skl_matmul.json"), Fixture("nopmu_matmul.json"), Nested()}) {
    const absl::StatusOr<RunData> data = Read(j);
    ASSERT_TRUE(data.ok()) << data.status();
  }
  const absl::StatusOr<RunData> nested = Read(Nested());
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->regions[1].parent, 0);
  EXPECT_EQ(nested->regions[0].children, std::vector<int>{1});
}

TEST_F(RunFileValidation, ChildIndexOutOfRangeOrNegative) {
  json j = Nested();
  j["regions"][0]["children"] = {999, -3};
  ExpectError(j, "regions[0].children[0] = 999 is not a region index");
  j["regions"][0]["children"] = {-3};
  ExpectError(j, "regions[0].children[0] = -3 is not a region index");
  j["regions"][0]["children"] = {"1"};
  ExpectError(j, "regions[0].children[0]: expected a region index, got string");
  j["regions"][0]["children"] = 1;
  ExpectError(j, "regions[0].children: expected a list, got number");
}

TEST_F(RunFileValidation, ParentAndChildrenMustAgree) {
  json j = Nested();
  j["regions"][0]["children"] = json::array();
  ExpectError(j, "regions[1].parent = 0, but regions[0].children does not list 1");
  j = Fixture("replay_skl_matmul.json");  // both top level
  j["regions"][0]["children"] = {1};
  ExpectError(j, "regions[0].children[0] = 1, but regions[1].parent is -1");
  j = Nested();
  j["regions"][0]["children"] = {1, 1};
  ExpectError(j, "regions[0].children[1] = 1 is listed twice");
  j = Nested();
  j["regions"][1]["parent"] = -7;
  ExpectError(j, "regions[1].parent = -7 is not an integer from -1 to");
  j = Nested();
  j["regions"][1]["path"] = "elsewhere/multiply2";
  ExpectError(j, "regions[1].path = \"elsewhere/multiply2\" is not its parent's path and one more name");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][1]["path"] = "multiply1";
  ExpectError(j, "regions[1].path = \"multiply1\" is also regions[0]'s");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][1]["index"] = 5;
  ExpectError(j, "regions[1].index = 5; it is region 1");
}

TEST_F(RunFileValidation, CycleIsRejected) {
  json j = Nested();
  j["regions"][0]["parent"] = 1;  // 0 → 1 → 0
  j["regions"][1]["children"] = {0};
  ExpectError(j, "regions[0].parent = 1 is not an earlier region");
  j = Nested();
  j["regions"][0]["children"] = {0};  // its own child
  ExpectError(j, "regions[0].children[0] = 0, but regions[0].parent is -1");
}

// A 20,000-deep parent chain as a fuzzer writes it (each path one name) is
// refused at its first inconsistent path, cheaply and without recursion. A
// consistent one is quadratic in size (each path holds its ancestors'), so
// the file read here is 2,000 deep, and the formatters get a 20,000-deep
// tree built in memory: none of them may recurse with the depth (under ASan
// that would overflow the stack), and text indentation stops growing.
json Chain(const json& fixture, int depth, bool consistent_paths) {
  json j = fixture;
  const json part = j["regions"][1]["threads"];
  json regions = json::array();
  std::string path;
  for (int r = 0; r < depth; ++r) {
    path = consistent_paths ? path + (r == 0 ? "" : "/") + "d" : "d" + std::to_string(r);
    regions.push_back({{"index", r},
                       {"name", "d"},
                       {"path", path},
                       {"parent", r - 1},
                       {"children", r + 1 < depth ? json::array({r + 1}) : json::array()},
                       {"threads", part}});
  }
  j["regions"] = std::move(regions);
  return j;
}

void FormatEverything(const RunData& data) {
  absl::StatusOr<DefinitionLibrary> library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const RunAnalysis analysis = AnalyzeRun(data, *library, "");
  TextReportOptions options;
  options.per_thread = true;
  const std::string text = FormatTextReport(data, &analysis, options);
  EXPECT_LT(text.size(), data.regions.size() * 600) << "labels grow with the depth";
  EXPECT_NE(text.find("└─ d"), std::string::npos);
  EXPECT_FALSE(FormatCsvReport(data, &analysis).empty());
  EXPECT_FALSE(FormatHtmlReport(data, analysis).empty());
  EXPECT_TRUE(RunAnalysisToJson(data, analysis).is_object());
  const std::vector<RegionInTree> order = RegionTreeOrder(data);
  ASSERT_EQ(order.size(), data.regions.size());
  EXPECT_EQ(order.back().depth, static_cast<int>(data.regions.size()) - 1);
}

TEST_F(RunFileValidation, DeepChainWithFuzzedPathsIsRefused) {
  ExpectError(Chain(Fixture("nopmu_matmul.json"), 20000, false),
              "regions[1].path = \"d1\" is not its parent's path and one more name");
}

TEST_F(RunFileValidation, DeepChainIsReadAndFormattedIteratively) {
  const absl::StatusOr<RunData> data = Read(Chain(Fixture("nopmu_matmul.json"), 2000, true));
  ASSERT_TRUE(data.ok()) << data.status();
  ASSERT_EQ(data->regions.size(), 2000u);
  FormatEverything(*data);

  RunData deep = *data;
  const Region leaf = deep.regions.back();
  for (int r = 2000; r < 20000; ++r) {
    deep.regions.back().children = {r};
    Region next = leaf;
    next.parent = r - 1;
    next.path = "d" + std::to_string(r);  // the formatters do not need consistent paths
    next.children.clear();
    deep.regions.push_back(std::move(next));
  }
  FormatEverything(deep);
}

TEST_F(RunFileValidation, WrongTypesNameTheField) {
  json j = Fixture("replay_skl_matmul.json");
  j["regions"] = "oops";
  ExpectError(j, "run.regions: expected a list, got string \"oops\"");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["calls"] = "12";
  ExpectError(j, "regions[0].threads[0].calls: expected an integer, got string \"12\"");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][1] = 7;
  ExpectError(j, "regions[1]: expected an object, got number 7");
  j = Fixture("replay_skl_matmul.json");
  j["program"] = json::array();
  ExpectError(j, "run.program: expected an object, got array");
  j = Fixture("replay_skl_matmul.json");
  j["program"]["argv"] = {"a", 3};
  ExpectError(j, "program.argv[1]: expected a string, got number 3");
  j = Fixture("replay_skl_matmul.json");
  j["threads"][0]["exited_before_finalize"] = 0;
  ExpectError(j, "threads[0].exited_before_finalize: expected true or false, got number 0");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["counters"] = "none";
  ExpectError(j, "regions[0].threads[0].counters: expected an object or null, got string");
  j = Fixture("replay_skl_matmul.json");
  j["events"] = json::object();
  ExpectError(j, "run.events: expected a list, got object");
  j = Fixture("replay_skl_matmul.json");
  j["machine"]["cpu"]["model"] = 2.5;
  ExpectError(j, "machine.cpu.model = 2.5 is not an integer");
  EXPECT_FALSE(ReadText("[1, 2, 3]").ok());
  EXPECT_FALSE(ReadText("\"just a string\"").ok());
}

TEST_F(RunFileValidation, CountsMustBeNonNegativeFiniteIntegersBelow2To64) {
  const std::string calls = "regions[0].threads[0].calls = ";
  json j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["calls"] = -5;
  ExpectError(j, calls + "-5 is not an integer from 0 to 18446744073709551615");
  j["regions"][0]["threads"][0]["calls"] = 1e30;
  ExpectError(j, calls + "1e+30 is not an integer from 0 to 18446744073709551615");
  j["regions"][0]["threads"][0]["calls"] = "NaN";
  ExpectError(j, "regions[0].threads[0].calls: expected an integer, got string \"NaN\"");
  // Past 2^64 in the file's own text: the parser reads it as floating point.
  std::string text = Fixture("replay_skl_matmul.json").dump();
  const std::string key = "\"inclusive\":1000000000";
  ASSERT_NE(text.find(key), std::string::npos);
  text.replace(text.find(key), key.size(), "\"inclusive\":18446744073709551621");
  const absl::StatusOr<RunData> huge = ReadText(text);
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("inclusive = 1.8446744073709552e+19 is not an integer"),
            std::string::npos)
      << huge.status();
  j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["wall_inclusive_ns"] = -1;
  ExpectError(j, "regions[0].threads[0].wall_inclusive_ns = -1 is not an integer from 0 to");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["groups"][0]["time_running_ns"] = -2;
  ExpectError(j, "regions[0].threads[0].groups[0].time_running_ns = -2 is not an integer from 0");
}

TEST_F(RunFileValidation, ThreadIndicesAndArrayLengths) {
  json j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["thread"] = 4;
  ExpectError(j, "regions[0].threads[0].thread = 4 is not a thread index (there are 1 threads)");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"].push_back(j["regions"][0]["threads"][0]);
  ExpectError(j, "regions[0].threads[1].thread = 0 is listed twice");
  j = Fixture("replay_skl_matmul.json");
  j["threads"][0]["index"] = 3;
  ExpectError(j, "threads[0].index = 3; threads are listed in index order");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["groups"].erase(0);
  ExpectError(j, "regions[0].threads[0].groups has");
  j = Fixture("replay_skl_matmul.json");
  j["regions"][0]["threads"][0]["counters"].erase("CPU_CLK_UNHALTED.THREAD");
  ExpectError(j, "regions[0].threads[0].counters: missing field \"CPU_CLK_UNHALTED.THREAD\"");
  j = Fixture("replay_skl_matmul.json");
  j["events"][0]["group"] = 99;
  ExpectError(j, "events[0].group = 99 is not a group index");
  j = Fixture("replay_skl_matmul.json");
  j["groups"].push_back({{"events", json::array()}});
  ExpectError(j, "no event names it as its group");
}

TEST_F(RunFileValidation, CaseFileWrongTypesAreErrorsNotExceptions) {
  json c = Fixture("icl_case.json");
  ASSERT_TRUE(ParsePerfCase(c).ok());
  c["expected"] = "x";
  absl::StatusOr<PerfCase> bad = ParsePerfCase(c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"expected\": expected a list, got string"), std::string::npos)
      << bad.status();
  c = Fixture("icl_case.json");
  c["counts"][0]["group"] = "g";
  bad = ParsePerfCase(c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("counts[0].group: expected an integer, got string"), std::string::npos)
      << bad.status();
  c = Fixture("icl_case.json");
  if (c.contains("expected") && !c["expected"].empty()) {
    c["expected"][0]["group"] = "g";
    bad = ParsePerfCase(c);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().message().find("expected[0].group"), std::string::npos) << bad.status();
  }
}

// Random mutations of the fixtures: flipped types, changed numbers, deleted
// keys. A file is either refused with one line or read, analysed and
// formatted in every form; nothing crashes or throws. Seeded: reproducible.
void Mutate(json* root, std::mt19937* rng) {
  // Walk to a random node.
  json* node = root;
  for (int steps = std::uniform_int_distribution<int>(1, 6)(*rng); steps > 0; --steps) {
    if (node->is_object() && !node->empty()) {
      auto it = node->begin();
      std::advance(it, std::uniform_int_distribution<size_t>(0, node->size() - 1)(*rng));
      node = &it.value();
    } else if (node->is_array() && !node->empty()) {
      node = &(*node)[std::uniform_int_distribution<size_t>(0, node->size() - 1)(*rng)];
    } else {
      break;
    }
  }
  static const std::vector<json> kValues = {nullptr, true, 0, -1, 1, 2, 3, 999, -3, 1e30, 2.5,
                                            "oops", "NaN", json::array(), json::object(),
                                            json::array({999, -3}), 18446744073709551615ull,
                                            std::numeric_limits<int64_t>::min()};
  switch (std::uniform_int_distribution<int>(0, 3)(*rng)) {
    case 0:  // replace with a value of another type
      *node = kValues[std::uniform_int_distribution<size_t>(0, kValues.size() - 1)(*rng)];
      break;
    case 1:  // change a number
      if (node->is_number()) {
        *node = std::uniform_int_distribution<int64_t>(-5, 5)(*rng) +
                (node->is_number_integer() ? node->get<int64_t>() : 0);
      } else {
        *node = std::uniform_int_distribution<int>(-2, 3)(*rng);
      }
      break;
    case 2:  // delete a key or an element
      if (node->is_object() && !node->empty()) {
        auto it = node->begin();
        std::advance(it, std::uniform_int_distribution<size_t>(0, node->size() - 1)(*rng));
        node->erase(it);
      } else if (node->is_array() && !node->empty()) {
        node->erase(std::uniform_int_distribution<size_t>(0, node->size() - 1)(*rng));
      } else {
        *node = nullptr;
      }
      break;
    default:  // duplicate an element or add a key
      if (node->is_array() && !node->empty()) {
        node->push_back((*node)[0]);
      } else if (node->is_object()) {
        (*node)["extra"] = 1;
      } else {
        *node = json::array({*node});
      }
      break;
  }
}

TEST_F(RunFileValidation, RandomMutationsNeverCrashOrThrow) {
  absl::StatusOr<DefinitionLibrary> library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const std::vector<json> fixtures = {Fixture("replay_skl_matmul.json"), Fixture("nopmu_matmul.json"), Nested()};
  std::mt19937 rng(20261123);
  int accepted = 0;
  for (int i = 0; i < 300; ++i) {
    json j = fixtures[static_cast<size_t>(i) % fixtures.size()];
    for (int m = std::uniform_int_distribution<int>(1, 3)(rng); m > 0; --m) Mutate(&j, &rng);
    SCOPED_TRACE(::testing::Message() << "mutation " << i << ": " << j.dump().substr(0, 2000));
    absl::StatusOr<RunData> data;
    ASSERT_NO_THROW(data = Read(j));
    if (!data.ok()) {
      EXPECT_EQ(data.status().code(), absl::StatusCode::kInvalidArgument) << data.status();
      EXPECT_EQ(data.status().message().find('\n'), std::string::npos) << data.status();
      continue;
    }
    ++accepted;
    ASSERT_NO_THROW({
      const RunAnalysis analysis = AnalyzeRun(*data, *library, "");
      TextReportOptions options;
      options.per_thread = true;
      EXPECT_FALSE(FormatTextReport(*data, &analysis, options).empty());
      EXPECT_FALSE(RunAnalysisToJson(*data, analysis).dump().empty());
      EXPECT_FALSE(FormatCsvReport(*data, &analysis).empty());
      EXPECT_FALSE(FormatHtmlReport(*data, analysis).empty());
    });
  }
  EXPECT_GT(accepted, 0) << "every mutation refused: the harmless ones should read";
}

// docs/json-schema.md says what the files hold: the always-counted software
// group has pmu "" (only software events named in TD_EVENTS say "software").
TEST(RunFileSchemaDoc, SoftwareGroupPmuIsTheEmptyStringTheDocumentSays) {
  const auto run = ReadRunFile(std::string(TD_TEST_DATA_DIR) + "/nopmu_matmul.json");
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_FALSE(run->layout.events.empty());
  for (const EventInfo& e : run->layout.events) EXPECT_EQ(e.pmu, "") << e.name;
  std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/../../docs/json-schema.md");
  ASSERT_TRUE(in) << "docs/json-schema.md";
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(doc.find("`\"\"` for the software group td always counts"), std::string::npos);
  EXPECT_EQ(doc.find("(where the encoding came from: `software`"), std::string::npos)
      << "the old wording, which no file matched";
}

}  // namespace
}  // namespace td

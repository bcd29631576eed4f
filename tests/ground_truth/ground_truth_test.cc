// Every published perf/LIKWID output in the ground-truth folder, recomputed
// from its counts. Values the case marks as reproducible must match within
// their tolerance; the others (averaged runs, counts not transcribed) are
// computed when possible and their difference printed, with the case's own
// reason in its notes.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "runtime/analysis/perf_case.h"

namespace td {
namespace {

// The cases kept in the repository (tests/data/ground-truth), then any
// further ones in TD_MORE_GROUND_TRUTH_DIR whose file names are new.
std::vector<std::string> CaseFiles() {
  std::vector<std::string> files;
  std::set<std::string> names;
  for (const char* dir : {TD_GROUND_TRUTH_DIR, TD_MORE_GROUND_TRUTH_DIR}) {
    std::vector<std::string> here;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".json" && names.insert(entry.path().filename().string()).second) {
        here.push_back(entry.path().string());
      }
    }
    std::sort(here.begin(), here.end());
    files.insert(files.end(), here.begin(), here.end());
  }
  if (files.empty()) files.push_back("");  // one test that fails and says why
  return files;
}

class GroundTruth : public ::testing::TestWithParam<std::string> {};

TEST_P(GroundTruth, ReproducesThePrintedValues) {
  ASSERT_FALSE(GetParam().empty()) << "no ground-truth cases in " << TD_GROUND_TRUTH_DIR
                                   << ": they are part of the repository";
  std::ifstream in(GetParam());
  std::stringstream text;
  text << in.rdbuf();
  auto json = nlohmann::json::parse(text.str(), nullptr, false);
  ASSERT_FALSE(json.is_discarded()) << GetParam();
  auto c = ParsePerfCase(json);
  ASSERT_TRUE(c.ok()) << c.status();
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  auto answers = Recompute(*c, *library);
  ASSERT_TRUE(answers.ok()) << answers.status();
  ASSERT_EQ(answers->size(), c->wanted.size());
  int checked = 0;
  for (const MetricAnswer& a : *answers) {
    const WantedMetric& w = a.wanted;
    const std::string label = c->id + " " + (w.pmu.empty() ? "" : w.pmu + "/") + w.metric;
    ASSERT_TRUE(w.expected.has_value()) << label;
    if (!w.reproducible) {
      std::printf("  %s: not reproducible by the case's own account; expected %g, td %s\n",
                  label.c_str(), *w.expected,
                  a.value ? std::to_string(*a.value).c_str() : a.why_not.c_str());
      continue;
    }
    ASSERT_TRUE(a.value.has_value()) << label << ": " << a.why_not;
    EXPECT_NEAR(*a.value, *w.expected, w.tolerance + 1e-9) << label;
    ++checked;
  }
  EXPECT_GT(checked, 0) << c->id << " checked nothing";
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  if (info.param.empty()) return "NoCases";
  return std::filesystem::path(info.param).stem().string();
}

INSTANTIATE_TEST_SUITE_P(Cases, GroundTruth, ::testing::ValuesIn(CaseFiles()), CaseName);

TEST(PerfStatCsv, ImportsAndComputesLevelOne) {
  const std::string csv =
      "# started on Sun Nov 22\n"
      "\n"
      "1000000,,slots,1000,100.00,,\n"
      "300000,,topdown-retiring,1000,100.00,,\n"
      "100000,,topdown-bad-spec,1000,100.00,,\n"
      "250000,,topdown-fe-bound,1000,100.00,,\n"
      "350000,,topdown-be-bound,1000,100.00,,\n"
      "<not counted>,,cpu/INT_MISC.UOP_DROPPING/,0,0.00,,\n";
  auto c = ParsePerfStatCsv(csv, "icl");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->counts.size(), 6u);
  EXPECT_FALSE(c->counts[5].value.has_value()) << "<not counted> is not a zero";
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto answers = Recompute(*c, *library);
  ASSERT_TRUE(answers.ok()) << answers.status();
  std::map<std::string, double> values;
  for (const auto& a : *answers) {
    if (a.value) values[a.wanted.metric] = *a.value;
  }
  EXPECT_DOUBLE_EQ(values.at("Retiring"), 0.3);
  EXPECT_DOUBLE_EQ(values.at("Frontend_Bound"), 0.25);
  EXPECT_DOUBLE_EQ(values.at("Backend_Bound"), 0.35);
  EXPECT_NEAR(values.at("Bad_Speculation"), 0.1, 1e-12);
  EXPECT_EQ(values.count("Backend_Bound.Memory_Bound"), 0u) << "its events were not collected";
  auto bad = ParsePerfStatCsv("only-one-field\n", "icl");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 1"), std::string::npos);
}

}  // namespace
}  // namespace td

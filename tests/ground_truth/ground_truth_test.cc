// Every published perf/LIKWID output in the ground-truth folder, recomputed
// from its counts. Values the case marks as reproducible must match within
// their tolerance; the others (averaged runs, counts not transcribed) are
// computed when possible and their difference printed, with the case's own
// reason in its notes.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "runtime/analysis/perf_case.h"
#include "runtime/uarch/definitions.h"
#include "tests/support/build_paths.h"

namespace td {
namespace {

// The cases kept in the repository (tests/data/ground-truth), then any
// further ones in TD_MORE_GROUND_TRUTH_DIR whose file names are new.
std::vector<std::string> CaseFiles() {
  std::vector<std::string> files;
  std::set<std::string> names;
  for (const std::string& dir : {TD_GROUND_TRUTH_DIR, TD_MORE_GROUND_TRUTH_DIR}) {
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

// A CPU of each key the cases name, as perf's mapfiles spell its CPUID.
const std::map<std::string, std::string> kCpuidOfKey = {
    {"snb", "GenuineIntel-6-2A"},   {"skl", "GenuineIntel-6-5E"},    {"clx", "GenuineIntel-6-55-7"},
    {"icl", "GenuineIntel-6-7E"},   {"icx", "GenuineIntel-6-6A"},    {"tgl", "GenuineIntel-6-8C"},
    {"spr", "GenuineIntel-6-8F"},   {"adl", "GenuineIntel-6-97"},    {"zen4", "AuthenticAMD-25-17"},
    {"neoverse_n1", "0x413fd0c1"}, {"neoverse_n2", "0x410fd490"}};

// The same case naming its CPU only ("cpuid" instead of "uarch") is
// evaluated with the same key and gives the same values.
TEST(GroundTruthByCpuid, ACaseNamingOnlyItsCpuidPicksTheKey) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  int compared = 0;
  for (const std::string& path : CaseFiles()) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, false);
    if (json.is_discarded() || !json.contains("uarch")) continue;
    const auto cpuid = kCpuidOfKey.find(json["uarch"].get<std::string>());
    if (cpuid == kCpuidOfKey.end()) continue;
    SCOPED_TRACE(path);
    auto by_key = ParsePerfCase(json);
    json.erase("uarch");
    json["cpuid"] = cpuid->second;
    auto by_cpuid = ParsePerfCase(json);
    ASSERT_TRUE(by_key.ok() && by_cpuid.ok()) << by_cpuid.status();
    EXPECT_EQ(*CaseUarch(*by_cpuid, *library), by_key->uarch);
    auto a = Recompute(*by_key, *library);
    auto b = Recompute(*by_cpuid, *library);
    ASSERT_TRUE(a.ok() && b.ok()) << b.status();
    ASSERT_EQ(a->size(), b->size());
    for (size_t i = 0; i < a->size(); ++i) EXPECT_EQ((*a)[i].value, (*b)[i].value) << (*a)[i].wanted.metric;
    ++compared;
  }
  EXPECT_GE(compared, 20) << "the repository's cases cover these keys";
}

TEST(GroundTruthByCpuid, CpuidsAsPerfSpellsThem) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  EXPECT_EQ(*library->IdentifyCpuid("GenuineIntel-6-AD"), "gnr");
  EXPECT_EQ(*library->IdentifyCpuid("GenuineIntel-6-ad-1"), "gnr") << "hex in either case";
  EXPECT_EQ(*library->IdentifyCpuid("GenuineIntel-6-55-4"), "skx");
  EXPECT_EQ(*library->IdentifyCpuid("GenuineIntel-6-55-7"), "clx") << "the stepping tells them apart";
  EXPECT_EQ(*library->IdentifyCpuid("GenuineIntel-6-AA"), "mtl") << "a hybrid part: its whole-part key";
  EXPECT_EQ(*library->IdentifyCpuid("AuthenticAMD-26-2"), "zen5");
  EXPECT_EQ(*library->IdentifyCpuid("0x00000000410fd4f0"), "neoverse_v2") << "an Arm MIDR, zero-padded as perf prints it";
  const auto bad = library->IdentifyCpuid("Intel-x");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("cpuid \"Intel-x\" is not understood"), std::string::npos);
  EXPECT_FALSE(library->IdentifyCpuid("GenuineIntel-6-FFF").ok()) << "no key for that model";
}

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

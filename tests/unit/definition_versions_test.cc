// Two TMA versions in one key (issue 32): a newer vendor tree laid over td's
// own definitions, its formulas first and td's older ones behind them, each
// value from an older formula labelled with that version in every output;
// perf's #core_wide from the machine or the case.
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/perf_case.h"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/uarch/definition_versions.h"
#include "runtime/uarch/definitions.h"
#include "tests/support/build_paths.h"

namespace td {
namespace {

using nlohmann::json;

FormulaDefinition Node(const std::string& name, int level, const std::string& formula,
                       std::vector<std::string> former = {}) {
  FormulaDefinition def;
  def.name = name;
  def.level = level;
  def.alternatives.push_back(*Expression::Parse(formula));
  def.former_names = std::move(former);
  return def;
}

std::vector<std::string> Texts(const FormulaDefinition& def) {
  std::vector<std::string> out;
  for (const Expression& e : def.alternatives) out.push_back(e.text());
  return out;
}

TEST(DefinitionVersions, NewerFormulasComeFirstAndOlderOnesStayLabelled) {
  std::vector<FormulaDefinition> older = {Node("A", 1, "X / C"), Node("A.B", 2, "Y / C"), Node("A.B.D", 3, "Z / C"),
                                          Node("Ratio", 0, "X / Y")};
  std::vector<FormulaDefinition> newer = {Node("A", 1, "X2 / C"), Node("A.N", 2, "Y2 / C", {"A.B"})};
  LayNewerFormulas(std::move(newer), "4.8", &older);
  ASSERT_EQ(older.size(), 4u);
  EXPECT_EQ(Texts(older[0]), (std::vector<std::string>{"X2 / C", "X / C"}));
  EXPECT_EQ(older[0].VersionOf(0), "");
  EXPECT_EQ(older[0].VersionOf(1), "4.8");
  EXPECT_EQ(older[1].name, "A.N") << "the renamed node takes the older one's place";
  EXPECT_EQ(older[1].former_names, std::vector<std::string>{"A.B"});
  EXPECT_EQ(Texts(older[1]), (std::vector<std::string>{"Y2 / C", "Y / C"}));
  EXPECT_EQ(older[2].name, "A.N.D") << "an older node moves under its parent's new name";
  EXPECT_EQ(older[2].former_names, std::vector<std::string>{"A.B.D"});
  EXPECT_EQ(older[2].VersionOf(0), "4.8") << "a node only the older tree has";
  EXPECT_EQ(older[3].VersionOf(0), "") << "td's own ratios are no TMA node";
}

// An own file of key "k" at TMA 1.0 and a vendor tree at 2.0 laid over it.
const char kOwn[] = R"({"uarchs": {"k": {"tma_version": "1.0"}},
  "events": [{"name": "C"}, {"name": "X"}, {"name": "Y"}, {"name": "X2"}],
  "nodes": [{"name": "A", "level": 1, "threshold": 0.2, "formula": "X / C"},
            {"name": "A.B", "level": 2, "threshold": 0.1, "formula": "Y / C"}]})";
const char kNewer[] = R"({"uarchs": {"k": {"tma_version": "2.0"}},
  "source": {"tool": "td import-metrics", "supersedes": "k"},
  "nodes": [{"name": "A", "level": 1, "threshold": 0.2, "formula": "X2 / C"},
            {"name": "A.N", "level": 2, "threshold": 0.1, "formula": "Y / C", "formerly": ["A.B"]}]})";

TopDownResult Analyze(const MetricSet& set, const std::map<std::string, double>& counts) {
  return AnalyzeCounts(set, [&counts](const std::vector<std::string>& spellings, std::string*) {
    for (const std::string& s : spellings) {
      if (auto it = counts.find(s); it != counts.end()) return std::optional<double>(it->second);
    }
    return std::optional<double>();
  });
}

TEST(DefinitionVersions, ARecordingOfTheOlderEventsGetsTheOlderFormulaLabelled) {
  auto library = DefinitionLibrary::FromTexts({{"own.json", kOwn}, {"vendor.json", kNewer}});
  ASSERT_TRUE(library.ok()) << library.status();
  const MetricSet* set = library->Find("k");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->tma_version, "2.0");
  EXPECT_EQ(set->FindNode("A.B"), set->FindNode("A.N")) << "the old name finds the renamed node";

  const TopDownResult current = Analyze(*set, {{"c", 100}, {"x", 10}, {"x2", 30}, {"y", 20}});
  EXPECT_DOUBLE_EQ(*current.Find("A")->value, 0.3);
  EXPECT_EQ(current.Find("A")->formula_version, "");

  const TopDownResult older = Analyze(*set, {{"c", 100}, {"x", 10}, {"y", 20}});  // no X2: 1.0's events
  EXPECT_DOUBLE_EQ(*older.Find("A")->value, 0.1);
  EXPECT_EQ(older.Find("A")->formula_version, "1.0");
  EXPECT_DOUBLE_EQ(*older.Find("A.N")->value, 0.2);
  EXPECT_EQ(older.Find("A.N")->formula_version, "") << "its own current formula needs only Y";
  bool noted = false;
  for (const std::string& note : older.notes) noted |= note.rfind("formula of TMA 1.0: A computed with", 0) == 0;
  EXPECT_TRUE(noted);
  EXPECT_EQ(FormulaVersionText("1.0"), "formula of TMA 1.0");
}

TEST(DefinitionVersions, AFileMayNameAnOlderVersionOfOneAlternative) {
  const char file[] = R"json({"uarchs": {"k": {"tma_version": "2.0"}}, "events": [{"name": "C"}, {"name": "X"}, {"name": "W"}],
    "nodes": [{"name": "A", "level": 1, "formula": ["X / C", {"formula": "W / C", "tma_version": "0.9 (2023)"}]}]})json";
  auto library = DefinitionLibrary::FromTexts({{"k.json", file}});
  ASSERT_TRUE(library.ok()) << library.status();
  const TopDownResult r = Analyze(*library->Find("k"), {{"c", 10}, {"w", 4}});
  EXPECT_DOUBLE_EQ(*r.Find("A")->value, 0.4);
  EXPECT_EQ(r.Find("A")->formula_version, "0.9 (2023)");
  auto wrong = DefinitionLibrary::FromTexts(
      {{"k.json", R"({"uarchs": {"k": {}}, "nodes": [{"name": "A", "level": 1, "formula": [{"formula": "1"}]}]})"}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("{\"formula\", \"tma_version\"}"), std::string::npos) << wrong.status();
}

absl::StatusOr<std::vector<MetricAnswer>> RecomputeFile(const std::string& path) {
  std::ifstream in(path);
  const json j = json::parse(in);
  auto c = ParsePerfCase(j);
  if (!c.ok()) return c.status();
  auto library = DefinitionLibrary::Load();
  if (!library.ok()) return library.status();
  return Recompute(*c, *library);
}

// Gracemont's published 2023 output (perf ~6.4): Resource_Bound was all of
// Backend_Bound then; the run did not count TMA's newer event for it.
TEST(DefinitionVersions, GracemontsOlderResourceBoundIsReproducedAndLabelled) {
  auto answers = RecomputeFile(std::string(TD_TEST_DATA_DIR) + "/ground-truth/J9.json");
  ASSERT_TRUE(answers.ok()) << answers.status();
  bool found = false;
  for (const MetricAnswer& a : *answers) {
    if (a.wanted.metric != "Backend_Bound.Resource_Bound" || a.wanted.pmu != "cpu_atom") continue;
    found = true;
    ASSERT_TRUE(a.value) << a.why_not;
    EXPECT_NEAR(*a.value, 222579768.0 / (5 * 117323055.0), 1e-12);
    EXPECT_NEAR(*a.value, 0.379, 0.0005) << "the printed value";
    ASSERT_FALSE(a.notes.empty());
    EXPECT_EQ(a.notes[0].rfind("formula of TMA E-core (perf 6.4, 2023): Backend_Bound.Resource_Bound", 0), 0u)
        << a.notes[0];
  }
  EXPECT_TRUE(found);
}

// Skylake per core (perf stat -a, SMT on): TMA 5.01's core clocks come from
// THREAD_ANY there, and from ONE_THREAD_ACTIVE and REF_XCLK per thread.
TEST(DefinitionVersions, CoreWideCountsComputeTheDepthNodes) {
  json c = {{"id", "core-wide"}, {"uarch", "skl"}, {"smt", true}, {"formula_family", "F3"},
            {"expected", json::array({{{"metric", "Frontend_Bound.Fetch_Bandwidth.DSB"}, {"value", 0}}})}};
  json counts = json::array();
  for (const auto& [event, value] : std::map<std::string, double>{{"CPU_CLK_UNHALTED.THREAD", 1e9},
                                                                  {"CPU_CLK_UNHALTED.THREAD_ANY", 1.6e9},
                                                                  {"IDQ.DSB_CYCLES_ANY", 3e8},
                                                                  {"IDQ.DSB_CYCLES_OK", 1e8}}) {
    counts.push_back({{"event", event}, {"value", value}});
  }
  c["counts"] = counts;
  for (const bool core_wide : {true, false}) {
    c["scope"] = core_wide ? "system-wide" : "per-thread";
    auto parsed = ParsePerfCase(c);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    auto library = DefinitionLibrary::Load();
    ASSERT_TRUE(library.ok());
    auto answers = Recompute(*parsed, *library);
    ASSERT_TRUE(answers.ok()) << answers.status();
    ASSERT_EQ(answers->size(), 1u);
    const MetricAnswer& dsb = answers->front();
    if (core_wide) {
      ASSERT_TRUE(dsb.value) << dsb.why_not;
      EXPECT_DOUBLE_EQ(*dsb.value, (3e8 - 1e8) / (1.6e9 / 2) / 2) << "(ANY - OK) / core clocks / 2";
    } else {
      EXPECT_FALSE(dsb.value);
      EXPECT_NE(dsb.why_not.find("CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE"), std::string::npos) << dsb.why_not;
    }
  }
}

TEST(DefinitionVersions, RocketLakeHasAKeyOfItsOwn) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  EXPECT_EQ(*library->IdentifyCpuid("GenuineIntel-6-A7"), "rkl");
  EXPECT_EQ(library->Find("rkl")->tma_version, "5.01");
}

}  // namespace
}  // namespace td

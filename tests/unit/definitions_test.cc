// Definition files: every microarchitecture loads, bad files are precise
// errors, lookups by any spelling, CPU identification, a test-only CPU.
#include "runtime/uarch/definitions.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "runtime/analysis/metric_evaluator.h"
#include "tests/unit/map_lookup.h"

namespace td {
namespace {

TEST(Definitions, EveryListedMicroarchitectureLoads) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const std::vector<std::string> expected = {
      "adl_glc", "adl_grt", "arl_lnc", "arl_skt", "bdw", "clx", "emr", "generic", "gnr", "grr", "hsw", "icl",
      "icx", "ivb", "lnl_lnc", "lnl_skt", "mtl_cmt", "mtl_rwc", "neoverse_n1", "neoverse_n2", "neoverse_v1",
      "neoverse_v2", "neoverse_v3", "rkl", "skl", "skx", "snb", "spr", "srf", "tgl", "zen3", "zen4", "zen5"};
  EXPECT_EQ(library->Uarchs(), expected);
  // Load builds a uarch's set when it is first asked for; FromTexts checks them all at once.
  EXPECT_TRUE(DefinitionLibrary::FromTexts(EmbeddedDefinitionFiles()).ok());
  for (const auto& uarch : expected) {
    auto set = library->ForUarch(uarch);
    ASSERT_TRUE(set.ok()) << uarch << ": " << set.status();
    EXPECT_NE(set->FindNode("IPC"), nullptr) << uarch << " has the generic metrics";
  }
  auto skl = library->ForUarch("skl");
  ASSERT_TRUE(skl.ok());
  EXPECT_EQ(skl->constants.at("Pipeline_Width"), 4);
  EXPECT_EQ(library->ForUarch("spr")->constants.at("Pipeline_Width"), 6);
  EXPECT_EQ(library->ForUarch("zen5")->constants.at("Pipeline_Width"), 8);
  // Generic "cycles" and Intel's fixed-counter event are one event.
  const EventDefinition* cycles = skl->FindEvent("cycles");
  ASSERT_NE(cycles, nullptr);
  EXPECT_EQ(cycles->name, "CPU_CLK_UNHALTED.THREAD");
  const FormulaDefinition* memory = skl->FindNode("Backend_Bound.Memory_Bound");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->Parent(), "Backend_Bound");
  EXPECT_EQ(memory->level, 2);
}

// A loaded library builds a uarch's set when first asked for; the job view's
// loader threads share one library, so the first askers race: each set is
// built once and every thread gets that one.
TEST(Definitions, ThreadsAskingForTheSameSetsGetTheOneBuilt) {
  const auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  constexpr int kThreads = 4;
  const std::vector<std::string> uarchs = {"skl", "zen5", "neoverse_v3", "no_such_uarch"};
  std::vector<std::vector<const MetricSet*>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < uarchs.size(); ++i) seen[t].push_back(library->Find(uarchs[(i + t) % uarchs.size()]));
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    for (size_t i = 0; i < uarchs.size(); ++i) {
      const std::string& uarch = uarchs[(i + t) % uarchs.size()];
      const MetricSet* set = seen[t][i];
      EXPECT_EQ(set, library->Find(uarch)) << uarch;
      if (uarch == "no_such_uarch") continue;
      ASSERT_NE(set, nullptr) << uarch;
      EXPECT_EQ(set->uarch, uarch);
    }
  }
  EXPECT_EQ(library->Find("no_such_uarch"), nullptr);
  const DefinitionLibrary copy = *library;  // copies share what was built
  EXPECT_EQ(copy.Find("skl"), library->Find("skl"));
}

TEST(Definitions, UnknownMicroarchitectureListsTheKnownOnes) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto set = library->ForUarch("pentium4");
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("no definitions for microarchitecture \"pentium4\""),
            std::string::npos);
  EXPECT_NE(set.status().message().find("zen4"), std::string::npos);
}

TEST(Definitions, BadFilesAreRejectedWithPreciseErrors) {
  auto unknown = DefinitionLibrary::FromTexts(
      {{"bad.json", R"({"uarchs": {"x": {}}, "nodes": [{"name": "A", "formula": "NOT_DECLARED / 2"}]})"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("bad.json (uarch x): A: unknown name \"NOT_DECLARED\""),
            std::string::npos)
      << unknown.status();
  auto syntax = DefinitionLibrary::FromTexts(
      {{"bad.json", R"({"uarchs": {"x": {}}, "nodes": [{"name": "A", "formula": "1 +"}]})"}});
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.status().message().find("definitions bad.json: A: expected"), std::string::npos);
  // Found by the fuzzer: a field of the wrong JSON type must be an error, not a throw.
  auto array_constant = DefinitionLibrary::FromTexts(
      {{"bad.json", R"({"uarchs": {"x": {"constants": {"W": [1]}}}, "nodes": []})"}});
  ASSERT_FALSE(array_constant.ok());
  EXPECT_EQ(array_constant.status().message(), "definitions bad.json: constant \"W\" must be a number");
  auto level_text = DefinitionLibrary::FromTexts(
      {{"bad.json", R"({"uarchs": {"x": {}}, "nodes": [{"name": "A", "formula": "1", "level": "two"}]})"}});
  ASSERT_FALSE(level_text.ok());
  EXPECT_EQ(level_text.status().message(), "definitions bad.json: A.level: expected an integer, got string \"two\"");
  // Found by the fuzzer: a number past int's range (or a fraction) where an
  // integer belongs was converted with undefined behaviour.
  for (const char* level : {"1e30", "2.5", "-1", "99"}) {
    auto bad_level = DefinitionLibrary::FromTexts(
        {{"bad.json", absl::StrFormat(R"({"uarchs": {"x": {}}, "nodes": [{"name": "A", "formula": "1", "level": %s}]})",
                                      level)}});
    ASSERT_FALSE(bad_level.ok()) << level;
    EXPECT_NE(bad_level.status().message().find("definitions bad.json: A.level = "), std::string::npos)
        << bad_level.status();
    EXPECT_NE(bad_level.status().message().find("is not an integer from 0 to 16"), std::string::npos)
        << bad_level.status();
  }
  auto fractional_counters = DefinitionLibrary::FromTexts(
      {{"bad.json", R"({"uarchs": {"x": {"counters": {"general": 4.5}}}, "nodes": [{"name": "A", "formula": "1"}]})"}});
  ASSERT_FALSE(fractional_counters.ok());
  EXPECT_NE(fractional_counters.status().message().find("counters.general = 4.5 is not an integer"), std::string::npos)
      << fractional_counters.status();
  auto not_json = DefinitionLibrary::FromTexts({{"bad.json", "{"}});
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(not_json.status().message(), "definitions bad.json: not valid JSON");
  auto kind = DefinitionLibrary::FromTexts(
      {{"bad.json", R"({"uarchs": {"x": {}}, "nodes": [{"name": "A", "formula": "1", "kind": "furlongs"}]})"}});
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("kind \"furlongs\""), std::string::npos);
}

// A CPU table entry whose numbers are not ints matches no CPU; it never
// reaches a conversion (1e30 to int is undefined behaviour).
TEST(Definitions, CpuTableEntriesThatAreNotIntsMatchNothing) {
  auto library = DefinitionLibrary::FromTexts({{"cpus.json", R"({"uarchs": {
      "good": {"cpus": [{"vendor": "GenuineIntel", "family": 6, "models": [85]}]},
      "fraction": {"cpus": [{"vendor": "GenuineIntel", "family": 6.0, "models": [86]}]},
      "huge": {"cpus": [{"vendor": "GenuineIntel", "family": 6, "models": [1e30, 87]}]},
      "ranges": {"cpus": [{"vendor": "GenuineIntel", "family": 6, "model_ranges": [[-1e30, 2.5], [88, "x"], [89, 90]]}]}},
      "nodes": [{"name": "A", "formula": "1"}]})"}});
  ASSERT_TRUE(library.ok()) << library.status();
  auto identify = [&](int model) {
    auto uarch = library->Identify("GenuineIntel", 6, model, 0);
    return uarch.ok() ? *uarch : std::string("none");
  };
  EXPECT_EQ(identify(85), "good");
  EXPECT_EQ(identify(86), "none") << "6.0 is written as a fraction: not an int";
  EXPECT_EQ(identify(87), "huge") << "the list's other entries still count";
  EXPECT_EQ(identify(2), "none");
  EXPECT_EQ(identify(88), "none");
  EXPECT_EQ(identify(90), "ranges");
}

// The name index answers as the walk does: any spelling of an event, former
// node names, copies of a set, and a set changed after it was indexed.
TEST(Definitions, IndexedLookupsAnswerAsTheWalkDoes) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const MetricSet* skl = library->Find("skl");
  ASSERT_NE(skl, nullptr);
  EXPECT_EQ(library->Find("pentium4"), nullptr);
  const EventDefinition* cycles = skl->FindEvent("cycles");
  ASSERT_NE(cycles, nullptr);
  EXPECT_EQ(skl->FindEvent("CPU_CLK_UNHALTED.THREAD"), cycles) << "one event, two spellings";
  EXPECT_EQ(skl->FindEvent("cpu_clk_unhalted.thread"), cycles) << "normalized when not spelled as indexed";
  EXPECT_EQ(skl->FindEvent("NO_SUCH_EVENT"), nullptr);
  ASSERT_NE(skl->FindNode("Backend_Bound.Memory_Bound"), nullptr);
  EXPECT_EQ(skl->FindNode("Backend_Bound.Memory_Bound")->level, 2);
  EXPECT_EQ(skl->FindNode("Memory_Bound"), nullptr);

  MetricSet copy = *skl;
  ASSERT_NE(copy.FindNode("Frontend_Bound"), nullptr);
  const FormulaDefinition* in_copy = copy.FindNode("Frontend_Bound");
  EXPECT_TRUE(in_copy >= copy.nodes.data() && in_copy < copy.nodes.data() + copy.nodes.size())
      << "a copy's answers point into the copy";
  EXPECT_EQ(skl->FindNode("Clock_GHz"), skl->FindNode("Active_Clock_GHz")) << "former names";
  ASSERT_NE(skl->FindNode("Clock_GHz"), nullptr);
  FormulaDefinition added;
  added.name = "Added_Later";
  copy.nodes.push_back(added);
  ASSERT_NE(copy.FindNode("Added_Later"), nullptr) << "a set changed after indexing is walked";
  EXPECT_EQ(skl->FindNode("Added_Later"), nullptr);
}

// Adding a CPU is adding a file: no C++ changes.
TEST(Definitions, ATestOnlyFileAddsAMicroarchitecture) {
  char dir[] = "/tmp/td-defs-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::ofstream(std::string(dir) + "/toy.json") << R"({
    "family": "toy", "uarchs": {"toycpu": {"constants": {"Pipeline_Width": 3}}},
    "events": [{"name": "TOY.STALLS", "aliases": ["toy-stalls"]}, {"name": "TOY.CYCLES", "aliases": ["cycles"]}],
    "nodes": [
      {"name": "SLOTS", "kind": "count", "formula": "Pipeline_Width * TOY.CYCLES"},
      {"name": "Backend_Bound", "level": 1, "threshold": 0.2, "formula": "TOY.STALLS / SLOTS"},
      {"name": "Retiring", "level": 1, "formula": "1 - Backend_Bound"}]})";
  auto library = DefinitionLibrary::LoadDirectory(dir);
  ASSERT_TRUE(library.ok()) << library.status();
  auto set = library->ForUarch("toycpu");
  ASSERT_TRUE(set.ok()) << set.status();
  const std::map<std::string, double> counts = {{"toy-stalls", 30}, {"cycles", 40}};
  MetricEvaluator evaluator(*set, MapLookup(counts));
  EXPECT_DOUBLE_EQ(evaluator.Evaluate("Backend_Bound").number, 0.25);
  EXPECT_DOUBLE_EQ(evaluator.Evaluate("Retiring").number, 0.75);
  EXPECT_DOUBLE_EQ(evaluator.Evaluate("IPC").measured, false);  // no instructions counted
  EXPECT_NE(std::find(library->Uarchs().begin(), library->Uarchs().end(), "skl"),
            library->Uarchs().end())
      << "built-in definitions stay";
}

TEST(CpuIdentification, FromTheDefinitionTables) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  EXPECT_EQ(*library->Identify("GenuineIntel", 6, 85, 4), "skx");
  EXPECT_EQ(*library->Identify("GenuineIntel", 6, 85, 7), "clx");
  EXPECT_EQ(*library->Identify("GenuineIntel", 6, 143, 8), "spr");
  EXPECT_EQ(*library->Identify("GenuineIntel", 6, 183, 1), "adl") << "hybrid: the whole part";
  EXPECT_EQ(*library->Identify("AuthenticAMD", 25, 17, 1), "zen4");
  EXPECT_EQ(*library->Identify("AuthenticAMD", 25, 33, 0), "zen3");
  EXPECT_EQ(*library->Identify("AuthenticAMD", 26, 2, 0), "zen5");
  EXPECT_EQ(*library->Identify("0x41", 0, 0xd49, 0), "neoverse_n2");
  EXPECT_FALSE(library->Identify("GenuineIntel", 15, 6, 0).ok());
}

// Each core type of a hybrid part gets the uarch whose "cpus" entry names the
// part and the PMU: data, so a new hybrid part needs no code.
TEST(CpuIdentification, CoreTypesOfAHybridPartFromTheTables) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  EXPECT_EQ(library->UarchForPmu("adl", "cpu_core"), "adl_glc");
  EXPECT_EQ(library->UarchForPmu("adl", "cpu_atom"), "adl_grt");
  EXPECT_EQ(library->UarchForPmu("adl_hybrid", "cpu_atom"), "adl_grt") << "perf cases' spelling";
  EXPECT_EQ(library->UarchForPmu("skx", "cpu_core"), "skx") << "not hybrid: itself";
  EXPECT_EQ(library->UarchForPmu("adl", "cpu_lowpower"), "adl") << "a PMU no entry names";
  auto made_up = DefinitionLibrary::FromTexts({{"mtl.json", R"({"uarchs": {
      "mtl_p": {"cpus": [{"vendor": "GenuineIntel", "family": 6, "models": [170], "hybrid": "mtl", "core_pmu": "cpu_core"}]},
      "mtl_e": {"cpus": [{"vendor": "GenuineIntel", "family": 6, "models": [170], "hybrid": "mtl", "core_pmu": "cpu_atom"}]}},
      "nodes": [{"name": "A", "formula": "1"}]})"}});
  ASSERT_TRUE(made_up.ok()) << made_up.status();
  EXPECT_EQ(*made_up->Identify("GenuineIntel", 6, 170, 0), "mtl");
  EXPECT_EQ(made_up->UarchForPmu("mtl", "cpu_core"), "mtl_p");
  EXPECT_EQ(made_up->UarchForPmu("mtl", "cpu_atom"), "mtl_e");
}

}  // namespace
}  // namespace td

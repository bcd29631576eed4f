#include "runtime/uarch/definitions.h"

#include <unistd.h>

#include <fstream>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "runtime/uarch/event_names.h"
#include "runtime/analysis/metric_evaluator.h"
#include "tests/unit/map_lookup.h"

namespace td {
namespace {


TEST(EventNames, NormalizesEveryToolsSpelling) {
  EXPECT_EQ(NormalizeEventName("cpu/INT_MISC.RECOVERY_CYCLES,cmask=1,edge/u"),
            "int_misc.recovery_cycles:c1:e");
  EXPECT_EQ(NormalizeEventName("INT_MISC.RECOVERY_CYCLES:c1:e"), "int_misc.recovery_cycles:c1:e");
  EXPECT_EQ(NormalizeEventName("cpu/de_no_dispatch_per_slot.no_ops_from_frontend,cmask=0x6/"),
            "de_no_dispatch_per_slot.no_ops_from_frontend:c6");
  EXPECT_EQ(NormalizeEventName("cpu_atom/TOPDOWN_FE_BOUND.ALL/"), "topdown_fe_bound.all");
  EXPECT_EQ(NormalizeEventName("topdown-retiring:u"), "topdown-retiring");
  EXPECT_EQ(NormalizeEventName("TOPDOWN.SLOTS:u"), "slots");
  EXPECT_EQ(NormalizeEventName("cpu-cycles"), "cycles");
  EXPECT_EQ(NormalizeEventName("seconds time elapsed"), "seconds_time_elapsed");
  EXPECT_EQ(NormalizeEventName("EXE_ACTIVITY.3_PORTS_UTIL:u0x80"), "exe_activity.3_ports_util:u0x80");
}

TEST(Definitions, EveryListedMicroarchitectureLoads) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const std::vector<std::string> expected = {
      "adl_glc", "adl_grt", "bdw", "clx", "emr", "generic", "hsw", "icl", "icx", "ivb", "neoverse_n1",
      "neoverse_n2", "neoverse_v1", "neoverse_v2", "skl", "skx", "snb", "spr", "tgl", "zen3",
      "zen4", "zen5"};
  EXPECT_EQ(library->Uarchs(), expected);
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

TEST(MetricEvaluator, SmtOnSelectsHaswellsPerCoreForm) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto hsw = library->ForUarch("hsw");
  ASSERT_TRUE(hsw.ok()) << hsw.status();
  const std::map<std::string, double> counts = {
      {"cycle_activity.cycles_no_execute", 100}, {"cpu_clk_unhalted.thread", 1000},
      {"uops_executed.core:c1", 600},            {"uops_executed.core:c2", 50},
      {"uops_executed.core:c3", 30},             {"instructions", 1000},
      {"rs_events.empty_cycles", 0},             {"resource_stalls.sb", 10},
      {"idq_uops_not_delivered.cycles_0_uops_deliv.core", 0}, {"slots", 4000}};
  auto lookup = MapLookup(counts);
  EvaluationOptions smt_off;
  smt_off.constants["SMT_on"] = 0;
  EvaluationOptions smt_on;
  smt_on.constants["SMT_on"] = 1;
  // IPC 1.0 <= 1.8, so the few-uops threshold is UOPS_EXECUTED.CORE:c2 = 50.
  EXPECT_DOUBLE_EQ(MetricEvaluator(*hsw, lookup, smt_off).Evaluate("#Backend_Bound_Cycles").number,
                   100 + 600 - 50 - 0 + 10);
  EXPECT_DOUBLE_EQ(MetricEvaluator(*hsw, lookup, smt_on).Evaluate("#Backend_Bound_Cycles").number,
                   100 + (600 - 50) / 2.0 - 0 + 10);
}

TEST(MetricEvaluator, SkylakeL2AndDramBoundFollowTma) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto skl = library->ForUarch("skl");
  ASSERT_TRUE(skl.ok());
  const std::map<std::string, double> counts = {
      {"cpu_clk_unhalted.thread", 1000}, {"cycle_activity.stalls_l1d_miss", 500},
      {"cycle_activity.stalls_l2_miss", 300}, {"cycle_activity.stalls_l3_miss", 200},
      {"mem_load_retired.l2_hit", 90},  {"mem_load_retired.l1_miss", 100},
      {"mem_load_retired.fb_hit", 0},   {"l1d_pend_miss.fb_full:c1", 10}};
  MetricEvaluator evaluator(*skl, MapLookup(counts));
  // L2_Bound = 90 / (90 + 10) × (500 − 300) / 1000 = 0.18
  EXPECT_DOUBLE_EQ(evaluator.Evaluate("Backend_Bound.Memory_Bound.L2_Bound").number, 0.18);
  // DRAM_Bound = 200 / 1000 + 0.2 − 0.18 = 0.22 (the fill-buffer-full share goes to DRAM)
  EXPECT_NEAR(evaluator.Evaluate("Backend_Bound.Memory_Bound.DRAM_Bound").number, 0.22, 1e-12);
  EXPECT_TRUE(evaluator.notes().empty()) << evaluator.notes()[0];
}

TEST(MetricEvaluator, IceLakeContestedAccessesUseMeasuredFrequency) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto icl = library->ForUarch("icl");
  ASSERT_TRUE(icl.ok());
  const std::map<std::string, double> counts = {
      {"cpu_clk_unhalted.thread", 1000}, {"task-clock", 0.0005},  // 2 GHz
      {"mem_load_l3_hit_retired.xsnp_hitm", 10}, {"mem_load_l3_hit_retired.xsnp_miss", 0},
      {"ocr.demand_data_rd.l3_hit.hitm_other_core", 1},
      {"ocr.demand_data_rd.l3_hit.hit_other_core_fwd", 1},
      {"mem_load_retired.fb_hit", 0}, {"mem_load_retired.l1_miss", 100}};
  MetricEvaluator evaluator(*icl, MapLookup(counts));
  // (32.5 − 3.5) ns × 2 GHz × (10 HITM loads × 0.5 true-HITM share) × FB factor 1 / 1000 cycles
  EXPECT_NEAR(evaluator.Evaluate("Backend_Bound.Memory_Bound.L3_Bound.Contested_Accesses").number,
              29 * 2 * 5 / 1000.0, 1e-12);
}

TEST(MetricEvaluator, LevinthalCycleAccountingOnHaswell) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto hsw = library->ForUarch("hsw");
  ASSERT_TRUE(hsw.ok());
  // 1000 cycles, 200 with nothing dispatched; 2400 uops dispatched in the other
  // 800 (3 per cycle), 2100 of them retired: 300 wasted uops = 100 cycles.
  const std::map<std::string, double> counts = {
      {"cpu_clk_unhalted.thread", 1000}, {"uops_executed.thread:c1:i", 200},
      {"uops_executed.thread", 2400},    {"uops_retired.all", 2100}};
  MetricEvaluator evaluator(*hsw, MapLookup(counts));
  EXPECT_DOUBLE_EQ(evaluator.Evaluate("Cycle_Accounting.Stalls").number, 0.2);
  EXPECT_DOUBLE_EQ(evaluator.Evaluate("Cycle_Accounting.Non_Retired").number, 0.1);
  EXPECT_DOUBLE_EQ(evaluator.Evaluate("Cycle_Accounting.Retired").number, 0.7);
}

TEST(MetricEvaluator, AlternativesAndCorrectionTermsAreNoted) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto icl = library->ForUarch("icl");
  ASSERT_TRUE(icl.ok());
  // GP-counter fallback: no PERF_METRICS group, no UOP_DROPPING.
  const std::map<std::string, double> counts = {{"idq_uops_not_delivered.core", 250},
                                                {"slots", 1000}};
  MetricEvaluator evaluator(*icl, MapLookup(counts));
  const Value fe = evaluator.Evaluate("Frontend_Bound");
  ASSERT_TRUE(fe.measured);
  EXPECT_DOUBLE_EQ(fe.number, 0.25);
  ASSERT_EQ(evaluator.notes().size(), 2u);
  EXPECT_NE(evaluator.notes()[0].find("INT_MISC.UOP_DROPPING"), std::string::npos);
  EXPECT_NE(evaluator.notes()[1].find("computed with"), std::string::npos);
  const Value be = evaluator.Evaluate("Backend_Bound");
  EXPECT_FALSE(be.measured) << "not measured, never 0";
}

// Metrics sharing one evaluator each get the notes and errors of their own
// terms, those the memo answers included: the same as a fresh evaluator.
TEST(MetricEvaluator, EachEvaluationKeepsItsOwnTrail) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  const MetricSet* icl = library->Find("icl");
  ASSERT_NE(icl, nullptr);
  const std::map<std::string, double> counts = {{"idq_uops_not_delivered.core", 250}, {"slots", 1000}};
  MetricEvaluator shared(*icl, MapLookup(counts));
  MetricEvaluator::Trail first, again, other;
  EXPECT_DOUBLE_EQ(shared.Evaluate("Frontend_Bound", &first).number, 0.25);
  EXPECT_DOUBLE_EQ(shared.Evaluate("Frontend_Bound", &again).number, 0.25) << "from the memo";
  EXPECT_EQ(again.notes, first.notes) << "a memoised value brings its notes along";
  ASSERT_EQ(first.notes.size(), 2u);
  shared.Evaluate("Backend_Bound", &other);
  for (const std::string& note : other.notes) {
    EXPECT_EQ(std::find(first.notes.begin(), first.notes.end(), note), first.notes.end())
        << "another metric's note leaked in: " << note;
  }
  MetricEvaluator fresh(*icl, MapLookup(counts));
  MetricEvaluator::Trail alone;
  fresh.Evaluate("Backend_Bound", &alone);
  EXPECT_EQ(other.notes, alone.notes);
  EXPECT_EQ(other.errors, alone.errors);
}

}  // namespace
}  // namespace td

// Formulas evaluated on counts: TMA's per-uarch forms, notes for
// alternatives and corrections, each evaluation's own trail.
#include "runtime/analysis/metric_evaluator.h"

#include <algorithm>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "runtime/uarch/definitions.h"
#include "tests/unit/map_lookup.h"

namespace td {
namespace {

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

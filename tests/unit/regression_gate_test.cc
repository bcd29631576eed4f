#include "runtime/report/regression_gate.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace td {
namespace {

// Two regions (outer, outer/inner), one event "instructions", and a
// Level-1 tree per region with Backend_Bound.
struct GatedRun {
  RunData data;
  RunAnalysis analysis;
  GateRun gate() const { return {&data, &analysis}; }
};

GatedRun MakeRun(uint64_t inner_instructions, int64_t inner_wall_ns, double inner_backend) {
  GatedRun run;
  run.data.layout.events.resize(1);
  run.data.layout.events[0].name = "INST_RETIRED.ANY";
  run.data.layout.groups = {{0, 0, 1}};
  const std::vector<std::pair<std::string, std::string>> regions = {{"outer", "outer"}, {"inner", "outer/inner"}};
  for (size_t i = 0; i < regions.size(); ++i) {
    Region region;
    region.name = region.base_name = regions[i].first;
    region.path = regions[i].second;
    region.parent = i == 0 ? -1 : 0;
    RegionOnThread t;
    t.calls = i == 0 ? 1 : 10;
    t.wall_inclusive_ns = i == 0 ? 2 * inner_wall_ns : inner_wall_ns;
    t.events = {{i == 0 ? 2 * inner_instructions : inner_instructions, 0}};
    t.groups = {{1000, 1000}};
    region.threads.push_back(t);
    run.data.regions.push_back(region);
    TopDownResult tree;
    TreeNode backend;
    backend.name = "Backend_Bound";
    backend.level = 1;
    backend.value = inner_backend;
    tree.tree.push_back(backend);
    tree.metrics.push_back({"IPC", 1.5});
    run.analysis.regions.push_back(tree);
  }
  return run;
}

std::vector<GateRule> Rules(const std::vector<std::string>& texts) {
  std::vector<GateRule> rules;
  for (const auto& t : texts) {
    auto r = ParseGateRule(t);
    EXPECT_TRUE(r.ok()) << t << ": " << r.status();
    if (r.ok()) rules.push_back(*r);
  }
  return rules;
}

TEST(GateRule, ParsesScopesOperatorsAndUnits) {
  auto r = ParseGateRule("outer/inner:instructions>+1.5%");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->scope, "outer/inner");
  EXPECT_EQ(r->metric, "instructions");
  EXPECT_TRUE(r->above);
  EXPECT_EQ(r->unit, GateRule::Unit::kPercent);
  EXPECT_DOUBLE_EQ(r->limit, 1.5);
  r = ParseGateRule("IPC<-5%");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->above);
  r = ParseGateRule("total:Backend_Bound>5pt");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->scope, "total");
  EXPECT_EQ(r->unit, GateRule::Unit::kPoints);
  r = ParseGateRule("calls>+1000");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->unit, GateRule::Unit::kAbsolute);
}

TEST(GateRule, RefusesWhatItCannotRead) {
  for (const char* bad : {"wall", "wall=3", ">+1%", "wall>+x%", "wall>-1%", "IPC<+5%", "wall>+nan%", "wall>"}) {
    EXPECT_FALSE(ParseGateRule(bad).ok()) << bad;
  }
  EXPECT_NE(std::string(ParseGateRule("wall=3").status().message()).find("no < or >"), std::string::npos);
}

TEST(Gate, APlantedTwoPercentInstructionRegressionFailsAndTheSameRunPasses) {
  const GatedRun base = MakeRun(1'000'000, 1'000'000, 0.30);
  const GatedRun same = MakeRun(1'000'000, 1'000'000, 0.30);
  const GatedRun slower = MakeRun(1'020'000, 1'000'000, 0.30);
  const auto rules = Rules({"instructions>+1%"});
  const GateResult pass = CheckGate(rules, base.gate(), same.gate());
  EXPECT_TRUE(pass.passed());
  EXPECT_EQ(pass.checks, 2);
  const GateResult fail = CheckGate(rules, base.gate(), slower.gate());
  EXPECT_FALSE(fail.passed());
  ASSERT_EQ(fail.crossed.size(), 2u);  // outer includes inner
  EXPECT_EQ(fail.crossed[1], "outer/inner: instructions 1,000,000 -> 1,020,000 (+2.00%; limit +1%)");
}

TEST(Gate, ScopesPickARegionOrTheWholeRun) {
  const GatedRun base = MakeRun(1'000'000, 1'000'000, 0.30);
  const GatedRun slower = MakeRun(1'000'000, 1'150'000, 0.30);
  auto gate = CheckGate(Rules({"outer/inner:wall>+10%"}), base.gate(), slower.gate());
  ASSERT_EQ(gate.crossed.size(), 1u);
  EXPECT_EQ(gate.crossed[0], "outer/inner: wall 0.001 s -> 0.00115 s (+15.00%; limit +10%)");
  gate = CheckGate(Rules({"total:wall>+20%"}), base.gate(), slower.gate());
  EXPECT_TRUE(gate.passed());
  EXPECT_EQ(gate.checks, 1);
  gate = CheckGate(Rules({"nosuch:wall>+1%"}), base.gate(), slower.gate());
  ASSERT_EQ(gate.problems.size(), 1u);
  EXPECT_NE(gate.problems[0].find("has no region nosuch"), std::string::npos);
}

TEST(Gate, NodesMoveInPointsAndMetricsFallInPercent) {
  const GatedRun base = MakeRun(1'000'000, 1'000'000, 0.30);
  const GatedRun worse = MakeRun(1'000'000, 1'000'000, 0.36);
  auto gate = CheckGate(Rules({"Backend_Bound>+5pt"}), base.gate(), worse.gate());
  ASSERT_EQ(gate.crossed.size(), 2u);
  EXPECT_EQ(gate.crossed[0], "outer: Backend_Bound 30.0% -> 36.0% (+6.00 points; limit +5 points)");
  EXPECT_TRUE(CheckGate(Rules({"Backend_Bound>+7pt", "IPC<-5%"}), base.gate(), worse.gate()).passed());
}

TEST(Gate, ARuleNoRunMeasuredFailsTheGate) {
  const GatedRun base = MakeRun(1'000'000, 1'000'000, 0.30);
  const auto gate = CheckGate(Rules({"cycles>+1%"}), base.gate(), base.gate());
  EXPECT_FALSE(gate.passed());
  ASSERT_EQ(gate.problems.size(), 1u);
  EXPECT_NE(gate.problems[0].find("cycles was measured in no region both runs hold"), std::string::npos);
}

}  // namespace
}  // namespace td

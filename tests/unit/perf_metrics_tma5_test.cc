// TMA 5.x in `td import-metrics` and the analysis (issue 32): retire-latency
// terms ("EVENT:R") as the vendor's mean unless a sampled value is counted,
// with the estimate marked; renamed nodes ("formerly") that never stand
// beside their old selves; hybrid-PMU selectors in perf's syntax.
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/counters/event_encoder.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/perf_metrics_import.h"

namespace td {
namespace {

using nlohmann::json;

json Metric(const std::string& name, const std::string& expr, const std::string& groups) {
  return {{"MetricName", name}, {"MetricExpr", expr}, {"MetricGroup", groups}, {"ScaleUnit", "100%"}};
}

absl::StatusOr<PerfImportResult> Import(const json& metrics, const json& events, const std::string& uarch, bool extend) {
  PerfImportOptions options;
  options.uarch = uarch;
  options.extend = extend;
  options.tma_version = "5.2";
  std::vector<PerfInputFile> files = {{"m/x-metrics.json", metrics.dump()}};
  if (!events.empty()) files.push_back({"m/pipeline.json", events.dump()});
  return ImportPerfMetrics(files, options);
}

TEST(Tma5, RetireLatencyAndHybridSelectorsInPerfSyntax) {
  EXPECT_EQ(*TranslatePerfExpression("MEM_INST_RETIRED.LOCK_LOADS * MEM_INST_RETIRED.LOCK_LOADS:R"),
            "MEM_INST_RETIRED.LOCK_LOADS * mem_inst_retired.lock_loads:R")
      << "a plain name stays as written; a retire latency is an event term, normalised, with its :R";
  EXPECT_EQ(*TranslatePerfExpression("cpu_core@MEM_LOAD_RETIRED.L2_HIT@R / 2"), "mem_load_retired.l2_hit:R / 2");
  EXPECT_EQ(*TranslatePerfExpression("msr@tsc\\,cpu=cpu_core@ / 1e9"), "tsc / 1e9");
  EXPECT_EQ(*TranslatePerfExpression("OCR.DEMAND_RFO.L3_MISS@offcore_rsp\\=0x103b800002@"),
            "ocr.demand_rfo.l3_miss:offcore_rsp0x103b800002")
      << "td's names have no '='";
}

// A toy CPU: Level 1 from two events, a Level 2 node weighing a retired
// event by its retire latency (mean 7.5 cycles in the event file).
const json kMetrics = json::array({
    Metric("tma_backend_bound", "BE.STALLS / CLOCKS", "TopdownL1;tma_L1_group"),
    Metric("tma_frontend_bound", "1 - tma_backend_bound", "TopdownL1;tma_L1_group"),
    Metric("tma_l3_miss_bound", "LOADS.L3_MISS * LOADS.L3_MISS:R / CLOCKS", "TopdownL2;tma_L2_group;tma_backend_bound_group"),
    Metric("tma_mem_latency", "tma_l3_miss_bound / 2", "TopdownL3;tma_L3_group;tma_l3_miss_bound_group"),
});
const json kEvents = json::array({
    {{"EventName", "BE.STALLS"}, {"EventCode", "0xa2"}, {"UMask", "0x1"}},
    {{"EventName", "CLOCKS"}, {"EventCode", "0x3c"}, {"UMask", "0x0"}},
    {{"EventName", "LOADS.L3_MISS"}, {"EventCode", "0xd1"}, {"UMask", "0x20"}, {"RetirementLatencyMean", 7.5}},
});

TEST(Tma5, StaticRetireLatencyIsUsedAndMarkedUnlessSampled) {
  auto imported = Import(kMetrics, kEvents, "toy5", false);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const json& def = imported->definition;
  EXPECT_EQ(def["uarchs"]["toy5"]["constants"]["LOADS.L3_MISS:R"], 7.5);
  EXPECT_EQ(def["uarchs"]["toy5"]["tma_version"], "5.2");
  auto library = DefinitionLibrary::FromTexts({{"toy5.json", def.dump()}});
  ASSERT_TRUE(library.ok()) << library.status();
  const MetricSet* set = library->Find("toy5");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->tma_version, "5.2");
  const std::string l3 = "Backend_Bound.L3_Miss_Bound";
  EXPECT_EQ(set->FindNode(l3)->estimated, kStaticRetireLatency);
  EXPECT_EQ(set->FindNode(l3 + ".MEM_Latency")->estimated, kStaticRetireLatency) << "through its parent's value";
  EXPECT_EQ(set->FindNode("Backend_Bound")->estimated, "");

  std::map<std::string, double> counts = {{"be.stalls", 400}, {"clocks", 1000}, {"loads.l3_miss", 20}};
  auto lookup = [&counts](const std::vector<std::string>& spellings, std::string*) -> std::optional<double> {
    for (const std::string& s : spellings) {
      if (auto it = counts.find(s); it != counts.end()) return it->second;
    }
    return std::nullopt;
  };
  TopDownResult estimated = AnalyzeCounts(*set, lookup);
  ASSERT_TRUE(estimated.Find(l3)->value);
  EXPECT_DOUBLE_EQ(*estimated.Find(l3)->value, 20 * 7.5 / 1000);
  EXPECT_DOUBLE_EQ(*estimated.Find(l3 + ".MEM_Latency")->value, 20 * 7.5 / 1000 / 2);
  EXPECT_EQ(estimated.Find(l3)->estimated, kStaticRetireLatency);
  EXPECT_EQ(estimated.Find(l3 + ".MEM_Latency")->estimated, kStaticRetireLatency);
  EXPECT_EQ(estimated.Find("Backend_Bound")->estimated, "");

  counts["loads.l3_miss:r"] = 31;  // sampled (perf stat --record-tpebs)
  TopDownResult sampled = AnalyzeCounts(*set, lookup);
  EXPECT_DOUBLE_EQ(*sampled.Find(l3)->value, 20 * 31.0 / 1000);
  EXPECT_EQ(sampled.Find(l3)->estimated, "");
}

TEST(Tma5, RenamedNodesAnswerToTheirOldNames) {
  auto imported = Import(kMetrics, kEvents, "toy5", false);
  ASSERT_TRUE(imported.ok()) << imported.status();
  auto library = DefinitionLibrary::FromTexts({{"toy5.json", imported->definition.dump()}});
  ASSERT_TRUE(library.ok()) << library.status();
  const MetricSet* set = library->Find("toy5");
  const FormulaDefinition* node = set->FindNode("Backend_Bound.DRAM_Bound");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->name, "Backend_Bound.L3_Miss_Bound");
  ASSERT_NE(set->FindNode("Backend_Bound.DRAM_Bound.MEM_Latency"), nullptr) << "the nodes under it too";
  const TopDownResult result = AnalyzeCounts(*set, [](const std::vector<std::string>&, std::string*) {
    return std::optional<double>(5);
  });
  ASSERT_NE(result.Find("Backend_Bound.DRAM_Bound"), nullptr);
  TreeNode older;
  older.name = "Backend_Bound.DRAM_Bound";
  EXPECT_EQ(result.FindSame(older)->name, "Backend_Bound.L3_Miss_Bound") << "compare across TMA versions";
}

TEST(Tma5, ATreeNeverHoldsANodeAndItsRenamedTwin) {
  const std::string twins = R"({"uarchs": {"x": {}}, "nodes": [
      {"name": "A", "level": 1, "formula": "1"},
      {"name": "A.DRAM_Bound", "level": 2, "formula": "1"},
      {"name": "A.L3_Miss_Bound", "level": 2, "formula": "1", "formerly": ["A.DRAM_Bound"]}]})";
  auto library = DefinitionLibrary::FromTexts({{"twins.json", twins}});
  ASSERT_FALSE(library.ok());
  EXPECT_NE(library.status().message().find("A.L3_Miss_Bound is A.DRAM_Bound renamed"), std::string::npos)
      << library.status();
}

// perf's offcore_rsp= term (Granite Rapids' False_Sharing counts
// OCR.DEMAND_RFO.L3_MISS with another response than its event file's): the
// formula's value goes to config1, and td programs it from its table.
TEST(Tma5, OffcoreResponseTermsAreProgrammedThroughConfig1) {
  const json metrics = json::array({
      Metric("tma_backend_bound", "OCR.DEMAND_RFO.L3_MISS@offcore_rsp\\=0x103b800002@ / CLOCKS", "TopdownL1;tma_L1_group"),
  });
  const json events = json::array({
      {{"EventName", "OCR.DEMAND_RFO.L3_MISS"}, {"EventCode", "0x2A,0x2B"}, {"UMask", "0x1"},
       {"MSRIndex", "0x1a6,0x1a7"}, {"MSRValue", "0x3F3FC00002"}},
      {{"EventName", "CLOCKS"}, {"EventCode", "0x3c"}, {"UMask", "0x0"}},
  });
  auto imported = Import(metrics, events, "toy5", false);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->definition["nodes"][0]["formula"], "OCR.DEMAND_RFO.L3_MISS:offcore_rsp0x103b800002 / CLOCKS");
  auto library = DefinitionLibrary::FromTexts({{"toy5.json", imported->definition.dump()}});
  ASSERT_TRUE(library.ok()) << library.status();
  const EventDefinition* event = library->Find("toy5")->FindEvent("OCR.DEMAND_RFO.L3_MISS:offcore_rsp0x103b800002");
  ASSERT_NE(event, nullptr);
  EXPECT_EQ(event->RawConfig(), 0x12au);
  EXPECT_EQ(event->RawConfig1(), 0x103b800002u);
  auto encoded = EncodeEvent("OCR.DEMAND_RFO.L3_MISS:offcore_rsp0x103b800002", "toy5", *library);
  ASSERT_TRUE(encoded.ok()) << encoded.status();
  EXPECT_EQ(encoded->config, 0x12au);
  EXPECT_EQ(encoded->config1, 0x103b800002u);
}

// Extending td's own skx with a newer file: its L3_Miss_Bound is td's
// DRAM_Bound, so what lies under it goes under DRAM_Bound and no twin appears.
TEST(Tma5, ExtendingAnOlderTreeAddsNoTwin) {
  const json metrics = json::array({
      Metric("tma_backend_bound", "1", "TopdownL1;tma_L1_group"),
      Metric("tma_memory_bound", "1", "TopdownL2;tma_L2_group;tma_backend_bound_group"),
      Metric("tma_l3_miss_bound", "CYCLE_ACTIVITY.STALLS_L3_MISS / CPU_CLK_UNHALTED.THREAD",
             "TopdownL3;tma_L3_group;tma_memory_bound_group"),
      Metric("tma_new_remote", "tma_l3_miss_bound / 3", "TopdownL4;tma_L4_group;tma_l3_miss_bound_group"),
  });
  auto imported = Import(metrics, json::array(), "skx", true);
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::vector<std::string> names;
  for (const json& n : imported->definition["nodes"]) names.push_back(n["name"]);
  EXPECT_EQ(names, std::vector<std::string>{"Backend_Bound.Memory_Bound.DRAM_Bound.New_Remote"});
  EXPECT_EQ(imported->definition["nodes"][0]["formula"], "Backend_Bound.Memory_Bound.DRAM_Bound / 3");
}

}  // namespace
}  // namespace td

// `td import-metrics` on perf's Arm and AMD files
// (runtime/uarch/perf_metrics_arm_amd.cc):
//  - Neoverse V3: the shipped key (runtime/uarch/definitions/arm_neoverse_v3.json,
//    scripts/regenerate_arm.sh) is what the import makes of the V3 file and
//    sbsa.json, td recognises the part, and every node agrees with the file's
//    own MetricExpr on 200 consistent count vectors;
//  - sbsa.json with V1's file gives td's hand-written neoverse_v1 Level 1;
//  - AMD's pipeline files (Zen 4, Zen 5) land on td's node names and agree
//    with perf's expressions and with td's own amd_zen.json.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/perf_metrics_import.h"
#include "tests/support/build_paths.h"
#include "tests/unit/perf_metrics_testing.h"

namespace td {
namespace {

using namespace perf_testing;  // NOLINT: the shared helpers of the perf tests
using nlohmann::json;

constexpr int kVectors = 200;

// An input as scripts/regenerate_arm.sh names it: the repository path, so the
// file's "source" is the same on every machine.
PerfInputFile Input(const std::string& under_perf_metrics) {
  std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/perf-metrics/" + under_perf_metrics);
  EXPECT_TRUE(in.good()) << under_perf_metrics;
  std::stringstream text;
  text << in.rdbuf();
  return {"tests/data/perf-metrics/" + under_perf_metrics, text.str()};
}

PerfImportResult Import(const std::vector<std::string>& inputs, const std::string& uarch, PerfImportOptions options) {
  std::vector<PerfInputFile> files;
  for (const std::string& i : inputs) {
    files.push_back(Input(i));
    options.paths.push_back(files.back().path);
  }
  options.uarch = uarch;
  auto result = ImportPerfMetrics(files, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : PerfImportResult{};
}

// The options scripts/regenerate_arm.sh gives for the shipped neoverse_v3.
PerfImportOptions NeoverseV3Options() {
  PerfImportOptions o;
  o.cpus = {*ParsePerfCpu("0x41:0xd84")};
  o.slots = 10;
  o.origin = "Linux perf's arm64 pmu-events: arm/neoverse-v3/metrics.json from a kernel tree after 6.12, "
             "sbsa.json from 6.12.117 (GPL-2.0)";
  return o;
}
const std::vector<std::string> kV3Inputs = {"arm64/arm/neoverse-v3/metrics.json", "arm64/sbsa.json"};

// The key's set, with `imported` loaded beside td's own files when given.
std::optional<MetricSet> SetOf(const std::string& uarch, const PerfImportResult* imported = nullptr) {
  std::vector<std::pair<std::string, std::string>> texts = EmbeddedDefinitionFiles();
  if (imported != nullptr) texts.emplace_back(uarch + ".json", imported->definition.dump());
  auto library = DefinitionLibrary::FromTexts(texts);
  EXPECT_TRUE(library.ok()) << library.status();
  if (!library.ok()) return std::nullopt;
  auto set = library->ForUarch(uarch);
  EXPECT_TRUE(set.ok()) << set.status();
  if (!set.ok()) return std::nullopt;
  return *std::move(set);
}

bool Same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

TopDownResult Evaluate(const MetricSet& set, const Counts& counts) {
  EvaluationOptions options;
  options.constants["SMT_on"] = 0;
  return AnalyzeCounts(set, LookupIn(counts), options);
}

// Neoverse V3: 10 slots a cycle; the flush cycles fit in the frontend's stalls.
Counts ArmVector(std::mt19937_64& rng, double width) {
  const double cycles = Uniform(rng, 1e6, 1e10);
  Counts c;
  c["cpu_cycles"] = cycles;
  RelateArm(rng, cycles, &c, width);
  c["stall_frontend_flush"] = Uniform(rng, 0, c["stall_slot_frontend"] / width);
  return c;
}

TEST(PerfMetricsArm, NeoverseV3IsShippedCurrentAndRecognised) {
  const PerfImportResult made = Import(kV3Inputs, "neoverse_v3", NeoverseV3Options());
  std::printf("neoverse_v3: %d nodes (Levels %d-%d), %d events, %zu not translated\n", made.nodes, made.min_level,
              made.max_level, made.events, made.skipped.size());
  EXPECT_EQ(made.nodes, 4);
  json shipped;
  for (const auto& [file, text] : EmbeddedDefinitionFiles()) {
    if (file == "arm_neoverse_v3.json") shipped = json::parse(text);
  }
  EXPECT_EQ(shipped, made.definition) << "run scripts/regenerate_arm.sh and commit the result";
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const std::vector<std::string> keys = library->Uarchs();  // what `td uarchs` lists
  EXPECT_NE(std::find(keys.begin(), keys.end(), "neoverse_v3"), keys.end());
  EXPECT_EQ(library->IdentifyCpuid("0x410fd840").value_or(""), "neoverse_v3");
  EXPECT_EQ(library->IdentifyCpuid("0x410fd4f1").value_or(""), "neoverse_v2");  // the hand-written keys stay
  const MetricSet* set = library->Find("neoverse_v3");
  ASSERT_NE(set, nullptr);
  const std::map<std::string, std::string> configs = {{"CPU_CYCLES", "0x11"},          {"STALL_SLOT", "0x3f"},
                                                      {"STALL_SLOT_FRONTEND", "0x3e"}, {"STALL_SLOT_BACKEND", "0x3d"},
                                                      {"OP_SPEC", "0x3b"},             {"OP_RETIRED", "0x3a"},
                                                      {"STALL_FRONTEND_FLUSH", "0x8162"}};
  for (const auto& [name, config] : configs) {
    const EventDefinition* e = set->FindEvent(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->config, config) << name;
  }
}

TEST(PerfMetricsArm, NeoverseV3AgreesWithItsMetricsFileOnEveryVector) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const MetricSet* set = library->Find("neoverse_v3");
  ASSERT_NE(set, nullptr);
  const PerfMetrics perf = LoadPerf(kV3Inputs, "");
  const std::map<std::string, double> literals = {{"slots", 10}};  // perf's #slots: V3's PMU caps/slots
  std::mt19937_64 rng(64);
  std::map<std::string, int> agree, flags_agree;
  int levels = 0;
  for (int v = 0; v < kVectors; ++v) {
    const Counts counts = ArmVector(rng, 10);
    const TopDownResult td = Evaluate(*set, counts);
    PerfEvaluator theirs(perf, counts, literals, 0x410fd840);
    for (const FormulaDefinition& node : set->nodes) {
      if (node.level < 1) continue;
      levels = std::max(levels, node.level);
      const std::string name = absl::AsciiStrToLower(node.name);
      ASSERT_TRUE(perf.count(name)) << name;
      const TreeNode* mine = td.Find(node.name);
      const Value p = theirs.Metric(name);
      ASSERT_TRUE(mine != nullptr && mine->value && p.measured)
          << node.name << ": " << (mine == nullptr ? "no node" : mine->why_not) << " / perf: " << p.missing;
      agree[node.name] += Same(*mine->value, p.number * perf.at(name).scale);
      // The file gives no MetricThreshold: neither side ever flags.
      flags_agree[node.name] += perf.at(name).threshold.empty() && !mine->flagged;
    }
  }
  EXPECT_EQ(agree.size(), 4u);
  for (const auto& [node, n] : agree) {
    std::printf("neoverse_v3 %s (Levels 1-%d): values %d/%d, flags %d/%d\n", node.c_str(), levels, n, kVectors,
                flags_agree[node], kVectors);
    EXPECT_EQ(n, kVectors) << node;
    EXPECT_EQ(flags_agree[node], kVectors) << node;
  }
}

// perf 6.12's V1 file with sbsa.json makes td's hand-written neoverse_v1 Level 1;
// the N2/V2 file's erratum test (strcmp_cpuid_str) is not translated, which
// is why the hand-written keys stay (docs/counters.md).
TEST(PerfMetricsArm, SbsaWithV1MatchesTdsNeoverseV1AndN2NeedsTheHandWrittenKey) {
  PerfImportOptions v1;  // no --cpu: td's own neoverse_v1 has the part
  v1.slots = 8;
  const PerfImportResult made = Import({"arm64/arm/neoverse-v1/metrics.json", "arm64/sbsa.json"}, "v1_perf", v1);
  EXPECT_EQ(made.nodes, 4);
  const std::optional<MetricSet> imported = SetOf("v1_perf", &made);
  const std::optional<MetricSet> own = SetOf("neoverse_v1");
  ASSERT_TRUE(imported && own);
  std::mt19937_64 rng(8);
  int values = 0, agreeing = 0;
  for (int v = 0; v < kVectors; ++v) {
    const Counts counts = ArmVector(rng, 8);
    const TopDownResult a = Evaluate(*imported, counts), b = Evaluate(*own, counts);
    for (const FormulaDefinition& node : imported->nodes) {
      if (node.level < 1) continue;  // td's generic metrics (IPC …) come with every key
      const TreeNode *x = a.Find(node.name), *y = b.Find(node.name);
      ASSERT_TRUE(x && y && x->value && y->value) << node.name;
      ++values;
      agreeing += Same(*x->value, *y->value);
    }
  }
  std::printf("neoverse_v1 from sbsa.json + v1 file vs td's own: %d/%d values agree\n", agreeing, values);
  EXPECT_EQ(agreeing, values);

  PerfImportOptions n2;
  n2.slots = 5;
  const PerfImportResult n2_made = Import({"arm64/arm/neoverse-n2-v2/metrics.json", "arm64/sbsa.json"}, "n2_perf", n2);
  EXPECT_EQ(n2_made.nodes, 1);  // backend_bound only
  int cpuid_skips = 0;
  for (const std::string& s : n2_made.skipped) cpuid_skips += s.find("strcmp_cpuid_str") != std::string::npos;
  EXPECT_EQ(cpuid_skips, 3);
}

// An arm64 core directory: event files of ArchStdEvent names (Arm's numbers)
// and implementation-defined events, whose EventCode is the config itself.
TEST(PerfMetricsArm, EventFilesBesideTheMetricsGiveImplementationDefinedEvents) {
  const json metrics = {{{"MetricName", "frontend_bound"}, {"MetricGroup", "TopdownL1"}, {"ScaleUnit", "100%"},
                         {"MetricExpr", "IMPL_STALL / CPU_CYCLES"}},
                        {{"ArchStdEvent", "retiring"}, {"MetricGroup", "TopdownL1"},
                         {"MetricExpr", "OP_RETIRED / (#slots * CPU_CYCLES)"}}};
  const json events = {{{"ArchStdEvent", "CPU_CYCLES"}}, {{"EventName", "IMPL_STALL"}, {"EventCode", "0x8123"}}};
  PerfImportOptions options;
  options.uarch = "toy_arm";
  options.slots = 4;
  auto result = ImportPerfMetrics({{"metrics.json", metrics.dump(), true}, {"pipeline.json", events.dump(), true}}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  // retiring: no standard metric among the inputs, but all it needs in its own entry.
  EXPECT_EQ(result->nodes, 2);
  std::map<std::string, std::string> configs;
  for (const json& e : result->definition["events"]) configs[e["name"]] = e["encoding"]["config"];
  EXPECT_EQ(configs["IMPL_STALL"], "0x8123");
  EXPECT_EQ(configs["CPU_CYCLES"], "0x11");
  EXPECT_EQ(configs["OP_RETIRED"], "0x3a");
  EXPECT_EQ(result->definition["uarchs"]["toy_arm"]["constants"]["Pipeline_Width"], 4);
  EXPECT_EQ(result->definition["counters"]["cycles"], "0x11");
}

// Zen 4/5's counts: the dispatch slots split among frontend, backend, SMT
// contention and dispatched ops; retired within dispatched, parts within wholes.
Counts AmdVector(std::mt19937_64& rng, double width) {
  const double cycles = Uniform(rng, 1e6, 1e10);
  Counts c;
  c["ls_not_halted_cyc"] = cycles;
  Split(rng, width * cycles,
        {"de_no_dispatch_per_slot.no_ops_from_frontend", "de_no_dispatch_per_slot.backend_stalls",
         "de_no_dispatch_per_slot.smt_contention", "de_src_op_disp.all"},
        &c);
  c["ex_ret_ops"] = Uniform(rng, c["de_src_op_disp.all"] / 2, c["de_src_op_disp.all"]);
  c["ex_ret_ucode_ops"] = Uniform(rng, 0, c["ex_ret_ops"] / 10);
  const double starved = Uniform(rng, 0, c["de_no_dispatch_per_slot.no_ops_from_frontend"] / width);
  c[absl::StrFormat("de_no_dispatch_per_slot.no_ops_from_frontend:c%d", static_cast<int>(width))] = starved;
  c["ex_ret_brn_misp"] = Uniform(rng, 1, cycles / 100);
  c["bp_redirects.resync"] = c["resyncs_or_nc_redirects"] = Uniform(rng, 1, cycles / 1000);
  c["ex_no_retire.not_complete"] = Uniform(rng, 1, cycles);
  c["ex_no_retire.load_not_complete"] = Uniform(rng, 0, c["ex_no_retire.not_complete"]);
  return c;
}

struct AmdSpec {
  std::string uarch, file;
  double width;
};

// The test's name in gtest's messages, not the bytes of the struct.
void PrintTo(const AmdSpec& spec, std::ostream* out) { *out << spec.uarch; }

class AmdPipeline : public ::testing::TestWithParam<AmdSpec> {};

TEST_P(AmdPipeline, LandsOnTdsNamesAndAgreesWithPerfAndAmdZen) {
  const AmdSpec& spec = GetParam();
  PerfImportOptions options;
  options.kernel = "6.12.117";
  const PerfImportResult made = Import({spec.file}, spec.uarch + "_perf", options);
  const std::optional<MetricSet> imported = SetOf(spec.uarch + "_perf", &made);
  const std::optional<MetricSet> own = SetOf(spec.uarch);
  ASSERT_TRUE(imported && own);
  std::set<std::string> mine, tds;
  for (const FormulaDefinition& n : imported->nodes) {
    if (n.level >= 1) mine.insert(n.name);
  }
  for (const FormulaDefinition& n : own->nodes) {
    if (n.level >= 1) tds.insert(n.name);
  }
  EXPECT_EQ(mine, tds);
  const PerfMetrics perf = LoadPerf({spec.file}, "");
  const std::map<std::string, double> no_literals;
  std::mt19937_64 rng(4);
  int values = 0, with_perf = 0, with_td = 0;
  for (int v = 0; v < kVectors; ++v) {
    const Counts counts = AmdVector(rng, spec.width);
    const TopDownResult a = Evaluate(*imported, counts), b = Evaluate(*own, counts);
    PerfEvaluator theirs(perf, counts, no_literals, 0);
    for (const json& node : made.definition["nodes"]) {
      const std::string name = node["name"].get<std::string>();
      const TreeNode *x = a.Find(name), *y = b.Find(name);
      const Value p = theirs.Metric(node["perf_metric"].get<std::string>());
      ASSERT_TRUE(x && y && x->value && y->value && p.measured) << name;
      ++values;
      with_perf += Same(*x->value, p.number);
      with_td += Same(*x->value, *y->value);
    }
  }
  std::printf("%s_perf: %d nodes; values agree with perf's %d/%d, with td's amd_zen.json %d/%d\n", spec.uarch.c_str(),
              made.nodes, with_perf, values, with_td, values);
  EXPECT_EQ(made.nodes, 13);
  EXPECT_EQ(with_perf, values);
  EXPECT_EQ(with_td, values);
}

INSTANTIATE_TEST_SUITE_P(Perf612, AmdPipeline,
                         ::testing::Values(AmdSpec{"zen4", "x86/amdzen4/pipeline.json", 6},
                                           AmdSpec{"zen5", "x86/amdzen5/pipeline.json", 8}),
                         [](const ::testing::TestParamInfo<AmdSpec>& info) { return info.param.uarch; });

}  // namespace
}  // namespace td

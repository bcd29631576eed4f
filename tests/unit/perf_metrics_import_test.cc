// `td import-metrics` (runtime/uarch/perf_metrics_import.h): Linux perf
// 6.12's metric and event JSON, copied into tests/data/perf-metrics with their
// provenance, imported into td definition files and checked
//  - against perf's own expressions, evaluated directly on generated count
//    vectors, node by node, value and flag, on every vector (skylakex and
//    both PMUs of alderlake, which td also ships; the names must be td's);
//  - for a CPU td does not ship (sierraforest): the file loads from a
//    TD_METRICS_DIR-style directory, the CPU is recognised, Levels 1-3 are
//    there, and a case analysed by td recompute gives perf's values.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/perf_case.h"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/perf_metrics_import.h"
#include "tests/support/build_paths.h"
#include "tests/unit/perf_metrics_testing.h"

namespace td {
namespace {

using namespace perf_testing;  // NOLINT: the shared helpers of the perf tests

std::string PerfData(const std::string& relative) {
  return std::string(TD_TEST_DATA_DIR) + "/perf-metrics/" + relative;
}

PerfImportResult Import(const std::string& dir, const std::string& uarch, const std::string& pmu,
                        std::vector<PerfCpu> cpus = {}) {
  auto files = ReadPerfInputs({PerfData(dir)});
  EXPECT_TRUE(files.ok()) << files.status();
  PerfImportOptions options;
  options.uarch = uarch;
  options.pmu = pmu;
  options.kernel = "6.12.117";
  options.cpus = std::move(cpus);
  options.paths = {"tests/data/perf-metrics/" + dir};
  auto result = ImportPerfMetrics(*files, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : PerfImportResult{};
}

// Crestmont (Sierra Forest): 6 slots a cycle, the Level-1 ALL_P counts
// share the slots, their parts add up to them.
void RelateCrestmont(std::mt19937_64& rng, double cycles, Counts* c) {
  RelateTime(rng, cycles, c);
  const double slots = 6 * cycles;
  Split(rng, slots,
        {"topdown_fe_bound.all_p", "topdown_be_bound.all_p", "topdown_retiring.all_p", "topdown_bad_speculation.all_p"},
        c);
  Split(rng, (*c)["topdown_fe_bound.all_p"], {"topdown_fe_bound.frontend_latency", "topdown_fe_bound.frontend_bandwidth"},
        c);
  Split(rng, (*c)["topdown_fe_bound.frontend_latency"],
        {"topdown_fe_bound.icache", "topdown_fe_bound.itlb_miss", "topdown_fe_bound.branch_detect",
         "topdown_fe_bound.branch_resteer"},
        c);
  Split(rng, (*c)["topdown_fe_bound.frontend_bandwidth"],
        {"topdown_fe_bound.cisc", "topdown_fe_bound.decode", "topdown_fe_bound.predecode", "topdown_fe_bound.other"}, c);
  Split(rng, (*c)["topdown_bad_speculation.all_p"],
        {"topdown_bad_speculation.mispredict", "topdown_bad_speculation.machine_clears"}, c);
  Split(rng, (*c)["topdown_bad_speculation.machine_clears"],
        {"topdown_bad_speculation.nuke", "topdown_bad_speculation.fastnuke"}, c);
  Split(rng, (*c)["topdown_be_bound.all_p"],
        {"topdown_be_bound.alloc_restrictions", "topdown_be_bound.mem_scheduler", "topdown_be_bound.non_mem_scheduler",
         "topdown_be_bound.register", "topdown_be_bound.reorder_buffer", "topdown_be_bound.serialization"},
        c);
}

struct ImportSpec {
  std::string name;     // test name
  std::string dir;      // under tests/data/perf-metrics
  std::string metrics;  // the metrics file, for perf's side
  std::string pmu;
  std::string uarch;    // the key the import gets
  std::function<void(std::mt19937_64&, double cycles, Counts*)> relate;
};

struct Agreement {
  int nodes = 0, nodes_agreeing = 0;
  long values = 0, values_agreeing = 0, flags = 0, flags_agreeing = 0;
  std::vector<std::string> examples;
};

Counts Vector(std::mt19937_64& rng, const std::set<std::string>& events, const ImportSpec& spec) {
  const double cycles = Uniform(rng, 1e6, 1e10);
  Counts counts;
  for (const std::string& e : events) counts[e] = Uniform(rng, 0, cycles / 10);
  for (const char* clock : {"cycles", "cpu_clk_unhalted.thread", "cpu_clk_unhalted.thread_p", "cpu_clk_unhalted.core",
                            "cpu_clk_unhalted.core_p", "cpu_clk_unhalted.distributed"}) {
    if (counts.count(clock)) counts[clock] = cycles;
  }
  spec.relate(rng, cycles, &counts);
  return counts;
}

bool Same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

Agreement CompareWithPerf(const ImportSpec& spec, int vectors) {
  Agreement out;
  const PerfImportResult imported = Import(spec.dir, spec.uarch, spec.pmu);
  std::vector<std::pair<std::string, std::string>> texts = EmbeddedDefinitionFiles();
  texts.emplace_back(spec.uarch + ".json", imported.definition.dump());
  auto library = DefinitionLibrary::FromTexts(texts);
  EXPECT_TRUE(library.ok()) << library.status();
  if (!library.ok()) return out;
  const MetricSet* set = library->Find(spec.uarch);
  EXPECT_NE(set, nullptr);
  if (set == nullptr) return out;
  const PerfMetrics perf = LoadPerf({spec.metrics}, spec.pmu);
  std::vector<std::pair<std::string, std::string>> pairs;  // td node, perf metric
  std::vector<std::string> perf_names;
  for (const auto& node : imported.definition["nodes"]) {
    pairs.emplace_back(node["name"].get<std::string>(), node["perf_metric"].get<std::string>());
    perf_names.push_back(pairs.back().second);
  }
  const std::set<std::string> events = NeededEvents(perf, perf_names, *set);
  std::map<std::string, Agreement> per_node;
  const std::map<std::string, double> literals = {{"SMT_on", 0}, {"core_wide", 0}};  // perf per thread, SMT off
  std::mt19937_64 rng(16);
  for (int v = 0; v < vectors; ++v) {
    const Counts counts = Vector(rng, events, spec);
    EvaluationOptions options;
    options.constants["SMT_on"] = 0;
    const TopDownResult td = AnalyzeCounts(*set, LookupIn(counts), options);
    PerfEvaluator perf_eval(perf, counts, literals, 0);
    for (const auto& [node, name] : pairs) {
      Agreement& a = per_node[node];
      const TreeNode* mine = td.Find(node);
      const Value theirs = perf_eval.Metric(name);
      ++a.values;
      if (mine == nullptr || !mine->value || !theirs.measured) {
        a.examples.push_back(mine == nullptr ? "td: no node" : !mine->value ? "td: " + mine->why_not : "perf: " + theirs.missing);
        continue;
      }
      if (Same(*mine->value, theirs.number)) {
        ++a.values_agreeing;
      } else {
        a.examples.push_back(absl::StrFormat("td %.9g, perf %.9g", *mine->value, theirs.number));
      }
      if (!perf.at(name).threshold.empty()) {
        const Value flag = perf_eval.Threshold(name);
        ++a.flags;
        if (flag.measured && (flag.number != 0) == mine->flagged) {
          ++a.flags_agreeing;
        } else {
          a.examples.push_back(absl::StrFormat("flag: td %d, perf %s", mine->flagged,
                                               flag.measured ? (flag.number != 0 ? "1" : "0") : "not computed"));
        }
      }
    }
  }
  for (const auto& [node, a] : per_node) {
    ++out.nodes;
    const bool agrees = a.values == vectors && a.values_agreeing == a.values && a.flags_agreeing == a.flags;
    out.nodes_agreeing += agrees;
    out.values += a.values;
    out.values_agreeing += a.values_agreeing;
    out.flags += a.flags;
    out.flags_agreeing += a.flags_agreeing;
    if (!agrees) out.examples.push_back(node + ": " + (a.examples.empty() ? "?" : a.examples.front()));
  }
  return out;
}

class ImportedMatchesPerf : public ::testing::TestWithParam<ImportSpec> {};

TEST_P(ImportedMatchesPerf, EveryNodeValueAndFlagOnEveryVector) {
  const ImportSpec& spec = GetParam();
  constexpr int kVectors = 200;
  const Agreement a = CompareWithPerf(spec, kVectors);
  std::printf("%s: %d of %d imported nodes agree with perf 6.12 on all %d vectors; values %ld/%ld, flags %ld/%ld\n",
              spec.uarch.c_str(), a.nodes_agreeing, a.nodes, kVectors, a.values_agreeing, a.values, a.flags_agreeing,
              a.flags);
  EXPECT_GT(a.nodes, 20);
  EXPECT_EQ(a.nodes_agreeing, a.nodes);
  for (const std::string& e : a.examples) ADD_FAILURE() << e;
}

INSTANTIATE_TEST_SUITE_P(
    Perf612, ImportedMatchesPerf,
    ::testing::Values(
        ImportSpec{"skx", "x86/skylakex", "x86/skylakex/skx-metrics.json", "", "skx_perf",
                   [](std::mt19937_64& rng, double cycles, Counts* c) { RelateSkylake(rng, cycles, c); }},
        ImportSpec{"adl_glc", "x86/alderlake", "x86/alderlake/adl-metrics.json", "cpu_core", "adl_glc_perf",
                   [](std::mt19937_64& rng, double cycles, Counts* c) { RelateGoldenCove(rng, cycles, c); }},
        ImportSpec{"adl_grt", "x86/alderlake", "x86/alderlake/adl-metrics.json", "cpu_atom", "adl_grt_perf",
                   [](std::mt19937_64& rng, double cycles, Counts* c) { RelateGracemont(rng, cycles, c); }},
        ImportSpec{"srf", "x86/sierraforest", "x86/sierraforest/srf-metrics.json", "", "srf_perf",
                   [](std::mt19937_64& rng, double cycles, Counts* c) { RelateCrestmont(rng, cycles, c); }}),
    [](const ::testing::TestParamInfo<ImportSpec>& info) { return info.param.name; });

// The imported files name their nodes as td's own definitions do: every node
// td defines for the same CPU is in the import under the same path, except
// td's own additions (docs/analysis.md, "td-only nodes").
TEST(PerfMetricsImport, NodeNamesAreTdsNames) {
  // td's own files: perf 6.12 names its nodes as they are (the vendor's newer trees rename some).
  auto builtin = DefinitionLibrary::FromTexts(OwnDefinitionFiles());
  ASSERT_TRUE(builtin.ok());
  const std::set<std::string> td_only = {"Backend_Bound_Aux", "Retiring.Base", "Retiring.MS_Uops",
                                         "Backend_Bound.Resource_Bound.Mem_Scheduler.ST_Buffer"};
  for (const auto& [dir, pmu, uarch] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"x86/skylakex", "", "skx"}, {"x86/alderlake", "cpu_core", "adl_glc"}, {"x86/alderlake", "cpu_atom", "adl_grt"}}) {
    const PerfImportResult imported = Import(dir, uarch + "_perf", pmu);
    std::map<std::string, int> levels;
    for (const auto& node : imported.definition["nodes"]) levels[node["name"]] = node["level"];
    int shared = 0;
    for (const FormulaDefinition& node : builtin->Find(uarch)->nodes) {
      if (node.level < 1 || td_only.count(node.name)) continue;
      ++shared;
      ASSERT_TRUE(levels.count(node.name)) << uarch << ": td's " << node.name << " is not in the import";
      EXPECT_EQ(levels[node.name], node.level) << node.name;
    }
    EXPECT_GT(shared, 20) << uarch;
  }
  EXPECT_EQ(TdNodeNameForPerf("tma_dram_bound"), "DRAM_Bound");
  EXPECT_EQ(TdNodeNameForPerf("tma_mem_bandwidth"), "MEM_Bandwidth");
  EXPECT_EQ(TdNodeNameForPerf("tma_icache_misses"), "ICache_Misses");
  EXPECT_EQ(TdNodeNameForPerf("tma_ports_utilized_3m"), "Ports_Utilized_3m");
  EXPECT_EQ(TdNodeNameForPerf("tma_4k_aliasing"), "4K_Aliasing");
}

// The translator: perf's constructs, and one clear error for the others.
TEST(PerfMetricsImport, TranslatesPerfSyntaxAndNamesWhatItCannot) {
  EXPECT_EQ(*TranslatePerfExpression("(a + b) / 1e9 if #SMT_on else min(c, d_ratio(e, f))"),
            "(a + b) / 1e9 if #SMT_on else min(c, d_ratio(e, f))");
  EXPECT_EQ(*TranslatePerfExpression("cpu_core@INT_MISC.CLEAR_RESTEER_CYCLES\\,cmask\\=1\\,edge@ / tma_x"),
            "int_misc.clear_resteer_cycles:c1:e / tma_x");
  EXPECT_EQ(*TranslatePerfExpression("tma_a > 0.1 & (tma_b > 0.2 | tma_c ^ 1)"), "tma_a > 0.1 and (tma_b > 0.2 or (not tma_c))");
  EXPECT_EQ(*TranslatePerfExpression("cpu_core@topdown\\-be\\-bound@ / msr@tsc@"), "topdown-be-bound / tsc");
  EXPECT_EQ(TranslatePerfExpression("has_event(FOO) * 2").status().message(), "function has_event()");
  EXPECT_EQ(TranslatePerfExpression("source_count(UNC_X) * 2").status().message(), "function source_count()");
  EXPECT_FALSE(TranslatePerfExpression("a >= b").ok());
  // Names go through the mapper: a privilege modifier reaches it.
  std::vector<PerfExprName> seen;
  auto mapped = TranslatePerfExpression("cpu@CPU_CLK_UNHALTED.CORE_P@k / X.Y:u", [&](const PerfExprName& n) {
    seen.push_back(n);
    return absl::StatusOr<std::string>("N");
  });
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(*mapped, "N / N");
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].text, "cpu_clk_unhalted.core_p");
  EXPECT_EQ(seen[0].modifiers, "k");
  EXPECT_EQ(seen[1].modifiers, "u");
}

// One line per metric that is not translated, never a formula without it.
TEST(PerfMetricsImport, UnknownConstructsSkipTheMetricWithOneLine) {
  const nlohmann::json metrics = {
      {{"MetricName", "tma_frontend_bound"}, {"MetricExpr", "FOO.BAR / CPU_CLK_UNHALTED.THREAD"},
       {"MetricGroup", "TopdownL1;tma_L1_group"}, {"MetricThreshold", "tma_frontend_bound > 0.15"}},
      {{"MetricName", "tma_backend_bound"}, {"MetricExpr", "has_event(FOO.BAR) * FOO.BAR"},
       {"MetricGroup", "TopdownL1;tma_L1_group"}},
      {{"MetricName", "tma_memory_bound"}, {"MetricExpr", "tma_backend_bound / 2"},
       {"MetricGroup", "TopdownL2;tma_L2_group;tma_backend_bound_group"}},
      {{"MetricName", "tma_retiring"}, {"MetricExpr", "cpu@FOO.BAR@k / #num_dies"}, {"MetricGroup", "TopdownL1"}},
      {{"MetricName", "tma_bad_speculation"}, {"MetricExpr", "FOO.BAR / BAZ.QUX"}, {"MetricGroup", "TopdownL1"}},
  };
  const nlohmann::json events = {
      {{"EventName", "FOO.BAR"}, {"EventCode", "0x3A"}, {"UMask", "0x02"}, {"CounterMask", "2"}, {"EdgeDetect", "1"}},
      {{"EventName", "CPU_CLK_UNHALTED.THREAD"}, {"UMask", "0x2"}, {"Counter", "Fixed counter 1"}},
  };
  PerfImportOptions options;
  options.uarch = "toy";
  auto result = ImportPerfMetrics({{"m.json", metrics.dump()}, {"e.json", events.dump()}}, options);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->nodes, 1);
  EXPECT_EQ(result->definition["nodes"][0]["name"], "Frontend_Bound");
  EXPECT_EQ(result->definition["nodes"][0]["formula"], "FOO.BAR / CPU_CLK_UNHALTED.THREAD");
  EXPECT_EQ(result->definition["nodes"][0]["threshold"], 0.15);
  std::map<std::string, std::string> configs;
  for (const auto& e : result->definition["events"]) configs[e["name"]] = e["encoding"]["config"];
  EXPECT_EQ(configs["FOO.BAR"], "0x204023a");  // cmask 2 (24-31), edge (18), umask 2, event 0x3a
  EXPECT_EQ(configs["CPU_CLK_UNHALTED.THREAD"], "0x3c");
  const std::vector<std::string> expected = {
      "tma_backend_bound: function has_event()",
      "tma_memory_bound: it uses tma_backend_bound, which was skipped",
      "tma_retiring: event foo.bar counted with modifier k (one privilege level only; td counts the event as a whole)",
      "tma_bad_speculation: event baz.qux is in none of the event files",
  };
  std::set<std::string> skipped(result->skipped.begin(), result->skipped.end());
  for (const std::string& line : expected) EXPECT_TRUE(skipped.count(line)) << line;
  EXPECT_EQ(result->skipped.size(), expected.size());
  EXPECT_EQ(result->definition["notes"].size(), expected.size());
}

// A CPU td does not ship: Sierra Forest's (Crestmont) perf 6.12 files under
// another key and a CPUID no Intel CPU has (td ships srf from Intel's newer
// data), imported into a directory that TD_METRICS_DIR would name, recognised by its CPUID,
// with Levels 1-3, and a case analysed to perf's values.
TEST(PerfMetricsImport, SierraForestWorksThroughTdMetricsDir) {
  auto builtin = DefinitionLibrary::Load();
  ASSERT_TRUE(builtin.ok());
  ASSERT_EQ(builtin->Find("srf_perf"), nullptr) << "td ships srf_perf now: import under another key";
  const PerfImportResult imported = Import("x86/sierraforest", "srf_perf", "", {{"GenuineIntel", 6, 0xfe}});
  EXPECT_TRUE(imported.skipped.empty());
  // Provenance: the kernel, every input with its sha256 (tests/data/perf-metrics/README.md).
  const nlohmann::json& source = imported.definition["source"];
  EXPECT_EQ(source["kernel"], "6.12.117");
  bool metrics_file = false;
  for (const auto& f : source["files"]) {
    if (f["path"].get<std::string>().find("srf-metrics.json") == std::string::npos) continue;
    metrics_file = true;
    EXPECT_EQ(f["sha256"], "8f60219ee6f1e6f25753ecb496e28c2630f65cd368e5a61c7cb8f9b3d18825ca");
  }
  EXPECT_TRUE(metrics_file);
  EXPECT_NE(imported.definition["description"].get<std::string>().find("kernel 6.12.117"), std::string::npos);

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrFormat("td-import-test-%d", static_cast<int>(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "srf_perf.json") << imported.definition.dump(1);
  auto library = DefinitionLibrary::Load(dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(library.ok()) << library.status();
  auto key = library->Identify("GenuineIntel", 6, 0xfe, 3);
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(*key, "srf_perf");
  const MetricSet* set = library->Find("srf_perf");
  ASSERT_NE(set, nullptr);
  std::map<int, std::set<std::string>> by_level;
  for (const FormulaDefinition& node : set->nodes) by_level[node.level].insert(node.name);
  EXPECT_EQ(by_level[1], (std::set<std::string>{"Frontend_Bound", "Bad_Speculation", "Backend_Bound", "Retiring"}));
  for (const char* l2 : {"Frontend_Bound.Fetch_Latency", "Frontend_Bound.Fetch_Bandwidth", "Bad_Speculation.Branch_Mispredicts",
                         "Bad_Speculation.Machine_Clears", "Backend_Bound.Core_Bound", "Backend_Bound.Resource_Bound"}) {
    EXPECT_TRUE(by_level[2].count(l2)) << l2;
  }
  EXPECT_EQ(by_level[3].size(), 16u);
  EXPECT_TRUE(by_level[3].count("Backend_Bound.Resource_Bound.Mem_Scheduler"));

  // A case as perf stat would have printed it on that machine.
  std::mt19937_64 rng(175);
  const PerfMetrics perf = LoadPerf({"x86/sierraforest/srf-metrics.json"}, "");
  std::vector<std::string> names;
  for (const auto& node : imported.definition["nodes"]) names.push_back(node["perf_metric"]);
  const std::set<std::string> events = NeededEvents(perf, names, *set);
  ImportSpec spec{"srf", "", "", "", "srf_perf", [](std::mt19937_64& r, double cycles, Counts* c) { RelateCrestmont(r, cycles, c); }};
  const std::map<std::string, double> literals = {{"SMT_on", 0}};
  int compared = 0;
  for (int v = 0; v < 20; ++v) {
    const Counts counts = Vector(rng, events, spec);
    nlohmann::json case_json = {{"id", "srf-import"}, {"uarch", "srf_perf"}, {"smt", false}, {"counts", nlohmann::json::array()}};
    for (const auto& [event, value] : counts) case_json["counts"].push_back({{"event", event}, {"value", value}});
    auto c = ParsePerfCase(case_json);
    ASSERT_TRUE(c.ok()) << c.status();
    auto answers = Recompute(*c, *library);
    ASSERT_TRUE(answers.ok()) << answers.status();
    PerfEvaluator perf_eval(perf, counts, literals, 0);
    std::map<std::string, std::string> perf_of;
    for (const auto& node : imported.definition["nodes"]) perf_of[node["name"]] = node["perf_metric"];
    for (const MetricAnswer& a : *answers) {
      if (!perf_of.count(a.wanted.metric)) continue;
      ASSERT_TRUE(a.value.has_value()) << a.wanted.metric << ": " << a.why_not;
      const Value theirs = perf_eval.Metric(perf_of[a.wanted.metric]);
      ASSERT_TRUE(theirs.measured) << a.wanted.metric;
      EXPECT_TRUE(Same(*a.value, theirs.number)) << a.wanted.metric << ": td " << *a.value << ", perf " << theirs.number;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 20 * 26);
}

// --extend: the Top-Down nodes td's own definitions of a key lack, placed
// under td's nodes; the shipped depth files (intel_depth_*.json) are what the
// importer makes of perf's files today, so a change to either shows here.
TEST(PerfMetricsImport, ExtendAddsOnlyWhatTdLacksAndTheShippedDepthFilesAreCurrent) {
  struct Case {
    const char* dir;
    const char* metrics;
    const char* uarch;
    const char* pmu;
  };
  for (const Case& k : {Case{"x86/skylakex", "x86/skylakex/skx-metrics.json", "skx", ""},
                        Case{"x86/alderlake", "x86/alderlake/adl-metrics.json", "adl_glc", "cpu_core"}}) {
    const std::string depth_file = std::string("intel_depth_") + k.uarch + ".json";
    std::vector<std::pair<std::string, std::string>> own;
    nlohmann::json shipped;
    for (const auto& [name, text] : OwnDefinitionFiles()) {
      if (name == depth_file) {
        shipped = nlohmann::json::parse(text);
      } else {
        own.emplace_back(name, text);
      }
    }
    ASSERT_TRUE(shipped.is_object()) << depth_file << " is not built into td";
    auto own_library = DefinitionLibrary::FromTexts(own);
    ASSERT_TRUE(own_library.ok()) << own_library.status();
    const MetricSet* td = own_library->Find(k.uarch);
    ASSERT_NE(td, nullptr);

    auto files = ReadPerfInputs({PerfData(k.dir)});
    ASSERT_TRUE(files.ok()) << files.status();
    PerfImportOptions options;
    options.uarch = k.uarch;
    options.pmu = k.pmu;
    options.kernel = "6.12.117";
    options.extend = true;
    auto result = ImportPerfMetrics(*files, options);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->nodes, 65) << k.uarch;  // perf 6.12's Levels 3-6 that td's own files lack
    std::set<std::string> added;
    for (const auto& node : result->definition["nodes"]) added.insert(node["name"].get<std::string>());
    for (const std::string& name : added) {
      EXPECT_EQ(td->FindNode(name), nullptr) << name << " is td's own";
      const std::string parent = name.substr(0, name.rfind('.'));
      EXPECT_TRUE(td->FindNode(parent) != nullptr || added.count(parent)) << name << ": no parent " << parent;
    }
    // An event td knows is declared again only to give this CPU's encoding.
    for (const auto& event : result->definition["events"]) {
      if (td->FindEvent(event["name"].get<std::string>()) == nullptr) continue;
      EXPECT_NE(event.value("note", "").find("this CPU's event file says"), std::string::npos) << event.dump();
    }
    for (const char* part : {"nodes", "auxiliaries", "events"}) {
      EXPECT_EQ(result->definition[part], shipped[part])
          << depth_file << " is not what the importer makes of perf 6.12's files: run scripts/regenerate_depth.sh";
    }
    std::ifstream metrics(PerfData(k.metrics));
    const std::string text((std::istreambuf_iterator<char>(metrics)), std::istreambuf_iterator<char>());
    bool source_listed = false;
    for (const auto& f : shipped["source"]["files"]) {
      source_listed |= f["path"] == std::string("tools/perf/pmu-events/arch/") + k.metrics &&
                       f["sha256"] == Sha256Hex(text);
    }
    EXPECT_TRUE(source_listed) << depth_file << " names its metrics file with the test copy's sha256";
  }
  PerfImportOptions options;
  options.uarch = "srf_perf";
  options.extend = true;
  auto files = ReadPerfInputs({PerfData("x86/sierraforest")});
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(ImportPerfMetrics(*files, options).status().message(),
            "--extend adds to one of td's own keys; srf_perf is not one");
  EXPECT_EQ(PathInKernelTree("/usr/src/linux/tools/perf/pmu-events/arch/x86/skylakex"),
            "tools/perf/pmu-events/arch/x86/skylakex");
  EXPECT_EQ(PathInKernelTree("perf/x86/skylakex"), "perf/x86/skylakex");
}

TEST(PerfMetricsImport, InputErrorsAreOneLine) {
  PerfImportOptions options;
  options.uarch = "toy";
  auto not_metrics = ImportPerfMetrics({{"x.json", R"([{"a": 1}])"}}, options);
  EXPECT_EQ(not_metrics.status().message(),
            "x.json: not a perf metrics or events file (a JSON list of MetricName or EventName entries)");
  auto events_only = ImportPerfMetrics({{"e.json", R"([{"EventName": "A.B", "EventCode": "0x1"}])"}}, options);
  EXPECT_FALSE(events_only.ok());
  auto hybrid = ImportPerfMetrics({{PerfData("x86/alderlake/adl-metrics.json"), "[]"}}, options);
  EXPECT_FALSE(hybrid.ok());
  auto files = ReadPerfInputs({PerfData("x86/alderlake/adl-metrics.json")});
  ASSERT_TRUE(files.ok());
  auto needs_pmu = ImportPerfMetrics(*files, options);
  EXPECT_EQ(needs_pmu.status().message(), "the metrics are those of several PMUs (cpu_atom, cpu_core); choose one with --pmu");
  options.uarch = "skx";
  EXPECT_FALSE(ImportPerfMetrics(*files, options).ok());  // td's own key
  EXPECT_FALSE(ReadPerfInputs({"/nonexistent-td/perf"}).ok());
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace td

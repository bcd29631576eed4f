// Differential test of the keys made from Intel's perfmon data
// (scripts/regenerate_vendor.sh): each node of td's definition file is
// evaluated by td and compared with the vendor's own MetricExpr and
// MetricThreshold (tests/data/vendor-metrics, perf's format) on generated
// count vectors. Half the vectors bring sampled retire latencies (":R" terms,
// perf stat --record-tpebs); the other half none, so td must use the
// vendor's mean retire latency and mark the node "estimated".
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/event_names.h"
#include "tests/support/build_paths.h"
#include "tests/support/sanitizers.h"
#include "tests/unit/perf_metrics_testing.h"

namespace td {
namespace {

using namespace perf_testing;  // NOLINT: the shared helpers of the perf tests
using nlohmann::json;

// Sets the related events of a vector consistently; `cycles` is given.
using Relate = void (*)(std::mt19937_64&, double cycles, Counts*);

struct VendorSpec {
  std::string uarch;
  std::string metrics;  // under tests/data/vendor-metrics
  std::string unit;     // the PMU of a hybrid part's core type
  Relate relate;        // the core's event relations: E-core, Golden Cove (PERF_METRICS) or Skylake
  // Nodes whose formula weighs an event the vendor data give no mean retire
  // latency for: valued only where the vector brings sampled ones.
  std::set<std::string> sampled_only = {};
};

// The test's name in gtest's messages, not the bytes of the struct.
void PrintTo(const VendorSpec& spec, std::ostream* out) { *out << spec.uarch; }

json ReadJson(const std::string& path) {
  std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/vendor-metrics/" + path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in, nullptr, false);
}

// td node -> the vendor metric it was made from (the file's "perf_metric"):
// a key of its own (intel_KEY.json), or the vendor tree laid over one of td's
// keys (intel_vendor_KEY.json).
std::map<std::string, std::string> PerfMetricsOfNodes(const std::string& uarch) {
  std::map<std::string, std::string> out;
  for (const auto& [file, text] : EmbeddedDefinitionFiles()) {
    const bool own = file.find("intel_" + uarch + ".json") != std::string::npos;
    const bool laid_over = file.find("intel_vendor_" + uarch + ".json") != std::string::npos;
    if (!own && !laid_over) continue;
    const json definition = json::parse(text);
    for (const json& node : definition["nodes"]) out[node["name"].get<std::string>()] = node["perf_metric"].get<std::string>();
  }
  return out;
}

struct Tally {
  int values = 0, agree = 0, flags = 0, flags_agree = 0, estimated_right = 0, expected_missing_right = 0;
  std::string example;
};

constexpr int kFullVectors = 200;
constexpr int kVectors = sanitizers::kAny ? 40 : kFullVectors;

class VendorMetrics : public ::testing::TestWithParam<VendorSpec> {};

TEST_P(VendorMetrics, EveryNodeAgreesWithTheVendorFormula) {
  const VendorSpec& spec = GetParam();
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok()) << library.status();
  const MetricSet* set = library->Find(spec.uarch);
  ASSERT_NE(set, nullptr) << spec.uarch;
  EXPECT_FALSE(set->tma_version.empty()) << spec.uarch << " records no TMA version";
  const PerfMetrics perf = LoadPerf({"../vendor-metrics/" + spec.metrics}, spec.unit);
  std::map<std::string, double> static_latencies;
  const json means = ReadJson("graniterapids/retire-latencies.json");
  for (const auto& [event, mean] : means.items()) {
    static_latencies[NormalizeEventName(event + ":R")] = mean.get<double>();
  }
  const std::map<std::string, std::string> of_node = PerfMetricsOfNodes(spec.uarch);
  std::vector<std::pair<std::string, std::string>> pairs;
  std::vector<std::string> perf_names;
  std::set<std::string> carried;
  for (const FormulaDefinition& node : set->nodes) {
    if (node.level < 1) continue;
    auto it = of_node.find(node.name);
    // td's own nodes of a key the vendor tree is laid over may stay (labelled
    // with their older version); the vendor's nodes are all checked below.
    if (it == of_node.end() && !node.VersionOf(0).empty()) continue;
    ASSERT_NE(it, of_node.end()) << node.name << " has no perf_metric";
    ASSERT_TRUE(perf.count(it->second)) << it->second << " is not in the vendor file";
    pairs.emplace_back(node.name, it->second);
    perf_names.push_back(it->second);
    carried.insert(it->second);
  }
  // Every Top-Down node of the vendor's tree is td's too, or listed with its cause.
  int vendor_nodes = 0;
  for (const auto& [name, m] : perf) {
    if (!m.tree || name.rfind("tma_info", 0) == 0 || name.rfind("tma_bottleneck", 0) == 0) continue;
    ++vendor_nodes;
    EXPECT_TRUE(carried.count(name)) << spec.uarch << " lacks " << name;
  }
  std::printf("%s: %zu of the vendor's %d Top-Down nodes (TMA %s)\n", spec.uarch.c_str(), carried.size(), vendor_nodes,
              set->tma_version.c_str());

  const std::set<std::string> events = NeededEvents(perf, perf_names, *set);
  // Per thread, SMT off; with CXL/persistent memory, so that its terms count too.
  static const std::map<std::string, double> kLiterals = {{"SMT_on", 0}, {"core_wide", 0}, {"has_pmem", 1}};
  std::map<std::string, Tally> tallies;
  std::mt19937_64 rng(32);
  for (int v = 0; v < kVectors; ++v) {
    const bool sampled = v % 2 == 1;
    const double cycles = Uniform(rng, 1e6, 1e10);
    Counts counts;
    for (const std::string& e : events) {
      const bool latency = e.size() > 2 && e.compare(e.size() - 2, 2, ":r") == 0;
      if (!latency) counts[e] = Uniform(rng, 0, cycles / 10);
      if (latency && sampled) counts[e] = Uniform(rng, 1, 500);
    }
    for (const char* clock : {"cycles", "cpu_clk_unhalted.thread", "cpu_clk_unhalted.thread_p", "cpu_clk_unhalted.core",
                              "cpu_clk_unhalted.core_p", "cpu_clk_unhalted.distributed"}) {
      if (counts.count(clock)) counts[clock] = cycles;
    }
    spec.relate(rng, cycles, &counts);
    // The vendor's formula without sampling: perf would need them sampled;
    // the static means are what td's estimate stands for.
    Counts vendor_counts = counts;
    if (!sampled) vendor_counts.insert(static_latencies.begin(), static_latencies.end());
    EvaluationOptions options;
    options.constants["SMT_on"] = 0;
    options.constants["Has_PMEM"] = 1;
    const TopDownResult td = AnalyzeCounts(*set, [&counts](const std::vector<std::string>& spellings, std::string*) {
      for (const std::string& s : spellings) {
        if (auto it = counts.find(s); it != counts.end()) return std::optional<double>(it->second);
      }
      return std::optional<double>();
    }, options);
    PerfEvaluator vendor(perf, vendor_counts, kLiterals, 0);
    for (const auto& [node, name] : pairs) {
      const TreeNode* mine = td.Find(node);
      const Value theirs = vendor.Metric(name);
      Tally& t = tallies[node];
      if (!sampled && spec.sampled_only.count(name)) {
        // Neither side has a latency to use: td says which term it needs.
        t.expected_missing_right += mine != nullptr && !mine->value && !theirs.measured &&
                                    absl::AsciiStrToUpper(mine->why_not).find(":R") != std::string::npos;
        continue;
      }
      if (mine == nullptr || !mine->value || !theirs.measured) {
        if (t.example.empty()) t.example = mine && !mine->value ? "td: " + mine->why_not : "vendor: " + theirs.missing;
        continue;
      }
      const double p = theirs.number * perf.at(name).scale;
      ++t.values;
      if (std::fabs(p - *mine->value) <= 1e-9 * std::max(1.0, std::fabs(p))) {
        ++t.agree;
      } else if (t.example.empty()) {
        t.example = absl::StrFormat("td %.6g, vendor %.6g", *mine->value, p);
      }
      // Marked exactly when a static latency went into it.
      const bool estimated = !set->FindNode(node)->estimated.empty() && !sampled;
      t.estimated_right += (mine->estimated == kStaticRetireLatency) == estimated;
      if (!perf.at(name).threshold.empty()) {
        const Value flag = vendor.Threshold(name);
        if (flag.measured) {
          ++t.flags;
          t.flags_agree += (flag.number != 0) == mine->flagged;
        }
      }
    }
  }
  int agreeing = 0;
  for (const auto& [node, t] : tallies) {
    const bool sampled_only = spec.sampled_only.count(of_node.at(node)) > 0;
    const int expected = sampled_only ? kVectors / 2 : kVectors;
    const bool agrees = t.values == expected && t.agree == t.values && t.flags_agree == t.flags &&
                        t.estimated_right == t.values && t.expected_missing_right == kVectors - expected;
    agreeing += agrees;
    EXPECT_TRUE(agrees) << spec.uarch << " " << node << ": values " << t.agree << "/" << t.values << ", flags "
                        << t.flags_agree << "/" << t.flags << ", estimate marks " << t.estimated_right << "/"
                        << t.values << " " << t.example;
  }
  std::printf("%s: %d of %zu nodes agree with the vendor's formulas and thresholds on all %d vectors\n",
              spec.uarch.c_str(), agreeing, tallies.size(), kVectors);
}

// Lion Cove's events that the vendor data give no mean retire latency for
// (Granite Rapids' event files, which lend theirs, lack MEM_LOAD_RETIRED.L1_HIT_L1
// and MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM): these nodes need sampled ones.
const std::set<std::string> kNoLionCoveMean = {"tma_l1_latency_capacity", "tma_contested_accesses"};

INSTANTIATE_TEST_SUITE_P(
    Perfmon6dadedf, VendorMetrics,
    ::testing::Values(VendorSpec{"gnr", "graniterapids/gnr-metrics.json", "", RelateGoldenCove},
                      VendorSpec{"srf", "sierraforest/srf-metrics.json", "", RelateGracemont},
                      VendorSpec{"grr", "grandridge/grr-metrics.json", "", RelateGracemont},
                      VendorSpec{"rkl", "rocketlake/rkl-metrics.json", "", RelateGoldenCove},
                      VendorSpec{"mtl_rwc", "meteorlake/mtl-metrics.json", "cpu_core", RelateGoldenCove},
                      VendorSpec{"mtl_cmt", "meteorlake/mtl-metrics.json", "cpu_atom", RelateGracemont},
                      VendorSpec{"lnl_lnc", "lunarlake/lnl-metrics.json", "cpu_core", RelateGoldenCove, kNoLionCoveMean},
                      VendorSpec{"lnl_skt", "lunarlake/lnl-metrics.json", "cpu_atom", RelateGracemont},
                      VendorSpec{"arl_lnc", "arrowlake/arl-metrics.json", "cpu_core", RelateGoldenCove, kNoLionCoveMean},
                      VendorSpec{"arl_skt", "arrowlake/arl-metrics.json", "cpu_atom", RelateGracemont},
                      // td's own keys, with the vendor's current tree laid over td's perf 6.12 formulas.
                      VendorSpec{"skl", "skylake/skl-metrics.json", "", RelateSkylake},
                      VendorSpec{"skx", "skylakex/skx-metrics.json", "", RelateSkylake},
                      VendorSpec{"clx", "cascadelakex/clx-metrics.json", "", RelateSkylake},
                      VendorSpec{"icl", "icelake/icl-metrics.json", "", RelateGoldenCove},
                      VendorSpec{"tgl", "tigerlake/tgl-metrics.json", "", RelateGoldenCove},
                      VendorSpec{"icx", "icelakex/icx-metrics.json", "", RelateGoldenCove},
                      VendorSpec{"spr", "sapphirerapids/spr-metrics.json", "", RelateGoldenCove},
                      VendorSpec{"emr", "emeraldrapids/emr-metrics.json", "", RelateGoldenCove},
                      VendorSpec{"adl_glc", "alderlake/adl-metrics.json", "cpu_core", RelateGoldenCove},
                      VendorSpec{"adl_grt", "alderlake/adl-metrics.json", "cpu_atom", RelateGracemont}),
    [](const ::testing::TestParamInfo<VendorSpec>& info) { return info.param.uarch; });

}  // namespace
}  // namespace td

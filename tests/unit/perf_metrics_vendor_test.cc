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

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/event_names.h"
#include "tests/support/sanitizers.h"
#include "tests/unit/perf_metrics_testing.h"

namespace td {
namespace {

using namespace perf_testing;  // NOLINT: the shared helpers of the perf tests
using nlohmann::json;

struct VendorSpec {
  std::string uarch;
  std::string metrics;  // under tests/data/vendor-metrics
  std::string unit;     // the PMU of a hybrid part's core type
  bool atom = false;    // E-core events (TOPDOWN_*_BOUND.*) rather than PERF_METRICS
  // Nodes of the vendor's tree td does not carry, with the cause; a node listed
  // here that td carries now fails the test.
  std::map<std::string, std::string> absent = {};
};

// The test's name in gtest's messages, not the bytes of the struct.
void PrintTo(const VendorSpec& spec, std::ostream* out) { *out << spec.uarch; }

json ReadJson(const std::string& path) {
  std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/vendor-metrics/" + path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in, nullptr, false);
}

// td node -> the vendor metric it was made from (the file's "perf_metric").
std::map<std::string, std::string> PerfMetricsOfNodes(const std::string& uarch) {
  std::map<std::string, std::string> out;
  for (const auto& [file, text] : EmbeddedDefinitionFiles()) {
    if (file.find("intel_" + uarch + ".json") == std::string::npos) continue;
    const json definition = json::parse(text);
    for (const json& node : definition["nodes"]) out[node["name"].get<std::string>()] = node["perf_metric"].get<std::string>();
  }
  return out;
}

struct Tally {
  int values = 0, agree = 0, flags = 0, flags_agree = 0, estimated_right = 0;
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
    if (spec.absent.count(name)) {
      EXPECT_FALSE(carried.count(name)) << name << " is carried now: take it off the list (" << spec.absent.at(name) << ")";
    } else {
      EXPECT_TRUE(carried.count(name)) << spec.uarch << " lacks " << name;
    }
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
    spec.atom ? RelateGracemont(rng, cycles, &counts) : RelateGoldenCove(rng, cycles, &counts);
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
    const bool agrees = t.values == kVectors && t.agree == t.values && t.flags_agree == t.flags &&
                        t.estimated_right == t.values;
    agreeing += agrees;
    EXPECT_TRUE(agrees) << spec.uarch << " " << node << ": values " << t.agree << "/" << t.values << ", flags "
                        << t.flags_agree << "/" << t.flags << ", estimate marks " << t.estimated_right << "/"
                        << t.values << " " << t.example;
  }
  std::printf("%s: %d of %zu nodes agree with the vendor's formulas and thresholds on all %d vectors\n",
              spec.uarch.c_str(), agreeing, tallies.size(), kVectors);
}

// Lion Cove's events that the vendor data give no mean retire latency for
// (Granite Rapids' event files, which lend theirs, lack them): these nodes need
// sampled retire latencies, which td cannot record yet.
const std::map<std::string, std::string> kNoLionCoveMean = {
    {"tma_l1_latency_capacity", "MEM_LOAD_RETIRED.L1_HIT_L1:R has no mean retire latency in the vendor data"},
    {"tma_contested_accesses", "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM:R has no mean retire latency in the vendor data"}};

INSTANTIATE_TEST_SUITE_P(
    Perfmon6dadedf, VendorMetrics,
    ::testing::Values(VendorSpec{"gnr", "graniterapids/gnr-metrics.json", "", false},
                      VendorSpec{"srf", "sierraforest/srf-metrics.json", "", true},
                      VendorSpec{"grr", "grandridge/grr-metrics.json", "", true},
                      VendorSpec{"mtl_rwc", "meteorlake/mtl-metrics.json", "cpu_core", false},
                      VendorSpec{"mtl_cmt", "meteorlake/mtl-metrics.json", "cpu_atom", true},
                      VendorSpec{"lnl_lnc", "lunarlake/lnl-metrics.json", "cpu_core", false, kNoLionCoveMean},
                      VendorSpec{"lnl_skt", "lunarlake/lnl-metrics.json", "cpu_atom", true},
                      VendorSpec{"arl_lnc", "arrowlake/arl-metrics.json", "cpu_core", false, kNoLionCoveMean},
                      VendorSpec{"arl_skt", "arrowlake/arl-metrics.json", "cpu_atom", true}),
    [](const ::testing::TestParamInfo<VendorSpec>& info) { return info.param.uarch; });

}  // namespace
}  // namespace td

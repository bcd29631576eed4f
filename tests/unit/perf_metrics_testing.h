// What the differential tests against Linux perf's metric files share
// (tests/unit/perf_metrics_diff_test.cc, perf_metrics_import_test.cc): perf's
// metrics read from tests/data/perf-metrics, evaluated with td's expression
// engine through the product's translator (runtime/uarch/perf_metrics_import.h),
// and generators of count vectors whose events keep their hardware relations.
#ifndef TD_TESTS_UNIT_PERF_METRICS_TESTING_H_
#define TD_TESTS_UNIT_PERF_METRICS_TESTING_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/metric_evaluator.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/event_names.h"
#include "runtime/uarch/expression.h"
#include "runtime/uarch/perf_metrics_import.h"
#include "tests/support/build_paths.h"

namespace td::perf_testing {

// td's own definition files without the vendor's newer trees laid over them
// (intel_vendor_*.json, "source": {"supersedes"}): the formulas perf 6.12
// has, which stay in td as the older version's fallback.
inline std::vector<std::pair<std::string, std::string>> OwnDefinitionFiles() {
  std::vector<std::pair<std::string, std::string>> own;
  for (const auto& [name, text] : EmbeddedDefinitionFiles()) {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.contains("source") && j["source"].is_object() && j["source"].contains("supersedes")) continue;
    own.emplace_back(name, text);
  }
  return own;
}

// perf's expressions in td's language: the product's translator.
inline absl::StatusOr<std::string> Translate(const std::string& e) { return TranslatePerfExpression(e); }

struct PerfMetric {
  std::string expr;
  std::string threshold;
  double scale = 1;  // 0.01 where perf's expression gives percent ("1percent of slots")
  bool tree = false;  // a Top-Down node (MetricGroup TopdownL1…6 or tma_L1…6_group)
};

using PerfMetrics = std::map<std::string, PerfMetric>;

// perf's metrics from `files` (first definition of a name wins, as a CPU's
// own file overrides sbsa.json); `unit` keeps those of one hybrid PMU.
inline PerfMetrics LoadPerf(const std::vector<std::string>& files, const std::string& unit) {
  PerfMetrics out;
  std::map<std::string, std::string> scale_units;  // a CPU file's override keeps sbsa.json's unit
  for (const std::string& file : files) {
    std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/perf-metrics/" + file);
    EXPECT_TRUE(in.good()) << file;
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& m : j) {
      std::string name = m.value("MetricName", "");
      if (name.empty()) name = absl::AsciiStrToLower(m.value("ArchStdEvent", ""));
      if (!unit.empty() && m.contains("Unit") && m["Unit"] != unit) continue;
      if (!name.empty() && m.contains("ScaleUnit")) scale_units.emplace(name, m["ScaleUnit"].get<std::string>());
      const std::string expr = m.value("MetricExpr", "");
      if (name.empty() || expr.empty() || out.count(name)) continue;
      const std::string groups = m.value("MetricGroup", "");
      const bool tree = groups.find("TopdownL") != std::string::npos || groups.find("tma_L") != std::string::npos;
      out[name] = PerfMetric{expr, m.value("MetricThreshold", ""), 1.0, tree};
    }
  }
  for (auto& [name, m] : out) {
    if (scale_units[name].rfind("1percent", 0) == 0) m.scale = 0.01;
  }
  return out;
}

using Counts = std::map<std::string, double>;  // normalised event name → count

// 1 when `cpuid` is the part of `test` at its revision or later (perf's arm64
// strcmp_cpuid_str rule: variant, then revision; same implementer and part).
inline double CpuidAtLeast(uint64_t cpuid, uint64_t test) {
  const uint64_t version = (0xfull << 20) | 0xfull;
  if ((cpuid & ~version) != (test & ~version)) return 0;
  const uint64_t v = (cpuid >> 20) & 0xf, r = cpuid & 0xf, tv = (test >> 20) & 0xf, tr = test & 0xf;
  return v > tv || (v == tv && r >= tr) ? 1 : 0;
}

// Evaluates perf's metrics, translated, with td's expression engine.
class PerfEvaluator {
 public:
  PerfEvaluator(const PerfMetrics& metrics, const Counts& counts, const std::map<std::string, double>& literals,
                uint64_t cpuid)
      : metrics_(metrics), counts_(counts), literals_(literals), cpuid_(cpuid) {}

  Value Metric(const std::string& name) {
    if (auto it = memo_.find(name); it != memo_.end()) return it->second;
    auto e = Parsed(metrics_, name);
    Value v = Value::Missing(name);
    if (e.ok()) v = e->Evaluate([this](const std::string& n) { return Name(n); });
    memo_[name] = v;
    return v;
  }

  Value Threshold(const std::string& name) {
    const auto t = Translate(metrics_.at(name).threshold);
    if (!t.ok()) return Value::Missing(name);
    auto e = Expression::Parse(*t);
    if (!e.ok()) return Value::Missing(name);
    return e->Evaluate([this](const std::string& n) { return Name(n); });
  }

  static absl::StatusOr<Expression> Parsed(const PerfMetrics& metrics, const std::string& name) {
    const auto t = Translate(metrics.at(name).expr);
    if (!t.ok()) return t.status();
    return Expression::Parse(*t);
  }

 private:
  Value Name(const std::string& n) {
    if (metrics_.count(n)) return Metric(n);
    if (n.rfind("cpuid_ge_", 0) == 0) return Value::Of(CpuidAtLeast(cpuid_, std::stoull(n.substr(9), nullptr, 16)));
    if (n[0] == '#') {
      if (auto it = literals_.find(n.substr(1)); it != literals_.end()) return Value::Of(it->second);
      return Value::Missing(n);
    }
    if (auto it = counts_.find(NormalizeEventName(n)); it != counts_.end()) return Value::Of(it->second);
    return Value::Missing(n);
  }

  const PerfMetrics& metrics_;
  const Counts& counts_;
  const std::map<std::string, double>& literals_;
  uint64_t cpuid_;
  std::map<std::string, Value> memo_;
};

// Every event name a perf metric reaches, through the metrics it refers to.
inline void PerfEvents(const PerfMetrics& metrics, const std::string& name, std::set<std::string>* seen,
                std::set<std::string>* events) {
  if (!seen->insert(name).second) return;
  auto e = PerfEvaluator::Parsed(metrics, name);
  if (!e.ok()) return;
  for (const std::string& n : e->Names()) {
    if (metrics.count(n)) {
      PerfEvents(metrics, n, seen, events);
    } else if (n[0] != '#' && n.rfind("cpuid_ge_", 0) != 0) {
      events->insert(NormalizeEventName(n));
    }
  }
}

// Every event perf's metrics `names` need, and the set's own spellings of
// the events its formulas use.
inline std::set<std::string> NeededEvents(const PerfMetrics& perf, const std::vector<std::string>& names, const MetricSet& set) {
  std::set<std::string> events, seen;
  for (const std::string& name : names) {
    PerfEvents(perf, name, &seen, &events);
    if (perf.at(name).threshold.empty()) continue;
    auto t = Translate(perf.at(name).threshold);
    auto e = t.ok() ? Expression::Parse(*t) : absl::StatusOr<Expression>(t.status());
    if (!e.ok()) continue;
    for (const std::string& n : e->Names()) {
      if (perf.count(n)) PerfEvents(perf, n, &seen, &events);
    }
  }
  for (const auto& list : {set.nodes, set.auxiliaries}) {
    for (const FormulaDefinition& def : list) {
      for (const Expression& e : def.alternatives) {
        for (const std::string& n : e.Names()) {
          const EventDefinition* event = set.FindEvent(n);
          if (event == nullptr) continue;
          bool covered = false;
          for (const std::string& s : event->spellings) covered |= events.count(s) > 0;
          if (!covered) events.insert(event->spellings.front());
        }
      }
    }
  }
  // SMT off: the AnyThread events are not counted.
  for (const char* smt_only : {"cpu_clk_unhalted.thread_any", "int_misc.recovery_cycles_any"}) events.erase(smt_only);
  return events;
}

// td's count lookup over a vector: the first of an event's spellings it holds.
inline CountLookup LookupIn(const Counts& counts) {
  return [&counts](const std::vector<std::string>& spellings, std::string*) {
    for (const std::string& s : spellings) {
      if (auto it = counts.find(s); it != counts.end()) return std::optional<double>(it->second);
    }
    return std::optional<double>();
  };
}

inline double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::floor(std::uniform_real_distribution<double>(lo, hi)(rng));
}

// Splits `total` into parts named `names` (random shares that add up).
inline void Split(std::mt19937_64& rng, double total, const std::vector<std::string>& names, Counts* c) {
  std::vector<double> w;
  double sum = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    w.push_back(Uniform(rng, 1, 1000));
    sum += w.back();
  }
  double left = total;
  for (size_t i = 0; i + 1 < names.size(); ++i) {
    const double part = std::floor(total * w[i] / sum);
    (*c)[names[i]] = part;
    left -= part;
  }
  (*c)[names.back()] = left;
}

// Clocks and time of a task that ran the whole time at a random core
// frequency: task-clock (ms) = duration, REF_TSC = TSC = 2 GHz × duration, so
// td's cycles / task-clock and perf's CLKS / REF_TSC × TSC / duration agree.
inline void RelateTime(std::mt19937_64& rng, double cycles, Counts* c) {
  const double seconds = cycles / Uniform(rng, 1e9, 4e9);
  (*c)["task-clock"] = seconds * 1000;
  (*c)["duration_time"] = seconds;
  (*c)["tsc"] = std::floor(2e9 * seconds);
  (*c)["cpu_clk_unhalted.ref_tsc"] = (*c)["tsc"];
}

inline void RelateArm(std::mt19937_64& rng, double cycles, Counts* c, double width) {
  const double slots = width * cycles;
  const double fe = Uniform(rng, 0, slots / 2), be = Uniform(rng, 0, slots - fe - cycles);
  const double issued = slots - fe - be;
  const double spec = Uniform(rng, issued / 2, issued), retired = Uniform(rng, spec / 2, spec);
  (*c)["stall_slot_frontend"] = fe;
  (*c)["stall_slot_backend"] = be;
  (*c)["stall_slot"] = fe + be;
  (*c)["op_spec"] = spec;
  (*c)["op_retired"] = retired;
  (*c)["br_mis_pred"] = Uniform(rng, 0, std::min({spec / 20, fe / (4 * width), be / (3 * width)}));
}

inline void RelateGracemont(std::mt19937_64& rng, double cycles, Counts* c) {
  RelateTime(rng, cycles, c);
  const double slots = 5 * cycles;
  Split(rng, slots, {"topdown_fe_bound.all", "topdown_be_bound.all", "topdown_retiring.all", "topdown_bad_speculation.all"}, c);
  Split(rng, (*c)["topdown_fe_bound.all"], {"topdown_fe_bound.frontend_latency", "topdown_fe_bound.frontend_bandwidth"}, c);
  Split(rng, (*c)["topdown_fe_bound.frontend_latency"],
        {"topdown_fe_bound.icache", "topdown_fe_bound.itlb", "topdown_fe_bound.branch_detect", "topdown_fe_bound.branch_resteer"}, c);
  Split(rng, (*c)["topdown_fe_bound.frontend_bandwidth"],
        {"topdown_fe_bound.cisc", "topdown_fe_bound.decode", "topdown_fe_bound.predecode", "topdown_fe_bound.other"}, c);
  Split(rng, (*c)["topdown_bad_speculation.all"], {"topdown_bad_speculation.mispredict", "topdown_bad_speculation.machine_clears"}, c);
  Split(rng, (*c)["topdown_bad_speculation.machine_clears"], {"topdown_bad_speculation.nuke", "topdown_bad_speculation.fastnuke"}, c);
  Split(rng, (*c)["topdown_be_bound.all"],
        {"topdown_be_bound.alloc_restrictions", "topdown_be_bound.mem_scheduler", "topdown_be_bound.non_mem_scheduler",
         "topdown_be_bound.register", "topdown_be_bound.reorder_buffer", "topdown_be_bound.serialization"}, c);
  (*c)["uops_retired.ms"] = Uniform(rng, 0, (*c)["topdown_retiring.all"]);
}

inline void RelateSkylake(std::mt19937_64& rng, double cycles, Counts* c) {
  RelateTime(rng, cycles, c);
  // SMT off: the thread is always alone on its core.
  (*c)["cpu_clk_unhalted.ref_xclk"] = std::floor(cycles / 30);
  (*c)["cpu_clk_unhalted.one_thread_active"] = (*c)["cpu_clk_unhalted.ref_xclk"];
  const double slots = 4 * cycles;
  (*c)["idq_uops_not_delivered.core"] = Uniform(rng, 0, slots / 2);
  (*c)["idq_uops_not_delivered.cycles_0_uops_deliv.core"] = Uniform(rng, 0, (*c)["idq_uops_not_delivered.core"] / 4);
  const double retired = Uniform(rng, slots / 10, slots / 2);
  (*c)["uops_retired.retire_slots"] = retired;
  (*c)["uops_issued.any"] = retired + Uniform(rng, 0, slots / 20);
  (*c)["int_misc.recovery_cycles"] = Uniform(rng, 0, cycles / 50);
  (*c)["inst_retired.any"] = Uniform(rng, retired / 2, retired);
  (*c)["uops_retired.macro_fused"] = Uniform(rng, 0, (*c)["inst_retired.any"] / 10);
  (*c)["cycle_activity.stalls_total"] = Uniform(rng, 0, cycles / 2);
  (*c)["cycle_activity.stalls_mem_any"] = Uniform(rng, 0, (*c)["cycle_activity.stalls_total"]);
  (*c)["cycle_activity.stalls_l1d_miss"] = Uniform(rng, 0, (*c)["cycle_activity.stalls_mem_any"]);
  (*c)["cycle_activity.stalls_l2_miss"] = Uniform(rng, 0, (*c)["cycle_activity.stalls_l1d_miss"]);
  (*c)["cycle_activity.stalls_l3_miss"] = Uniform(rng, 0, (*c)["cycle_activity.stalls_l2_miss"]);
  (*c)["exe_activity.bound_on_stores"] = Uniform(rng, 0, cycles / 10);
  (*c)["idq.ms_uops"] = Uniform(rng, 0, retired / 10);
  (*c)["br_misp_retired.all_branches"] = Uniform(rng, 0, cycles / 100);
  (*c)["machine_clears.count"] = Uniform(rng, 0, cycles / 1000);
}

// Golden Cove (Alder Lake P-core): the PERF_METRICS shares of the slots,
// their Level-2 parts inside them, and the clock events.
inline void RelateGoldenCove(std::mt19937_64& rng, double cycles, Counts* c) {
  RelateTime(rng, cycles, c);
  const double slots = 6 * cycles;
  (*c)["slots"] = slots;
  (*c)["topdown.slots_p"] = slots;
  Split(rng, slots, {"topdown-fe-bound", "topdown-bad-spec", "topdown-retiring", "topdown-be-bound"}, c);
  (*c)["topdown-fetch-lat"] = Uniform(rng, 0, (*c)["topdown-fe-bound"]);
  (*c)["topdown-br-mispredict"] = Uniform(rng, 0, (*c)["topdown-bad-spec"]);
  (*c)["topdown-heavy-ops"] = Uniform(rng, 0, (*c)["topdown-retiring"]);
  (*c)["topdown-mem-bound"] = Uniform(rng, 0, (*c)["topdown-be-bound"]);
  (*c)["cpu_clk_unhalted.ref_xclk"] = std::floor(cycles / 30);
  (*c)["cpu_clk_unhalted.one_thread_active"] = (*c)["cpu_clk_unhalted.ref_xclk"];
}

}  // namespace td::perf_testing

#endif  // TD_TESTS_UNIT_PERF_METRICS_TESTING_H_

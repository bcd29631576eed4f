// Differential test: Linux perf 6.12's own metric expressions (copied into
// tests/data/perf-metrics with their provenance) are translated into td's
// expression language, evaluated by td's expression engine, and compared node
// by node with td's built-in definitions on generated count vectors whose
// events keep their hardware relations (sub-events add up to their parent
// event, stall slots fit in the slots, retired ≤ speculated …).
//
// Every (uarch, node) pair both sides define must agree on every vector, or be
// listed in kKnownDifferences with its cause; docs/analysis.md lists the same.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/uarch/event_names.h"
#include "runtime/uarch/expression.h"
#include "runtime/analysis/metric_evaluator.h"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/uarch/definitions.h"

namespace td {
namespace {

struct PerfMetric {
  std::string expr;
  std::string threshold;
  double scale = 1;  // 0.01 where perf's expression gives percent ("1percent of slots")
  bool tree = false;  // a Top-Down node (MetricGroup TopdownL1…6 or tma_L1…6_group)
};

using PerfMetrics = std::map<std::string, PerfMetric>;

// perf's metrics from `files` (first definition of a name wins, as a CPU's
// own file overrides sbsa.json); `unit` keeps those of one hybrid PMU.
PerfMetrics LoadPerf(const std::vector<std::string>& files, const std::string& unit) {
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

// perf's expression syntax into td's: `pmu@EVENT\,umask\=0x80@` and escaped
// names become td's normalised event names, `&`/`|` `and`/`or`,
// `strcmp_cpuid_str(0x410fd493)` the name `cpuid_ge_0x410fd493` (1 when the
// CPU is that part at that revision or later, as perf's arm64 rule), and
// `X ^ 1` `(not X)`. `#slots` and other `#` literals stay names.
absl::StatusOr<std::string> Translate(const std::string& e) {
  std::vector<std::string> tokens;
  size_t i = 0;
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '#'; };
  while (i < e.size()) {
    const char c = e[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < e.size() && std::isdigit(static_cast<unsigned char>(e[i + 1])))) {
      size_t j = i;
      while (j < e.size() && (std::isdigit(static_cast<unsigned char>(e[j])) || e[j] == '.')) ++j;
      if (j + 1 < e.size() && e[j] == 'e' && std::isdigit(static_cast<unsigned char>(e[j + 1]))) {
        ++j;
        while (j < e.size() && std::isdigit(static_cast<unsigned char>(e[j]))) ++j;
      }
      tokens.push_back(e.substr(i, j - i));
      i = j;
    } else if (name_char(c) || c == '\\') {
      std::string name;
      while (i < e.size() && (name_char(e[i]) || e[i] == '\\')) {
        if (e[i] == '\\' && i + 1 < e.size()) ++i;
        name += e[i++];
      }
      if (i < e.size() && e[i] == '@') {  // pmu@event@
        std::string inner;
        ++i;
        while (i < e.size() && e[i] != '@') {
          if (e[i] == '\\' && i + 1 < e.size()) ++i;
          inner += e[i++];
        }
        ++i;
        tokens.push_back(NormalizeEventName(name + "/" + inner + "/"));
      } else if (name == "strcmp_cpuid_str") {
        const size_t close = e.find(')', i);
        std::string id = e.substr(i, close - i);
        id.erase(std::remove_if(id.begin(), id.end(), [](char x) { return x == '(' || std::isspace(static_cast<unsigned char>(x)); }),
                 id.end());
        tokens.push_back("cpuid_ge_" + absl::AsciiStrToLower(id));
        i = close + 1;
      } else if (name.find('-') != std::string::npos || name.find(',') != std::string::npos ||
                 name.find('=') != std::string::npos) {
        tokens.push_back(NormalizeEventName(name));
      } else {
        tokens.push_back(name);
      }
    } else if (c == '^') {
      size_t j = i + 1;
      while (j < e.size() && std::isspace(static_cast<unsigned char>(e[j]))) ++j;
      if (tokens.empty() || j >= e.size() || e[j] != '1') return absl::UnimplementedError("'^' other than X ^ 1");
      tokens.back() = "(not " + tokens.back() + ")";
      i = j + 1;
    } else if (c == '&' || c == '|') {
      tokens.push_back(c == '&' ? "and" : "or");
      ++i;
    } else if (std::string("+-*/(),<>").find(c) != std::string::npos) {
      tokens.push_back(std::string(1, c));
      ++i;
    } else {
      return absl::UnimplementedError(absl::StrFormat("character '%c'", c));
    }
  }
  return absl::StrJoin(tokens, " ");
}

using Counts = std::map<std::string, double>;  // normalised event name → count

// 1 when `cpuid` is the part of `test` at its revision or later (perf's arm64
// strcmp_cpuid_str rule: variant, then revision; same implementer and part).
double CpuidAtLeast(uint64_t cpuid, uint64_t test) {
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
void PerfEvents(const PerfMetrics& metrics, const std::string& name, std::set<std::string>* seen,
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

// perf's name of a td node.
std::string PerfName(const std::string& uarch, const std::string& node) {
  std::string s = absl::AsciiStrToLower(node.substr(node.rfind('.') + 1));
  if (uarch.rfind("neoverse", 0) == 0) return s;
  if (uarch == "adl_grt" && (s == "fetch_latency" || s == "fetch_bandwidth")) s = "i" + s;
  return "tma_" + s;
}

struct Spec {
  std::string uarch;
  std::vector<std::string> files;
  std::string unit;
  std::map<std::string, double> literals;  // perf's #literals
  std::vector<uint64_t> cpuids;            // Arm: MIDRs to try
  // Sets the related events of a vector consistently; `cycles` is given.
  std::function<void(std::mt19937_64&, double cycles, uint64_t cpuid, Counts*)> relate;
  std::map<std::string, double> td_constants;  // the machine td is told about
};

double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return std::floor(std::uniform_real_distribution<double>(lo, hi)(rng));
}

// Splits `total` into parts named `names` (random shares that add up).
void Split(std::mt19937_64& rng, double total, const std::vector<std::string>& names, Counts* c) {
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
void RelateTime(std::mt19937_64& rng, double cycles, Counts* c) {
  const double seconds = cycles / Uniform(rng, 1e9, 4e9);
  (*c)["task-clock"] = seconds * 1000;
  (*c)["duration_time"] = seconds;
  (*c)["tsc"] = std::floor(2e9 * seconds);
  (*c)["cpu_clk_unhalted.ref_tsc"] = (*c)["tsc"];
}

void RelateArm(std::mt19937_64& rng, double cycles, Counts* c, double width) {
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

void RelateGracemont(std::mt19937_64& rng, double cycles, Counts* c) {
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

void RelateSkylake(std::mt19937_64& rng, double cycles, Counts* c) {
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
void RelateGoldenCove(std::mt19937_64& rng, double cycles, Counts* c) {
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

// What one (uarch, node) pair did over all vectors.
struct Tally {
  int values = 0, agree = 0, flags = 0, flags_agree = 0;
  std::string example;
};

// perf's Top-Down nodes td does not define (depth still to add; not a disagreement).
std::vector<std::string> PerfOnlyNodes(const Spec& spec);

// The differences that remain, with their cause (docs/analysis.md lists them).
const std::map<std::string, std::string>& KnownDifferences() {
  static const auto* known = new std::map<std::string, std::string>{
  };
  return *known;
}

std::map<std::string, Tally> Compare(const Spec& spec, int vectors) {
  auto library = DefinitionLibrary::Load();
  EXPECT_TRUE(library.ok());
  auto set_or = library->ForUarch(spec.uarch);
  EXPECT_TRUE(set_or.ok());
  const MetricSet set = *set_or;
  const PerfMetrics perf = LoadPerf(spec.files, spec.unit);
  // The events either side needs: perf's (through its metric references) and td's.
  std::set<std::string> events, seen;
  std::vector<std::pair<std::string, std::string>> pairs;  // td node, perf metric
  for (const FormulaDefinition& node : set.nodes) {
    if (node.level < 1) continue;
    const std::string name = PerfName(spec.uarch, node.name);
    if (!perf.count(name)) continue;
    pairs.emplace_back(node.name, name);
    PerfEvents(perf, name, &seen, &events);
    if (!perf.at(name).threshold.empty()) {
      auto t = Translate(perf.at(name).threshold);
      if (auto e = t.ok() ? Expression::Parse(*t) : absl::StatusOr<Expression>(t.status()); e.ok()) {
        for (const std::string& n : e->Names()) {
          if (perf.count(n)) PerfEvents(perf, n, &seen, &events);
        }
      }
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
  for (const char* smt_only : {"cpu_clk_unhalted.thread_any", "int_misc.recovery_cycles_any"}) {
    events.erase(smt_only);
  }
  std::map<std::string, Tally> tallies;
  std::mt19937_64 rng(16);
  const std::vector<uint64_t> cpuids = spec.cpuids.empty() ? std::vector<uint64_t>{0} : spec.cpuids;
  for (int v = 0; v < vectors; ++v) {
    const uint64_t cpuid = cpuids[static_cast<size_t>(v) % cpuids.size()];
    const double cycles = Uniform(rng, 1e6, 1e10);
    Counts counts;
    // Any event at most a tenth of the cycles; the related ones are set below.
    for (const std::string& e : events) counts[e] = Uniform(rng, 0, cycles / 10);
    for (const char* clock : {"cycles", "cpu_cycles", "cpu_clk_unhalted.thread", "cpu_clk_unhalted.thread_p",
                              "cpu_clk_unhalted.core", "cpu_clk_unhalted.core_p", "cpu_clk_unhalted.distributed"}) {
      if (counts.count(clock)) counts[clock] = cycles;
    }
    spec.relate(rng, cycles, cpuid, &counts);
    EvaluationOptions options;
    options.constants["SMT_on"] = 0;
    for (const auto& [k, value] : spec.td_constants) options.constants[k] = value;
    if (cpuid != 0) options.constants["CPU_Revision"] = static_cast<double>(((cpuid >> 20) & 0xf) * 16 + (cpuid & 0xf));
    const TopDownResult td = AnalyzeCounts(set, [&counts](const std::vector<std::string>& spellings, std::string*) {
      for (const std::string& s : spellings) {
        if (auto it = counts.find(s); it != counts.end()) return std::optional<double>(it->second);
      }
      return std::optional<double>();
    }, options);
    PerfEvaluator perf_eval(perf, counts, spec.literals, cpuid);
    for (const auto& [node, name] : pairs) {
      const TreeNode* mine = td.Find(node);
      const Value theirs = perf_eval.Metric(name);
      Tally& t = tallies[spec.uarch + " " + node];
      if (mine == nullptr || !mine->value || !theirs.measured) {
        if (t.example.empty()) {
          t.example = mine == nullptr || !mine->value ? "td: " + (mine ? mine->why_not : std::string("no node"))
                                                      : "perf: " + theirs.missing + " missing";
        }
        continue;
      }
      const double p = theirs.number * perf.at(name).scale;
      ++t.values;
      if (std::fabs(p - *mine->value) <= 1e-9 * std::max(1.0, std::fabs(p))) {
        ++t.agree;
      } else if (t.example.empty() || t.example.rfind("td:", 0) == 0 || t.example.rfind("perf:", 0) == 0) {
        t.example = absl::StrFormat("td %.6g, perf %.6g", *mine->value, p);
      }
      if (!perf.at(name).threshold.empty()) {
        const Value flag = perf_eval.Threshold(name);
        if (flag.measured) {
          ++t.flags;
          if ((flag.number != 0) == mine->flagged) ++t.flags_agree;
        }
      }
    }
  }
  return tallies;
}

std::vector<std::string> PerfOnlyNodes(const Spec& spec) {
  auto library = DefinitionLibrary::Load();
  const MetricSet set = *library->ForUarch(spec.uarch);
  std::set<std::string> mine;
  for (const FormulaDefinition& node : set.nodes) {
    if (node.level >= 1) mine.insert(PerfName(spec.uarch, node.name));
  }
  std::vector<std::string> out;
  for (const auto& [name, m] : LoadPerf(spec.files, spec.unit)) {
    if (m.tree && name.rfind("tma_info", 0) != 0 && !mine.count(name)) out.push_back(name);
  }
  return out;
}

class PerfMetricsDiff : public ::testing::TestWithParam<Spec> {};

TEST_P(PerfMetricsDiff, NodesAgreeWithPerfOrTheDifferenceIsListed) {
  const Spec& spec = GetParam();
  constexpr int kVectors = 200;
  const auto tallies = Compare(spec, kVectors);
  int pairs = 0, agreeing = 0;
  for (const auto& [key, t] : tallies) {
    ++pairs;
    const bool agrees = t.values == kVectors && t.agree == t.values && t.flags_agree == t.flags;
    agreeing += agrees;
    std::printf("  %-70s values %3d/%3d  flags %3d/%3d  %s\n", key.c_str(), t.agree, t.values, t.flags_agree,
                t.flags, agrees ? "" : t.example.c_str());
    const auto known = KnownDifferences().find(key);
    if (known != KnownDifferences().end()) {
      EXPECT_FALSE(agrees) << key << " agrees now: take it off the list (" << known->second << ")";
    } else {
      EXPECT_TRUE(agrees) << key << ": " << t.example;
    }
  }
  std::printf("%s: %d of %d nodes agree with perf 6.12 on all %d vectors\n", spec.uarch.c_str(), agreeing, pairs,
              kVectors);
  const std::vector<std::string> missing = PerfOnlyNodes(spec);
  std::printf("%s: %zu Top-Down nodes of perf 6.12 that td does not define: %s\n", spec.uarch.c_str(),
              missing.size(), absl::StrJoin(missing, " ").c_str());
  EXPECT_GT(pairs, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Perf612, PerfMetricsDiff,
    ::testing::Values(
        Spec{"neoverse_n2", {"arm64/arm/neoverse-n2-v2/metrics.json", "arm64/sbsa.json"}, "", {{"slots", 5}},
             {0x410fd490, 0x410fd492, 0x410fd493, 0x411fd490},
             [](std::mt19937_64& rng, double cycles, uint64_t cpuid, Counts* c) {
               RelateArm(rng, cycles, c, 5);
               if (CpuidAtLeast(cpuid, 0x410fd493) == 0) {  // before r0p3: one slot a cycle too many
                 (*c)["stall_slot_frontend"] += cycles;
                 (*c)["stall_slot"] += cycles;
               }
             }},
        Spec{"neoverse_v2", {"arm64/arm/neoverse-n2-v2/metrics.json", "arm64/sbsa.json"}, "", {{"slots", 8}},
             {0x410fd4f0, 0x410fd4f1},
             [](std::mt19937_64& rng, double cycles, uint64_t, Counts* c) { RelateArm(rng, cycles, c, 8); }},
        Spec{"neoverse_v1", {"arm64/arm/neoverse-v1/metrics.json", "arm64/sbsa.json"}, "", {{"slots", 8}},
             {0x410fd400},
             [](std::mt19937_64& rng, double cycles, uint64_t, Counts* c) { RelateArm(rng, cycles, c, 8); }},
        Spec{"adl_grt", {"x86/alderlake/adl-metrics.json"}, "cpu_atom", {{"SMT_on", 0}, {"core_wide", 0}}, {},
             [](std::mt19937_64& rng, double cycles, uint64_t, Counts* c) { RelateGracemont(rng, cycles, c); }},
        Spec{"adl_glc", {"x86/alderlake/adl-metrics.json"}, "cpu_core", {{"SMT_on", 0}, {"core_wide", 0}}, {},
             [](std::mt19937_64& rng, double cycles, uint64_t, Counts* c) { RelateGoldenCove(rng, cycles, c); }},
        Spec{"skx", {"x86/skylakex/skx-metrics.json"}, "", {{"SMT_on", 0}, {"core_wide", 0}}, {},
             [](std::mt19937_64& rng, double cycles, uint64_t, Counts* c) { RelateSkylake(rng, cycles, c); },
             {{"Sockets", 2}}}),  // perf's server file has the multi-socket forms
    [](const ::testing::TestParamInfo<Spec>& info) { return info.param.uarch; });

}  // namespace
}  // namespace td

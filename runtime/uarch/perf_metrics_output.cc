// What an import keeps and writes: the nodes whose formulas and ancestors
// were translated (for an extended key, only those td lacks), the
// auxiliaries and events they reach, and the definition file around them.
#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/uarch/expression.h"
#include "runtime/uarch/perf_metrics_importer.h"

namespace td::perf_import {
namespace {

int MinLevel(const nlohmann::json& nodes) {
  int level = nodes.empty() ? 0 : nodes[0]["level"].get<int>();
  for (const auto& n : nodes) level = std::min(level, n["level"].get<int>());
  return level;
}

}  // namespace

std::vector<std::string> Importer::TreeOrder() const {
  std::vector<std::string> order;
  std::set<std::string> done;
  std::function<void(const std::string&)> visit = [&](const std::string& metric) {
    if (!done.insert(metric).second) return;
    order.push_back(metric);
    for (const std::string& child : metric_order_) {
      auto it = paths_.find(child);
      if (it == paths_.end()) continue;
      const size_t dot = it->second.rfind('.');
      if (dot != std::string::npos && it->second.substr(0, dot) == paths_.at(metric)) visit(child);
    }
  };
  for (const char* first : {"tma_frontend_bound", "tma_bad_speculation", "tma_backend_bound", "tma_retiring",
                            "frontend_bound", "bad_speculation", "backend_bound", "retiring"}) {
    if (paths_.count(first) && metrics_.at(first).level == 1) visit(first);
  }
  for (const std::string& metric : metric_order_) {
    if (paths_.count(metric) && metrics_.at(metric).level == 1) visit(metric);
  }
  return order;
}

// A node is kept when its formula and its ancestors' are.
nlohmann::json Importer::KeptNodes(const std::vector<std::string>& order) {
  json nodes = json::array();
  std::set<std::string> kept_paths;
  for (const std::string& metric : order) {
    const PerfMetricEntry& m = metrics_.at(metric);
    const std::string& path = paths_.at(metric);
    const size_t dot = path.rfind('.');
    if (dot != std::string::npos && !kept_paths.count(path.substr(0, dot))) {
      Skip(metric, "its parent " + path.substr(0, dot) + " was skipped");
      continue;
    }
    const absl::StatusOr<std::string>& formula = formulas_.at(metric);
    if (!formula.ok()) continue;
    json node = {{"name", path}, {"level", m.level}};
    if (const std::string kind = KindOf(m); kind != "fraction_of_slots") node["kind"] = kind;
    node["formula"] = *formula;
    Threshold(m, &node);
    node["perf_metric"] = metric;
    if (auto former = former_paths_.find(metric); former != former_paths_.end()) node["formerly"] = {former->second};
    nodes.push_back(std::move(node));
    kept_paths.insert(path);
  }
  DropNodesUsingDropped(&nodes, &kept_paths);
  return nodes;
}

// A node's formula may use a node that was dropped as a descendant of a
// skipped one: drop those too, until nothing changes.
void Importer::DropNodesUsingDropped(json* nodes, std::set<std::string>* kept_paths) {
  std::set<std::string> all_paths;
  for (const auto& [metric, path] : paths_) all_paths.insert(path);
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = nodes->begin(); it != nodes->end();) {
      std::string missing;
      for (const char* field : {"formula", "flagged_if"}) {
        if (!it->contains(field)) continue;
        for (const std::string& n : Expression::Parse((*it)[field].get<std::string>())->Names()) {
          if (all_paths.count(n) && !kept_paths->count(n)) missing = n;
        }
      }
      const std::string path = (*it)["name"].get<std::string>();
      const size_t dot = path.rfind('.');
      if (missing.empty() && dot != std::string::npos && !kept_paths->count(path.substr(0, dot))) {
        missing = path.substr(0, dot);
      }
      if (!missing.empty()) {
        Skip((*it)["perf_metric"].get<std::string>(), "it uses " + missing + ", which was skipped");
        kept_paths->erase(path);
        it = nodes->erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
}

std::set<std::string> Importer::ReachedNames(const json& nodes) const {
  std::set<std::string> reached;
  std::vector<std::string> pending;
  auto add = [&](const std::string& text) {
    for (const std::string& n : Expression::Parse(text)->Names()) {
      if (reached.insert(n).second) pending.push_back(n);
    }
  };
  for (const json& node : nodes) {
    for (const char* field : {"formula", "flagged_if"}) {
      if (node.contains(field)) add(node[field].get<std::string>());
    }
  }
  std::map<std::string, std::string> auxiliary_formulas;  // "#name" -> formula
  for (const std::string& metric : auxiliaries_used_) {
    if (const auto& f = formulas_.at(metric); f.ok()) auxiliary_formulas[AuxiliaryName(metric)] = *f;
  }
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    if (auto it = auxiliary_formulas.find(name); it != auxiliary_formulas.end()) add(it->second);
  }
  return reached;
}

// A node whose value rests on a vendor's mean retire latency (directly, or
// through an auxiliary or another such node) says so in the file, so every
// output can show it as an estimate.
void Importer::MarkEstimated(json* nodes) const {
  std::set<std::string> estimated;
  bool changed = true;
  while (changed) {
    changed = false;
    for (json& node : *nodes) {
      const std::string path = node["name"].get<std::string>();
      if (estimated.count(path)) continue;
      const std::set<std::string> reached = ReachedNames(json::array({{{"formula", node["formula"]}}}));
      const bool uses = std::any_of(reached.begin(), reached.end(), [&](const std::string& n) {
        return retire_latencies_.count(n) || estimated.count(n);
      });
      if (uses) {
        node["estimated"] = kStaticRetireLatency;
        estimated.insert(path);
        changed = true;
      }
    }
  }
}

absl::StatusOr<PerfImportResult> Importer::Run(const std::vector<PerfInputFile>& files) {
  if (auto s = Load(files); !s.ok()) return s;
  PlaceNodes();
  if (paths_.empty()) {
    return absl::InvalidArgumentError("the metrics files define no Top-Down (tma_*) node with a TopdownL level");
  }
  const std::vector<std::string> order = TreeOrder();
  for (const std::string& metric : order) (void)Formula(metric);
  json nodes = KeptNodes(order);
  if (td_ != nullptr && !options_.supersede) {
    // td's own nodes stay td's: only the ones it lacks are written, under
    // its nodes (their formulas name td's nodes by the same names).
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                               [&](const json& n) { return td_->FindNode(n["name"].get<std::string>()) != nullptr; }),
                nodes.end());
  }
  MarkEstimated(&nodes);
  // Auxiliaries and events: those the kept nodes reach.
  const std::set<std::string> reached = ReachedNames(nodes);
  for (const auto& [name, mean] : retire_latencies_) {
    if (reached.count(name)) used_retire_latencies_[name] = mean;
  }
  PerfImportResult result;
  json auxiliaries = json::array();
  for (const std::string& metric : metric_order_) {
    if (!auxiliaries_used_.count(metric) || !reached.count(AuxiliaryName(metric))) continue;
    const absl::StatusOr<std::string>& formula = formulas_.at(metric);
    if (!formula.ok()) continue;
    const PerfMetricEntry& m = metrics_.at(metric);
    json aux = {{"name", AuxiliaryName(metric)}, {"formula", *formula}};
    if (!m.scale_unit.empty() && m.scale_unit != "100%" && m.scale_unit != "1") aux["note"] = "perf's ScaleUnit " + m.scale_unit;
    aux["perf_metric"] = metric;
    auxiliaries.push_back(std::move(aux));
  }
  json events = json::array();
  for (const auto& [name, key] : event_keys_) {
    if (reached.count(name)) events.push_back(declared_events_.at(key));
  }
  std::sort(events.begin(), events.end(), [](const json& a, const json& b) { return a["name"] < b["name"]; });
  for (const json& node : nodes) result.max_level = std::max(result.max_level, node["level"].get<int>());
  result.min_level = MinLevel(nodes);
  result.nodes = static_cast<int>(nodes.size());
  result.auxiliaries = static_cast<int>(auxiliaries.size());
  result.events = static_cast<int>(events.size());
  result.definition = Definition(nodes, auxiliaries, events, result);
  result.skipped = skipped_;
  return result;
}

nlohmann::json Importer::Definition(const json& nodes, const json& auxiliaries, const json& events,
                                    const PerfImportResult& counts) const {
  json uarch = json::object();
  json constants = json::object();
  // The machine's properties perf's formulas use, where td's set lacks them
  // (the engine sets SMT_on and Has_PMEM from the recording).
  if (td_ == nullptr) constants["SMT_on"] = 0;
  for (const char* literal : {"SMT_on", "Core_Wide"}) {
    if (used_literals_.count(literal) && (td_ == nullptr || !td_->constants.contains(literal))) constants[literal] = 0;
  }
  if (used_literals_.count("Pipeline_Width")) constants["Pipeline_Width"] = options_.slots;
  for (const auto& [name, mean] : used_retire_latencies_) constants[name] = mean;
  if (!constants.empty()) uarch["constants"] = constants;
  if (!options_.cpus.empty()) {
    json cpus = json::array();
    for (const PerfCpu& c : options_.cpus) {
      json cpu = c.part >= 0 ? json{{"vendor", c.vendor}, {"part", c.part}}
                             : json{{"vendor", c.vendor}, {"family", c.family}, {"models", {c.model}}};
      if (!options_.hybrid.empty() && !options_.pmu.empty()) {
        cpu["hybrid"] = options_.hybrid;
        cpu["core_pmu"] = options_.pmu;
      }
      cpus.push_back(std::move(cpu));
    }
    uarch["cpus"] = cpus;
  }
  if (!options_.libpfm_pmu.empty()) uarch["libpfm_pmu"] = options_.libpfm_pmu;
  if (!options_.tma_version.empty()) uarch["tma_version"] = options_.tma_version;
  const std::string vendor = options_.cpus.empty() ? "" : options_.cpus.front().vendor;
  const std::string family_prefix = vendor == "AuthenticAMD" ? "amd_"
                                    : vendor == "GenuineIntel" ? "intel_"
                                    : IsArm()                  ? "arm_"
                                                               : "";
  const std::string kernel = options_.kernel.empty() ? "unknown" : options_.kernel;
  const std::string what =
      td_ == nullptr ? "" : options_.supersede ? absl::StrFormat(
          " The vendor's whole tree for %s, under its current names: each node's formula comes first and td's own "
          "for it stays as the older version's fallback, used (and labelled with that version) where a recording "
          "lacks this formula's events.", options_.uarch) : absl::StrFormat(" The Top-Down nodes td's own definitions of %s lack, under td's nodes; "
                                            "td's own nodes and auxiliaries are never replaced (the loader refuses it); an "
                                            "event td's table encodes otherwise than this CPU's event file gets this "
                                            "CPU's encoding, for this key only.",
                                            options_.uarch);
  json def;
  def["family"] = family_prefix + options_.uarch +
                  (td_ == nullptr ? "_from_perf" : options_.supersede ? "_vendor_tma" : "_depth_from_perf");
  def["description"] = absl::StrFormat(
      "Imported by `td import-metrics%s` from %s%s: %s.%s %d Top-Down nodes "
      "(Levels %d-%d), %d auxiliaries, %d events; %d metrics or rules not translated (listed in \"notes\"). "
      "Formulas and thresholds are perf's (MetricExpr, MetricThreshold) in td's expression language; event "
      "encodings (perf_event_attr.config) are %s.",
      td_ == nullptr ? "" : options_.supersede ? " --supersede" : " --extend",
      options_.origin.empty() ? "Linux perf's pmu-events JSON (kernel " + kernel : options_.origin + " (perf's format",
      (options_.pmu.empty() ? "" : ", PMU " + options_.pmu) + ")" + RetireLatencyText(),
      absl::StrJoin(options_.paths, " ", [](std::string* out, const std::string& p) { out->append(PathInKernelTree(p)); }),
      what, counts.nodes, counts.min_level, counts.max_level, counts.auxiliaries, counts.events,
      static_cast<int>(skipped_.size()),
      IsArm() ? "Arm's common event numbers (ArchStdEvent)"
      : amd_  ? "the event files' EventCode/UMask/CounterMask, or td's own AMD encodings where no event file was given"
              : "the event files' EventCode/UMask/CounterMask/EdgeDetect/Invert/AnyThread");
  def["threshold_source"] =
      "perf's MetricThreshold of each node: \"threshold\" where the rule is the node above a number chained with its "
      "parent's rule, \"flagged_if\" with the whole rule otherwise.";
  if (IsArm() && td_ == nullptr) def["counters"] = ArmCounters();
  def["source"] = {{"tool", "td import-metrics"}, {"files", sources_}};
  if (options_.origin.empty()) def["source"]["kernel"] = kernel;
  if (!options_.origin.empty()) def["source"]["origin"] = options_.origin;
  if (!options_.pmu.empty()) def["source"]["pmu"] = options_.pmu;
  if (td_ != nullptr) def["source"][options_.supersede ? "supersedes" : "extends"] = options_.uarch;
  def["notes"] = skipped_;
  def["uarchs"] = {{options_.uarch, uarch}};
  def["events"] = events;
  def["auxiliaries"] = auxiliaries;
  def["nodes"] = nodes;
  return def;
}

// What the description says of ":R" terms, when the nodes use any.
std::string Importer::RetireLatencyText() const {
  if (used_retire_latencies_.empty()) return "";
  return absl::StrFormat(
      "; %d retire-latency terms (perf's \":R\", sampled by perf stat --record-tpebs) are the vendor's mean retire "
      "latency (RetirementLatencyMean%s) as constants, used where a recording brings no sampled value; the nodes built "
      "on them say \"estimated\": \"%s\"",
      static_cast<int>(used_retire_latencies_.size()),
      options_.retire_latency_paths.empty()
          ? " of the event files"
          : ", lent by " + absl::StrJoin(options_.retire_latency_paths, " ") + " where this CPU's files give none",
      kStaticRetireLatency);
}

}  // namespace td::perf_import

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
  for (const char* first : {"tma_frontend_bound", "tma_bad_speculation", "tma_backend_bound", "tma_retiring"}) {
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

absl::StatusOr<PerfImportResult> Importer::Run(const std::vector<PerfInputFile>& files) {
  if (auto s = Load(files); !s.ok()) return s;
  PlaceNodes();
  if (paths_.empty()) {
    return absl::InvalidArgumentError("the metrics files define no Top-Down (tma_*) node with a TopdownL level");
  }
  const std::vector<std::string> order = TreeOrder();
  for (const std::string& metric : order) (void)Formula(metric);
  json nodes = KeptNodes(order);
  if (td_ != nullptr) {
    // td's own nodes stay td's: only the ones it lacks are written, under
    // its nodes (their formulas name td's nodes by the same names).
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                               [&](const json& n) { return td_->FindNode(n["name"].get<std::string>()) != nullptr; }),
                nodes.end());
  }
  // Auxiliaries and events: those the kept nodes reach.
  const std::set<std::string> reached = ReachedNames(nodes);
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
  if (!constants.empty()) uarch["constants"] = constants;
  if (!options_.cpus.empty()) {
    json cpus = json::array();
    for (const PerfCpu& c : options_.cpus) {
      cpus.push_back({{"vendor", c.vendor}, {"family", c.family}, {"models", {c.model}}});
    }
    uarch["cpus"] = cpus;
  }
  if (!options_.libpfm_pmu.empty()) uarch["libpfm_pmu"] = options_.libpfm_pmu;
  const std::string vendor = options_.cpus.empty() ? "" : options_.cpus.front().vendor;
  const std::string family_prefix = vendor == "AuthenticAMD" ? "amd_" : vendor == "GenuineIntel" ? "intel_" : "";
  const std::string kernel = options_.kernel.empty() ? "unknown" : options_.kernel;
  const std::string what =
      td_ == nullptr ? "" : absl::StrFormat(" The Top-Down nodes td's own definitions of %s lack, under td's nodes; "
                                            "td's own nodes and auxiliaries are never replaced (the loader refuses it); an "
                                            "event td's table encodes otherwise than this CPU's event file gets this "
                                            "CPU's encoding, for this key only.",
                                            options_.uarch);
  json def;
  def["family"] = family_prefix + options_.uarch + (td_ == nullptr ? "_from_perf" : "_depth_from_perf");
  def["description"] = absl::StrFormat(
      "Imported by `td import-metrics%s` from Linux perf's pmu-events JSON (kernel %s%s): %s.%s %d Top-Down nodes "
      "(Levels %d-%d), %d auxiliaries, %d events; %d metrics or rules not translated (listed in \"notes\"). "
      "Formulas and thresholds are perf's (MetricExpr, MetricThreshold) in td's expression language; event "
      "encodings are the event files' EventCode/UMask/CounterMask/EdgeDetect/Invert/AnyThread as "
      "perf_event_attr.config.",
      td_ == nullptr ? "" : " --extend", kernel, options_.pmu.empty() ? "" : ", PMU " + options_.pmu,
      absl::StrJoin(options_.paths, " ", [](std::string* out, const std::string& p) { out->append(PathInKernelTree(p)); }),
      what, counts.nodes, counts.min_level, counts.max_level, counts.auxiliaries, counts.events,
      static_cast<int>(skipped_.size()));
  def["threshold_source"] =
      "perf's MetricThreshold of each node: \"threshold\" where the rule is the node above a number chained with its "
      "parent's rule, \"flagged_if\" with the whole rule otherwise.";
  def["source"] = {{"tool", "td import-metrics"}, {"kernel", kernel}, {"files", sources_}};
  if (!options_.pmu.empty()) def["source"]["pmu"] = options_.pmu;
  if (td_ != nullptr) def["source"]["extends"] = options_.uarch;
  def["notes"] = skipped_;
  def["uarchs"] = {{options_.uarch, uarch}};
  def["events"] = events;
  def["auxiliaries"] = auxiliaries;
  def["nodes"] = nodes;
  return def;
}

}  // namespace td::perf_import

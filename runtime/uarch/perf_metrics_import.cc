#include "runtime/uarch/perf_metrics_import.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/event_names.h"
#include "runtime/uarch/expression.h"

namespace td {
namespace {

using nlohmann::json;

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool NameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '#'; }

}  // namespace

namespace {

struct PerfMetricEntry {
  std::string name, expr, threshold, scale_unit, brief, unit;
  std::vector<std::string> groups;
  int level = 0;  // Top-Down level, 0 = not a tree node
};

// One event of the event files, with its encoding fields.
struct PerfEventEntry {
  std::string name;  // as the file spells it
  std::string code_text;
  uint64_t code = 0, umask = 0, cmask = 0;
  bool edge = false, inv = false, any = false;
  std::string msr;  // "MSRIndex=… MSRValue=…" when the event needs more than config
  bool deprecated = false;
};

// The field as a number ("0x3c", "3", 3); `fallback` when absent.
uint64_t NumberField(const json& e, const char* key, uint64_t fallback = 0) {
  if (!e.contains(key)) return fallback;
  const json& v = e[key];
  if (v.is_number_unsigned() || v.is_number_integer()) return v.get<uint64_t>();
  if (!v.is_string()) return fallback;
  return std::strtoull(v.get<std::string>().c_str(), nullptr, 0);
}

std::string StringField(const json& e, const char* key) {
  if (!e.contains(key)) return "";
  const json& v = e[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) return v.dump();
  return "";
}

// Kernel events perf's metrics use that no event file lists: the
// PERF_METRICS pseudo events of Ice Lake and later (their config as the
// kernel's sysfs "events" directory gives it) and perf's generic ones.
struct KernelEvent {
  const char* name;
  const char* config;  // "" when perf or the kernel encode it
  const char* note;
};
const KernelEvent* FindKernelEvent(const std::string& normalized) {
  static const KernelEvent kEvents[] = {
      {"topdown-retiring", "0x8000", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-bad-spec", "0x8100", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-fe-bound", "0x8200", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-be-bound", "0x8300", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-heavy-ops", "0x8400", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-br-mispredict", "0x8500", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-fetch-lat", "0x8600", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-mem-bound", "0x8700", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"duration_time", "", "perf's wall-clock time of the measurement, in seconds"},
      {"tsc", "", "time-stamp counter ticks over the measurement (perf's msr/tsc/ event)"},
      {"cycles", "", "perf generic"},
      {"instructions", "", "perf generic"},
      {"ref-cycles", "", "perf generic"},
      {"task-clock", "", "perf software event"},
  };
  for (const KernelEvent& e : kEvents) {
    if (normalized == e.name) return &e;
  }
  return nullptr;
}

// The translation of one set of files.
class Importer {
 public:
  Importer(const PerfImportOptions& options) : options_(options) {}

  absl::StatusOr<PerfImportResult> Run(const std::vector<PerfInputFile>& files);

 private:
  absl::Status Load(const std::vector<PerfInputFile>& files);
  void PlaceNodes();
  absl::StatusOr<std::string> Path(const std::string& metric, std::set<std::string>* visiting);
  // The td formula of a metric (a node or an auxiliary); errors say why not.
  absl::StatusOr<std::string> Formula(const std::string& metric);
  absl::StatusOr<std::string> Name(const PerfExprName& name, std::string* depends_on);
  absl::StatusOr<std::string> Event(const std::string& normalized, const std::string& privilege);
  absl::StatusOr<std::string> Literal(const std::string& literal);
  void Threshold(const PerfMetricEntry& m, json* node);
  std::string Skip(const std::string& metric, const std::string& why);
  static std::string AuxiliaryName(const std::string& metric);
  std::string KindOf(const PerfMetricEntry& m) const;

  const PerfImportOptions& options_;
  std::map<std::string, PerfMetricEntry> metrics_;  // after the PMU filter
  std::vector<std::string> metric_order_;
  std::map<std::string, PerfEventEntry> events_;  // by normalized name
  std::map<std::string, std::string> paths_;      // node metric -> td path
  std::map<std::string, absl::StatusOr<std::string>> formulas_;  // memo
  std::set<std::string> in_progress_;
  std::set<std::string> auxiliaries_used_;  // metrics written as auxiliaries
  std::map<std::string, json> declared_events_;  // normalized -> td event entry
  std::vector<std::string> skipped_;
  std::set<std::string> skipped_names_;
  std::set<std::string> used_literals_;
  std::vector<json> sources_;
};

absl::Status Importer::Load(const std::vector<PerfInputFile>& files) {
  std::vector<json> metric_lists, event_lists;
  for (const PerfInputFile& f : files) {
    json j = json::parse(f.text, nullptr, false);
    if (j.is_discarded()) return absl::InvalidArgumentError(f.path + ": not valid JSON");
    bool metrics = false, events = false;
    if (j.is_array()) {
      for (const json& e : j) {
        if (!e.is_object()) continue;
        metrics |= e.contains("MetricName") && e.contains("MetricExpr");
        events |= e.contains("EventName");
      }
    }
    if (!metrics && !events) {
      // perf's metricgroups.json and counter.json sit beside the event files.
      if (f.in_directory && (j.is_object() || (j.is_array() && !j.empty() && j[0].is_object() &&
                                               j[0].contains("CountersNumGeneric")))) {
        continue;
      }
      return absl::InvalidArgumentError(
          f.path + ": not a perf metrics or events file (a JSON list of MetricName or EventName entries)");
    }
    sources_.push_back({{"path", f.path}, {"sha256", Sha256Hex(f.text)}, {"kind", metrics ? "metrics" : "events"}});
    (metrics ? metric_lists : event_lists).push_back(std::move(j));
  }
  if (metric_lists.empty()) {
    return absl::InvalidArgumentError(
        "no perf metrics file among the inputs (a JSON list of MetricName/MetricExpr entries, e.g. "
        "arch/x86/sierraforest/srf-metrics.json)");
  }
  // Hybrid files hold the metrics of several PMUs under the same names.
  std::set<std::string> units;
  for (const json& list : metric_lists) {
    for (const json& m : list) {
      if (m.is_object() && m.contains("Unit")) units.insert(StringField(m, "Unit"));
    }
  }
  if (units.size() > 1 && options_.pmu.empty()) {
    return absl::InvalidArgumentError("the metrics are those of several PMUs (" + absl::StrJoin(units, ", ") +
                                      "); choose one with --pmu");
  }
  if (!options_.pmu.empty() && !units.empty() && !units.count(options_.pmu)) {
    return absl::InvalidArgumentError("no metrics of PMU " + options_.pmu + "; the files have " +
                                      absl::StrJoin(units, ", "));
  }
  static const std::regex kLevel("^(?:TopdownL|tma_L)([1-9])(?:_group)?$");
  for (const json& list : metric_lists) {
    for (const json& m : list) {
      if (!m.is_object() || !m.contains("MetricName") || !m.contains("MetricExpr")) continue;
      PerfMetricEntry e;
      e.name = StringField(m, "MetricName");
      e.unit = StringField(m, "Unit");
      if (!options_.pmu.empty() && !e.unit.empty() && e.unit != options_.pmu) continue;
      if (e.name.empty() || metrics_.count(e.name)) continue;
      e.expr = StringField(m, "MetricExpr");
      e.threshold = StringField(m, "MetricThreshold");
      e.scale_unit = StringField(m, "ScaleUnit");
      e.brief = StringField(m, "BriefDescription");
      e.groups = absl::StrSplit(StringField(m, "MetricGroup"), ';', absl::SkipEmpty());
      if (e.name.rfind("tma_", 0) == 0 && e.name.rfind("tma_info_", 0) != 0) {
        for (const std::string& g : e.groups) {
          std::smatch match;
          if (std::regex_match(g, match, kLevel)) e.level = std::stoi(match[1].str());
        }
      }
      metric_order_.push_back(e.name);
      metrics_.emplace(e.name, std::move(e));
    }
  }
  for (const json& list : event_lists) {
    for (const json& e : list) {
      if (!e.is_object() || !e.contains("EventName")) continue;
      const std::string unit = StringField(e, "Unit");
      if (!unit.empty() && unit != options_.pmu) continue;  // another PMU, or uncore
      PerfEventEntry ev;
      ev.name = StringField(e, "EventName");
      ev.code_text = StringField(e, "EventCode");
      ev.code = NumberField(e, "EventCode");
      ev.umask = NumberField(e, "UMask");
      ev.cmask = NumberField(e, "CounterMask");
      ev.edge = NumberField(e, "EdgeDetect") != 0;
      ev.inv = NumberField(e, "Invert") != 0;
      ev.any = NumberField(e, "AnyThread") != 0;
      ev.deprecated = NumberField(e, "Deprecated") != 0;
      if (NumberField(e, "MSRIndex") != 0 || NumberField(e, "MSRValue") != 0) {
        ev.msr = absl::StrFormat("MSRIndex %s, MSRValue %s", StringField(e, "MSRIndex"), StringField(e, "MSRValue"));
      }
      const std::string key = NormalizeEventName(ev.name);
      auto it = events_.find(key);
      if (it == events_.end() || (it->second.deprecated && !ev.deprecated)) events_[key] = std::move(ev);
    }
  }
  return absl::OkStatus();
}

std::string Importer::Skip(const std::string& metric, const std::string& why) {
  if (skipped_names_.insert(metric).second) skipped_.push_back(metric + ": " + why);
  return why;
}

std::string Importer::AuxiliaryName(const std::string& metric) {
  std::string out = "#";
  for (char c : metric) out += NameChar(c) && c != '#' ? c : '_';
  return out;
}

// The td path of a node metric, from its parent's (MetricGroup "tma_PARENT_group").
absl::StatusOr<std::string> Importer::Path(const std::string& metric, std::set<std::string>* visiting) {
  if (auto it = paths_.find(metric); it != paths_.end()) return it->second;
  const PerfMetricEntry& m = metrics_.at(metric);
  if (!visiting->insert(metric).second) return absl::InvalidArgumentError("its MetricGroup parents form a cycle");
  std::string path = TdNodeNameForPerf(metric);
  if (m.level > 1) {
    std::string parent;
    for (const std::string& g : m.groups) {
      if (g.size() <= 10 || g.rfind("tma_", 0) != 0 || g.compare(g.size() - 6, 6, "_group") != 0) continue;
      const std::string candidate = g.substr(0, g.size() - 6);
      auto it = metrics_.find(candidate);
      if (it == metrics_.end() || it->second.level == 0) continue;
      if (parent.empty() || it->second.level == m.level - 1) parent = candidate;
    }
    if (parent.empty()) return absl::InvalidArgumentError(absl::StrFormat("Level %d but no parent among its MetricGroups", m.level));
    if (metrics_.at(parent).level != m.level - 1) {
      return absl::InvalidArgumentError(absl::StrFormat("Level %d under %s of Level %d", m.level, parent, metrics_.at(parent).level));
    }
    absl::StatusOr<std::string> parent_path = Path(parent, visiting);
    if (!parent_path.ok()) return absl::InvalidArgumentError("its parent " + parent + " was skipped");
    path = *parent_path + "." + path;
  }
  paths_[metric] = path;
  return path;
}

void Importer::PlaceNodes() {
  std::map<std::string, std::string> taken;  // td path -> metric
  for (const std::string& name : metric_order_) {
    if (metrics_.at(name).level == 0) continue;
    std::set<std::string> visiting;
    absl::StatusOr<std::string> path = Path(name, &visiting);
    if (!path.ok()) {
      Skip(name, std::string(path.status().message()));
      paths_.erase(name);
      continue;
    }
    if (auto [it, fresh] = taken.emplace(*path, name); !fresh) {
      Skip(name, "its td name " + *path + " is " + it->second + "'s already");
      paths_.erase(name);
    }
  }
  // A node whose parent was skipped goes too (its path was made before).
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = paths_.begin(); it != paths_.end();) {
      const size_t dot = it->second.rfind('.');
      const std::string parent_path = dot == std::string::npos ? "" : it->second.substr(0, dot);
      const bool orphan = !parent_path.empty() && std::none_of(paths_.begin(), paths_.end(), [&](const auto& p) {
        return p.second == parent_path;
      });
      if (orphan) {
        Skip(it->first, "its parent " + parent_path + " was skipped");
        it = paths_.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
}

absl::StatusOr<std::string> Importer::Literal(const std::string& literal) {
  // perf's "#" literals that are properties of the measured machine.
  static const std::map<std::string, std::string> kKnown = {
      {"#SMT_on", "SMT_on"},        // set by td from the machine (or the case's smt)
      {"#core_wide", "Core_Wide"},  // 0: td counts per thread, as perf does without -a
  };
  if (auto it = kKnown.find(literal); it != kKnown.end()) {
    used_literals_.insert(it->second);
    return it->second;
  }
  return absl::UnimplementedError("perf's " + literal + " (a property of the machine td does not record)");
}

absl::StatusOr<std::string> Importer::Event(const std::string& normalized, const std::string& privilege) {
  if (!privilege.empty()) {
    return absl::UnimplementedError("event " + normalized + " counted with modifier " + privilege +
                                    " (one privilege level only; td counts the event as a whole)");
  }
  if (auto it = declared_events_.find(normalized); it != declared_events_.end()) {
    return it->second["name"].get<std::string>();
  }
  const size_t colon = normalized.find(':');
  const std::string base = normalized.substr(0, colon);
  const std::string modifiers = colon == std::string::npos ? "" : normalized.substr(colon + 1);
  json entry;
  auto found = events_.find(base);
  if (found == events_.end()) {
    const KernelEvent* kernel = modifiers.empty() ? FindKernelEvent(base) : nullptr;
    if (kernel == nullptr) {
      return absl::UnimplementedError("event " + normalized + " is in none of the event files" +
                                      (events_.empty() ? " (no event files were given)" : ""));
    }
    entry["name"] = base == "tsc" ? "msr/tsc/" : base;
    if (*kernel->config) entry["encoding"] = {{"config", kernel->config}};
    entry["note"] = kernel->note;
    declared_events_[normalized] = entry;
    return base;
  }
  const PerfEventEntry& e = found->second;
  PerfEventEntry applied = e;
  const std::vector<std::string> terms = absl::StrSplit(modifiers, ':', absl::SkipEmpty());
  for (const std::string& m : terms) {
    uint64_t value = 0;
    if (m.rfind("u0x", 0) == 0 && absl::SimpleHexAtoi(m.substr(3), &value)) {
      applied.umask = value;
    } else if (m[0] == 'c' && absl::SimpleAtoi(m.substr(1), &value)) {
      applied.cmask = value;
    } else if (m == "e") {
      applied.edge = true;
    } else if (m == "i") {
      applied.inv = true;
    } else if (m == "t") {
      applied.any = true;
    } else {
      return absl::UnimplementedError("event " + normalized + ": term \"" + m + "\" has no place in config");
    }
  }
  std::string name = e.name + (modifiers.empty() ? "" : ":" + modifiers);
  entry["name"] = name;
  std::vector<std::string> notes;
  if (e.code_text.find(',') != std::string::npos || !e.msr.empty()) {
    notes.push_back("needs more than config (" + (e.msr.empty() ? "event codes " + e.code_text : e.msr) +
                    "): left to libpfm4");
  } else {
    uint64_t code = applied.code;
    uint64_t umask = applied.umask;
    if (code == 0 && (umask == 1 || umask == 2) && modifiers.empty()) {
      // Fixed-counter pseudo codes: td programs the general-purpose
      // encodings, which the kernel moves to the fixed counter.
      notes.push_back(absl::StrFormat("perf's fixed-counter pseudo code 0x%x; its general-purpose encoding", umask << 8));
      code = umask == 1 ? 0xc0 : 0x3c;
      umask = 0;
    }
    const uint64_t config = (code & 0xff) | ((code >> 8) & 0xf) << 32 | (umask & 0xff) << 8 |
                            (applied.edge ? 1ull << 18 : 0) | (applied.any ? 1ull << 21 : 0) |
                            (applied.inv ? 1ull << 23 : 0) | (applied.cmask & 0xff) << 24;
    entry["encoding"] = {{"config", absl::StrFormat("0x%x", config)}};
  }
  if (modifiers.empty()) {
    // The names td's own recordings use for the same counts.
    std::vector<std::string> aliases;
    if (base == "inst_retired.any") aliases.push_back("instructions");
    if (base == "cpu_clk_unhalted.thread" ||
        (base == "cpu_clk_unhalted.core" && !events_.count("cpu_clk_unhalted.thread"))) {
      aliases.push_back("cycles");
    }
    if (base == "cpu_clk_unhalted.ref_tsc") aliases.push_back("ref-cycles");
    if (!aliases.empty()) entry["aliases"] = aliases;
  }
  if (e.deprecated) notes.push_back("deprecated in perf's event list");
  if (!notes.empty()) entry["note"] = absl::StrJoin(notes, "; ");
  declared_events_[normalized] = entry;
  return name;
}

absl::StatusOr<std::string> Importer::Name(const PerfExprName& name, std::string* depends_on) {
  switch (name.kind) {
    case PerfExprName::kLiteral:
      return Literal(name.text);
    case PerfExprName::kCpuid:
      return absl::UnimplementedError("strcmp_cpuid_str()");
    case PerfExprName::kEvent:
      return Event(name.text, name.modifiers);
    case PerfExprName::kName:
      break;
  }
  if (metrics_.count(name.text)) {
    absl::StatusOr<std::string> formula = Formula(name.text);
    if (!formula.ok()) {
      *depends_on = name.text;
      return formula.status();
    }
    if (auto it = paths_.find(name.text); it != paths_.end()) return it->second;
    auxiliaries_used_.insert(name.text);
    return AuxiliaryName(name.text);
  }
  return Event(NormalizeEventName(name.text), "");
}

absl::StatusOr<std::string> Importer::Formula(const std::string& metric) {
  if (auto it = formulas_.find(metric); it != formulas_.end()) return it->second;
  if (!in_progress_.insert(metric).second) return absl::InvalidArgumentError("refers to itself through " + metric);
  const PerfMetricEntry& m = metrics_.at(metric);
  const bool node = m.level > 0;
  absl::StatusOr<std::string> result;
  if (node && !paths_.count(metric)) {
    result = absl::InvalidArgumentError("not placed in the tree");
  } else if (node && !m.scale_unit.empty() && m.scale_unit != "100%") {
    result = absl::UnimplementedError("ScaleUnit \"" + m.scale_unit + "\" (td's nodes are fractions)");
  } else {
    std::string depends_on;
    result = TranslatePerfExpression(m.expr, [&](const PerfExprName& n) { return Name(n, &depends_on); });
    if (!result.ok() && !depends_on.empty()) {
      result = absl::Status(result.status().code(), "it uses " + depends_on + ", which was skipped");
    }
    if (result.ok()) {
      if (absl::StatusOr<Expression> parsed = Expression::Parse(*result); !parsed.ok()) {
        result = absl::InvalidArgumentError("translated to \"" + *result + "\", which td cannot read: " +
                                            std::string(parsed.status().message()));
      }
    }
  }
  in_progress_.erase(metric);
  if (!result.ok()) {
    const std::string why(result.status().message());
    Skip(metric, why);
  }
  formulas_.emplace(metric, result);
  return result;
}

std::string Importer::KindOf(const PerfMetricEntry& m) const {
  const std::string d = absl::AsciiStrToLower(m.brief);
  if (d.find("slots") != std::string::npos) return "fraction_of_slots";
  if (d.find("cycles") != std::string::npos || d.find("how often") != std::string::npos) return "fraction_of_cycles";
  return "fraction_of_slots";
}

// perf's MetricThreshold as td's rule: "threshold" when it is "SELF > N"
// chained with the parent's own rule (td's "above it and parent flagged"),
// "flagged_if" with the whole rule translated otherwise.
void Importer::Threshold(const PerfMetricEntry& m, json* node) {
  if (m.threshold.empty()) return;
  auto squeeze = [](std::string s) {
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return IsSpace(c); }), s.end());
    return s;
  };
  const std::string rule = squeeze(m.threshold);
  static const std::regex kSelf("^([a-z0-9_]+)>([0-9.]+)(?:&(.*))?$");
  std::smatch match;
  std::optional<double> number;
  std::string rest;
  if (std::regex_match(rule, match, kSelf) && match[1].str() == m.name) {
    double n = 0;
    if (absl::SimpleAtod(match[2].str(), &n)) number = n;
    rest = match[3].str();
  }
  if (number) {
    (*node)["threshold"] = *number;
    std::string parent_rule;
    if (const size_t dot = paths_.at(m.name).rfind('.'); dot != std::string::npos) {
      for (const auto& [metric, path] : paths_) {
        if (path == paths_.at(m.name).substr(0, dot)) parent_rule = squeeze(metrics_.at(metric).threshold);
      }
    }
    const bool chained = m.level == 1 ? rest.empty()
                                      : !parent_rule.empty() && (rest == parent_rule || rest == "(" + parent_rule + ")");
    if (chained) return;
  }
  std::string depends_on;
  absl::StatusOr<std::string> rule_td =
      TranslatePerfExpression(m.threshold, [&](const PerfExprName& n) { return Name(n, &depends_on); });
  if (rule_td.ok() && !Expression::Parse(*rule_td).ok()) rule_td = absl::InvalidArgumentError("td cannot read " + *rule_td);
  if (!rule_td.ok()) {
    node->erase("threshold");
    skipped_.push_back(m.name + ": threshold not translated, the node is never flagged (" +
                       std::string(rule_td.status().message()) + ")");
    return;
  }
  (*node)["flagged_if"] = *rule_td;
}

absl::StatusOr<PerfImportResult> Importer::Run(const std::vector<PerfInputFile>& files) {
  if (auto s = Load(files); !s.ok()) return s;
  PlaceNodes();
  if (paths_.empty()) {
    return absl::InvalidArgumentError("the metrics files define no Top-Down (tma_*) node with a TopdownL level");
  }
  // Nodes depth-first: Level 1 in TMA's order, children in perf's order.
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
  for (const std::string& metric : order) (void)Formula(metric);
  // A node is kept when its formula and its ancestors' are.
  PerfImportResult result;
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
    node["perf"] = metric;
    nodes.push_back(std::move(node));
    kept_paths.insert(path);
    result.max_level = std::max(result.max_level, m.level);
  }
  // A node's formula may use a node that was dropped as a descendant of a
  // skipped one: drop those too, until nothing changes.
  bool changed = true;
  while (changed) {
    changed = false;
    std::set<std::string> names(kept_paths);
    for (auto it = nodes.begin(); it != nodes.end();) {
      const std::string metric = (*it)["perf"].get<std::string>();
      std::string missing;
      for (const char* field : {"formula", "flagged_if"}) {
        if (!it->contains(field)) continue;
        for (const std::string& n : Expression::Parse((*it)[field].get<std::string>())->Names()) {
          auto p = std::find_if(paths_.begin(), paths_.end(), [&](const auto& x) { return x.second == n; });
          if (p != paths_.end() && !names.count(n)) missing = n;
        }
      }
      const std::string path = (*it)["name"].get<std::string>();
      const size_t dot = path.rfind('.');
      if (missing.empty() && dot != std::string::npos && !names.count(path.substr(0, dot))) missing = path.substr(0, dot);
      if (!missing.empty()) {
        Skip(metric, "it uses " + missing + ", which was skipped");
        kept_paths.erase(path);
        it = nodes.erase(it);
        changed = true;
      } else {
        ++it;
      }
    }
  }
  // Auxiliaries: every non-node metric a kept formula reaches.
  json auxiliaries = json::array();
  for (const std::string& metric : metric_order_) {
    if (!auxiliaries_used_.count(metric)) continue;
    const absl::StatusOr<std::string>& formula = formulas_.at(metric);
    if (!formula.ok()) continue;
    const PerfMetricEntry& m = metrics_.at(metric);
    json aux = {{"name", AuxiliaryName(metric)}, {"formula", *formula}, {"perf", metric}};
    if (!m.scale_unit.empty() && m.scale_unit != "100%" && m.scale_unit != "1") aux["note"] = "perf's ScaleUnit " + m.scale_unit;
    auxiliaries.push_back(std::move(aux));
  }
  for (auto& node : nodes) {
    result.nodes++;
    node["perf_metric"] = node["perf"];
    node.erase("perf");
  }
  for (auto& aux : auxiliaries) {
    aux["perf_metric"] = aux["perf"];
    aux.erase("perf");
  }
  json events = json::array();
  for (const auto& [key, entry] : declared_events_) events.push_back(entry);
  result.auxiliaries = static_cast<int>(auxiliaries.size());
  result.events = static_cast<int>(events.size());

  json uarch = json::object();
  json constants = {{"SMT_on", 0}};
  if (used_literals_.count("Core_Wide")) constants["Core_Wide"] = 0;
  uarch["constants"] = constants;
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
  json def;
  def["family"] = family_prefix + options_.uarch + "_from_perf";
  def["description"] = absl::StrFormat(
      "Imported by `td import-metrics` from Linux perf's pmu-events JSON (kernel %s%s): %s. %d Top-Down nodes "
      "(Levels 1-%d), %d auxiliaries, %d events; %d metrics or rules not translated (listed in \"notes\"). "
      "Formulas and thresholds are perf's (MetricExpr, MetricThreshold) in td's expression language; event "
      "encodings are the event files' EventCode/UMask/CounterMask/EdgeDetect/Invert/AnyThread as "
      "perf_event_attr.config.",
      kernel, options_.pmu.empty() ? "" : ", PMU " + options_.pmu, absl::StrJoin(options_.paths, " "), result.nodes,
      result.max_level, result.auxiliaries, result.events, static_cast<int>(skipped_.size()));
  def["threshold_source"] =
      "perf's MetricThreshold of each node: \"threshold\" where the rule is the node above a number chained with its "
      "parent's rule, \"flagged_if\" with the whole rule otherwise.";
  def["source"] = {{"tool", "td import-metrics"}, {"kernel", kernel}, {"files", sources_}};
  if (!options_.pmu.empty()) def["source"]["pmu"] = options_.pmu;
  def["notes"] = skipped_;
  def["uarchs"] = {{options_.uarch, uarch}};
  def["events"] = events;
  def["auxiliaries"] = auxiliaries;
  def["nodes"] = nodes;
  result.definition = std::move(def);
  result.skipped = skipped_;
  return result;
}

}  // namespace

absl::StatusOr<PerfImportResult> ImportPerfMetrics(const std::vector<PerfInputFile>& files,
                                                   const PerfImportOptions& options) {
  static const std::regex kKey("^[a-z][a-z0-9_]*$");
  if (!std::regex_match(options.uarch, kKey)) {
    return absl::InvalidArgumentError("--uarch takes a key of lower-case letters, digits and '_' (like srf), not \"" +
                                      options.uarch + "\"");
  }
  std::vector<std::pair<std::string, std::string>> texts = EmbeddedDefinitionFiles();
  for (const auto& [file, text] : texts) {
    const json j = json::parse(text, nullptr, false);
    if (j.is_object() && j.contains("uarchs") && j["uarchs"].is_object() && j["uarchs"].contains(options.uarch)) {
      return absl::InvalidArgumentError("--uarch " + options.uarch + " is one of td's own keys (" + file +
                                        "); choose another, e.g. " + options.uarch + "_perf");
    }
  }
  Importer importer(options);
  absl::StatusOr<PerfImportResult> result;
  try {
    result = importer.Run(files);
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(std::string("a field of the perf files has an unexpected type: ") + e.what());
  }
  if (!result.ok()) return result;
  // What td will read: the file loads next to td's own, every name checked.
  texts.emplace_back("imported.json", result->definition.dump());
  absl::StatusOr<DefinitionLibrary> library = DefinitionLibrary::FromTexts(texts);
  if (!library.ok()) {
    return absl::InternalError("the translation does not load (a bug of td import-metrics): " +
                               std::string(library.status().message()));
  }
  return result;
}

}  // namespace td

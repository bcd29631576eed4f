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
#include "runtime/uarch/perf_metrics_importer.h"

namespace td {
namespace {

using nlohmann::json;

using perf_import::IsSpace;
using perf_import::NameChar;

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

}  // namespace

namespace perf_import {

absl::Status Importer::Load(const std::vector<PerfInputFile>& files) {
  std::vector<json> metric_lists, event_lists, latency_lists;
  for (const PerfInputFile& f : files) {
    json j = json::parse(f.text, nullptr, false);
    if (j.is_discarded()) return absl::InvalidArgumentError(f.path + ": not valid JSON");
    if (f.retire_latencies_only) {
      if (!j.is_array()) return absl::InvalidArgumentError(f.path + ": not a perf events file (a JSON list)");
      sources_.push_back({{"path", PathInKernelTree(f.path)}, {"sha256", Sha256Hex(f.text)}, {"kind", "retire latencies"}});
      latency_lists.push_back(std::move(j));
      continue;
    }
    bool metrics = false, events = false;
    if (j.is_array()) {
      for (const json& e : j) {
        if (!e.is_object()) continue;
        metrics |= (e.contains("MetricName") || e.contains("ArchStdEvent")) && e.contains("MetricExpr");
        events |= e.contains("EventName") || e.contains("ArchStdEvent");  // arm64 event files name common events
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
    sources_.push_back({{"path", PathInKernelTree(f.path)}, {"sha256", Sha256Hex(f.text)}, {"kind", metrics ? "metrics" : "events"}});
    (metrics ? metric_lists : event_lists).push_back(std::move(j));
  }
  if (metric_lists.empty()) {
    return absl::InvalidArgumentError(
        "no perf metrics file among the inputs (a JSON list of MetricName/MetricExpr entries, e.g. "
        "arch/x86/sierraforest/srf-metrics.json)");
  }
  ResolveArchStdMetrics(&metric_lists);
  // Hybrid files hold the metrics of several PMUs under the same names.
  std::set<std::string> units;
  for (const json& list : metric_lists) {
    for (const json& m : list) {
      // Only core PMUs count here: cpu_core, cpu_atom; uncore units (iMC,
      // IIO) beside a core's metrics are not a choice to make.
      if (m.is_object() && m.contains("Unit") && StringField(m, "Unit").rfind("cpu", 0) == 0) {
        units.insert(StringField(m, "Unit"));
      }
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
  // Intel's tma_* metrics carry TopdownLn or tma_Ln_group; Arm's (sbsa.json)
  // TopdownL1, AMD's PipelineL1/L2, on names without a prefix.
  static const std::regex kLevel("^(?:TopdownL|tma_L|PipelineL)([1-9])(?:_group)?$");
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
      const bool tma = e.name.rfind("tma_", 0) == 0;
      if (!tma || e.name.rfind("tma_info_", 0) != 0) {
        for (const std::string& g : e.groups) {
          std::smatch match;
          if (!std::regex_match(g, match, kLevel) || (!tma && g.rfind("tma_", 0) == 0)) continue;
          e.level = std::stoi(match[1].str());
          amd_ |= g.rfind("PipelineL", 0) == 0;
          arm_ |= !tma && g.rfind("TopdownL", 0) == 0;  // Intel's Top-Down metrics are all tma_*
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
      if (e.contains("RetirementLatencyMean") && e["RetirementLatencyMean"].is_number()) {
        ev.retire_latency_mean = e["RetirementLatencyMean"].get<double>();
      }
      if (NumberField(e, "MSRIndex") != 0 || NumberField(e, "MSRValue") != 0) {
        ev.msr = absl::StrFormat("MSRIndex %s, MSRValue %s", StringField(e, "MSRIndex"), StringField(e, "MSRValue"));
      }
      const std::string key = NormalizeEventName(ev.name);
      auto it = events_.find(key);
      if (it == events_.end() || (it->second.deprecated && !ev.deprecated)) events_[key] = std::move(ev);
    }
  }
  // Lent means fill only what this CPU's own files leave open.
  for (const json& list : latency_lists) {
    for (const json& e : list) {
      if (!e.is_object() || !e.contains("EventName") || !e.value("RetirementLatencyMean", json()).is_number()) continue;
      auto it = events_.find(NormalizeEventName(StringField(e, "EventName")));
      if (it != events_.end() && !it->second.retire_latency_mean) {
        it->second.retire_latency_mean = e["RetirementLatencyMean"].get<double>();
      }
    }
  }
  return absl::OkStatus();
}

std::string Importer::Skip(const std::string& metric, const std::string& why) {
  if (skipped_names_.insert(metric).second) skipped_.push_back(metric + ": " + why);
  return why;
}

// TMA's renamed nodes: perf's current metric -> td's node name before the
// rename (TMA 5.x). Users, case files and older recordings name the old one.
std::string Importer::RenamedFrom(const std::string& metric) {
  static const std::map<std::string, std::string> kRenamed = {
      {"tma_l3_miss_bound", "DRAM_Bound"},
      {"tma_l1_latency_dependency", "L1_Hit_Latency"},
      {"tma_cxl_mem_bound", "PMM_Bound"},
  };
  auto it = kRenamed.find(metric);
  return it == kRenamed.end() ? "" : it->second;
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
  std::string former;  // the path it had under TMA's older names, when that differs
  if (m.level > 1) {
    std::string parent;
    for (const std::string& g : m.groups) {
      // "tma_PARENT_group" (Intel), "PARENT_group" (AMD).
      if (g.size() <= 6 || g.compare(g.size() - 6, 6, "_group") != 0) continue;
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
    const std::string parent_former = former_paths_.count(parent) ? former_paths_.at(parent) : *parent_path;
    const std::string old_name = RenamedFrom(metric);
    if (!old_name.empty() && td_ != nullptr && !options_.supersede &&
        td_->FindNode(*parent_path + "." + old_name) != nullptr) {
      path = old_name;  // td's own node under its older name is this one: never a twin beside it
    }
    former = parent_former + "." + (old_name.empty() ? path : old_name);
    path = *parent_path + "." + path;
  }
  if (!former.empty() && former != path) former_paths_[metric] = former;
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
  } else if (node && !m.scale_unit.empty() && m.scale_unit.rfind("100%", 0) != 0 && m.scale_unit.rfind("1percent", 0) != 0) {
    result = absl::UnimplementedError("ScaleUnit \"" + m.scale_unit + "\" (td's nodes are fractions)");
  } else {
    std::string depends_on;
    result = TranslatePerfExpression(m.expr, [&](const PerfExprName& n) { return Name(n, &depends_on); });
    if (!result.ok() && !depends_on.empty()) {
      result = absl::Status(result.status().code(), "it uses " + depends_on + ", which was skipped");
    }
    // Arm's "1percent of slots": perf's expression gives percent, td's nodes fractions.
    if (result.ok() && node && m.scale_unit.rfind("1percent", 0) == 0) result = "(" + *result + ") / 100";
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

}  // namespace perf_import

absl::StatusOr<PerfImportResult> ImportPerfMetrics(const std::vector<PerfInputFile>& files,
                                                   const PerfImportOptions& options) {
  static const std::regex kKey("^[a-z][a-z0-9_]*$");
  if (!std::regex_match(options.uarch, kKey)) {
    return absl::InvalidArgumentError("--uarch takes a key of lower-case letters, digits and '_' (like srf), not \"" +
                                      options.uarch + "\"");
  }
  // td's own files; extending a key leaves out an earlier extension of it,
  // which the new one replaces.
  std::vector<std::pair<std::string, std::string>> texts;
  bool own_key = false;
  std::string own_file;
  for (const auto& [file, text] : EmbeddedDefinitionFiles()) {
    const json j = json::parse(text, nullptr, false);
    const bool defines = j.is_object() && j.contains("uarchs") && j["uarchs"].is_object() &&
                         j["uarchs"].contains(options.uarch);
    const bool extension = defines && j.contains("source") && j["source"].is_object() &&
                           j["source"].value("extends", "") == options.uarch;
    // A newer tree laid over the key (--supersede) is never what an import builds on;
    // --supersede builds on td's own files and their depth extension.
    const bool newer = defines && j.contains("source") && j["source"].is_object() &&
                       j["source"].value("supersedes", "") == options.uarch;
    if (newer || (options.extend && extension && !options.supersede)) continue;
    // An earlier import of the key (scripts/regenerate_vendor.sh's files) is what this one replaces.
    const bool imported = defines && !extension && j.contains("source") && j["source"].is_object() &&
                          j["source"].value("tool", "") == "td import-metrics";
    if (imported && !options.extend) continue;
    if (defines && !extension && own_file.empty()) own_file = file;
    own_key |= defines;
    texts.emplace_back(file, text);
  }
  if (own_key && !options.extend) {
    return absl::InvalidArgumentError("--uarch " + options.uarch + " is one of td's own keys (" + own_file +
                                      "); choose another, e.g. " + options.uarch +
                                      "_perf, or add the nodes td lacks with --extend");
  }
  if (!own_key && options.extend) {
    return absl::InvalidArgumentError("--extend adds to one of td's own keys; " + options.uarch + " is not one");
  }
  std::optional<DefinitionLibrary> own;
  const MetricSet* td_set = nullptr;
  if (options.extend) {
    absl::StatusOr<DefinitionLibrary> loaded = DefinitionLibrary::FromTexts(texts);
    if (!loaded.ok()) return loaded.status();
    own = *std::move(loaded);
    td_set = own->Find(options.uarch);
    if (td_set == nullptr) return absl::InternalError("td's own definitions of " + options.uarch + " do not load");
  }
  perf_import::Importer importer(options, td_set);
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

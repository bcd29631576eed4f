#include "runtime/uarch/definitions.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "runtime/uarch/definition_versions.h"
#include "runtime/uarch/event_names.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_fields.h"
#include "runtime/base/status_macros.h"

namespace td {

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kSlotsFraction: return "fraction_of_slots";
    case NodeKind::kCyclesFraction: return "fraction_of_cycles";
    case NodeKind::kRatio: return "ratio";
    case NodeKind::kCount: return "count";
  }
  return "?";
}

std::optional<uint64_t> EventDefinition::RawConfig() const {
  uint64_t value = 0;
  if (config.empty() || !absl::SimpleHexAtoi(config, &value)) return std::nullopt;
  return value;
}

uint64_t EventDefinition::RawConfig1() const {
  uint64_t value = 0;
  return !config1.empty() && absl::SimpleHexAtoi(config1, &value) ? value : 0;
}

using nlohmann::json;

const std::string& FormulaDefinition::VersionOf(size_t i) const {
  static const std::string kCurrent;
  return i < alternative_versions.size() ? alternative_versions[i] : kCurrent;
}

std::string FormulaDefinition::Parent() const {
  const size_t dot = name.rfind('.');
  return level <= 1 || dot == std::string::npos ? "" : name.substr(0, dot);
}

void MetricSet::IndexNames() {
  index_ = NameIndex{};
  // Earlier entries win, as in the walks below.
  for (size_t i = 0; i < nodes.size(); ++i) index_.nodes.try_emplace(nodes[i].name, i);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& former : nodes[i].former_names) index_.nodes.try_emplace(former, i);
  }
  for (size_t i = 0; i < auxiliaries.size(); ++i) index_.auxiliaries.try_emplace(auxiliaries[i].name, i);
  for (size_t i = 0; i < events.size(); ++i) {
    for (const std::string& spelling : events[i].spellings) index_.events.try_emplace(spelling, i);
  }
  index_.node_count = nodes.size();
  index_.auxiliary_count = auxiliaries.size();
  index_.event_count = events.size();
}

const FormulaDefinition* MetricSet::FindNode(const std::string& name) const {
  if (IndexIsCurrent()) {
    const auto it = index_.nodes.find(name);
    return it == index_.nodes.end() ? nullptr : &nodes[it->second];
  }
  for (const auto& n : nodes) {
    if (n.name == name) return &n;
  }
  for (const auto& n : nodes) {
    if (std::find(n.former_names.begin(), n.former_names.end(), name) != n.former_names.end()) return &n;
  }
  return nullptr;
}

const FormulaDefinition* MetricSet::FindAuxiliary(const std::string& name) const {
  if (IndexIsCurrent()) {
    const auto it = index_.auxiliaries.find(name);
    return it == index_.auxiliaries.end() ? nullptr : &auxiliaries[it->second];
  }
  for (const auto& a : auxiliaries) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const EventDefinition* MetricSet::FindEvent(const std::string& name) const {
  if (IndexIsCurrent()) {
    // Formulas spell events as the index does; normalize only the others.
    auto it = index_.events.find(name);
    if (it == index_.events.end()) it = index_.events.find(NormalizeEventName(name));
    return it == index_.events.end() ? nullptr : &events[it->second];
  }
  const std::string wanted = NormalizeEventName(name);
  for (const auto& e : events) {
    if (std::find(e.spellings.begin(), e.spellings.end(), wanted) != e.spellings.end()) return &e;
  }
  return nullptr;
}

namespace {

absl::Status FileError(const std::string& file, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrFormat("definitions %s: %s", file, what));
}

// One alternative of a formula: its text, and the TMA version it follows when
// that is an older one than its file's ("" for the file's own).
struct FormulaText {
  std::string text;
  std::string version;
};

// The formulas that apply to `uarch`: a string, a list of alternatives (each
// a string, or {"formula", "tma_version"} for an older version's form that a
// recording of that version's events still gets), or an object whose keys
// list uarchs ("icl icx tgl"). Empty when none applies.
absl::StatusOr<std::vector<FormulaText>> FormulasFor(const json& formula, const std::string& uarch,
                                                     const std::string& where) {
  auto as_list = [&where](const json& f) -> absl::StatusOr<std::vector<FormulaText>> {
    const absl::Status wrong = absl::InvalidArgumentError(
        where + ": \"formula\" must be a string or a list of strings and {\"formula\", \"tma_version\"} objects");
    const json list = f.is_array() ? f : json::array({f});
    if (list.empty()) return wrong;
    std::vector<FormulaText> out;
    for (const json& x : list) {
      if (x.is_string()) {
        out.push_back({x.get<std::string>(), ""});
      } else if (x.is_object() && x.value("formula", json()).is_string() && x.value("tma_version", json()).is_string()) {
        out.push_back({x["formula"].get<std::string>(), x["tma_version"].get<std::string>()});
      } else {
        return wrong;
      }
    }
    return out;
  };
  if (!formula.is_object()) return as_list(formula);
  for (const auto& [keys, value] : formula.items()) {
    const std::vector<std::string> uarchs = absl::StrSplit(keys, ' ', absl::SkipEmpty());
    for (const std::string& key : uarchs) {
      if (key == uarch || key == "*") return as_list(value);
    }
  }
  return std::vector<FormulaText>{};
}

absl::StatusOr<NodeKind> KindFrom(const json& j, const std::string& where) {
  const std::string kind = j.value("kind", NodeKindName(NodeKind::kSlotsFraction));
  for (NodeKind k : {NodeKind::kSlotsFraction, NodeKind::kCyclesFraction, NodeKind::kRatio, NodeKind::kCount}) {
    if (kind == NodeKindName(k)) return k;
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: kind \"%s\" is not one of fraction_of_slots, fraction_of_cycles, ratio, count", where,
      kind));
}

// Adds an event, merging it with an existing one that shares a spelling
// (generic "cycles" and Intel's CPU_CLK_UNHALTED.THREAD are one event).
void AddEvent(EventDefinition event, std::vector<EventDefinition>* events) {
  for (auto& existing : *events) {
    for (const auto& s : event.spellings) {
      if (std::find(existing.spellings.begin(), existing.spellings.end(), s) ==
          existing.spellings.end()) {
        continue;
      }
      // Same event: the more specific (later) name becomes canonical.
      std::vector<std::string> merged = event.spellings;
      for (const auto& old : existing.spellings) {
        if (std::find(merged.begin(), merged.end(), old) == merged.end()) merged.push_back(old);
      }
      existing.spellings = std::move(merged);
      existing.name = event.name;
      if (!event.config.empty()) existing.config = event.config;
      if (!event.libpfm.empty()) existing.libpfm = event.libpfm;
      return;
    }
  }
  events->push_back(std::move(event));
}

// `extension`: the file only adds to a key (td import-metrics --extend);
// redefining a node or auxiliary of td's own files is an error.
absl::Status AddFormulas(const json& list, const std::string& file, const std::string& uarch,
                         const char* section, std::vector<FormulaDefinition>* out, bool extension = false) {
  if (list.is_null()) return absl::OkStatus();
  if (!list.is_array()) return FileError(file, std::string("\"") + section + "\" must be a list");
  for (const json& j : list) {
    if (!j.is_object() || !j.contains("name") || !j["name"].is_string()) {
      return FileError(file, std::string("every entry of \"") + section + "\" needs a \"name\"");
    }
    FormulaDefinition def;
    def.name = j["name"].get<std::string>();
    def.family = file;
    const std::string where = absl::StrFormat("definitions %s: %s", file, def.name);
    if (!j.contains("formula")) return absl::InvalidArgumentError(where + ": no \"formula\"");
    TD_ASSIGN_OR_RETURN(const std::vector<FormulaText> texts, FormulasFor(j["formula"], uarch, where));
    if (texts.empty()) continue;  // not defined for this uarch
    for (const FormulaText& text : texts) {
      auto e = Expression::Parse(text.text);
      if (!e.ok()) return absl::InvalidArgumentError(where + ": " + std::string(e.status().message()));
      def.alternatives.push_back(*std::move(e));
      def.alternative_versions.push_back(text.version);
    }
    TD_RETURN_IF_ERROR(json_fields::GetOptionalInteger(j, "level", 0, &def.level, where, 0, 16));
    if (j.contains("threshold")) def.threshold = j["threshold"].get<double>();
    if (j.contains("flagged_if")) {
      auto rule = Expression::Parse(j["flagged_if"].get<std::string>());
      if (!rule.ok()) {
        return absl::InvalidArgumentError(where + ": flagged_if: " + std::string(rule.status().message()));
      }
      def.flagged_if = *std::move(rule);
    }
    TD_ASSIGN_OR_RETURN(def.kind, KindFrom(j, where));
    def.note = j.value("note", "");
    def.former_names = j.value("formerly", std::vector<std::string>{});
    def.estimated = j.value("estimated", "");
    auto same = std::find_if(out->begin(), out->end(),
                             [&def](const FormulaDefinition& d) { return d.name == def.name; });
    if (same != out->end() && extension) {
      return FileError(file, absl::StrFormat("uarch %s: %s %s is td's own already; an extension of a key only adds "
                                             "(regenerate it: scripts/regenerate_depth.sh)",
                                             uarch, section, def.name));
    }
    if (same != out->end()) {
      *same = std::move(def);  // a family file overrides the generic one
    } else {
      out->push_back(std::move(def));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNames(const MetricSet& set) {
  auto check = [&set](const FormulaDefinition& def) -> absl::Status {
    std::vector<const Expression*> expressions;
    for (const Expression& e : def.alternatives) expressions.push_back(&e);
    if (def.flagged_if) expressions.push_back(&*def.flagged_if);
    for (const Expression* expression : expressions) {
      const Expression& e = *expression;
      for (const std::string& name : e.Names()) {
        if (set.FindNode(name) || set.FindAuxiliary(name) || set.constants.contains(name) ||
            set.FindEvent(name)) {
          continue;
        }
        return absl::InvalidArgumentError(absl::StrFormat(
            "definitions %s (uarch %s): %s: unknown name \"%s\" in \"%s\" (not a node, "
            "auxiliary, constant or declared event)",
            def.family, set.uarch, def.name, name, e.text()));
      }
    }
    return absl::OkStatus();
  };
  for (const auto& n : set.nodes) {
    if (auto s = check(n); !s.ok()) return s;
    // A renamed node and its old self would count the same time twice.
    for (const std::string& former : n.former_names) {
      for (const auto& other : set.nodes) {
        if (other.name == former && &other != &n) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "definitions %s (uarch %s): %s is %s renamed; a tree holds one of them, not both", n.family,
              set.uarch, n.name, former));
        }
      }
    }
  }
  for (const auto& a : set.auxiliaries) {
    if (auto s = check(a); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// "GenuineIntel-6-AD" for each model of the uarch's "cpus" table, as perf's
// mapfile.csv spells a CPUID (an Arm part: "0x41-0xd4f").
absl::Status AddCpuids(const json& uarch, MetricSet* set) {
  const json cpus = uarch.value("cpus", json::array());
  if (!cpus.is_array()) return absl::InvalidArgumentError("uarch " + set->uarch + ": \"cpus\" must be a list");
  for (const json& cpu : cpus) {
    if (!cpu.is_object() || !cpu.value("vendor", json()).is_string()) continue;
    const std::string vendor = cpu["vendor"].get<std::string>();
    const json family = cpu.value("family", json());
    for (const json& model : cpu.value("models", json::array())) {
      if (!model.is_number_integer()) continue;
      std::string id = family.is_number_integer() ? absl::StrFormat("%s-%d-%X", vendor, family.get<int>(), model.get<int>())
                                                  : absl::StrFormat("%s-0x%x", vendor, model.get<int>());
      if (std::find(set->cpuids.begin(), set->cpuids.end(), id) == set->cpuids.end()) set->cpuids.push_back(id);
    }
  }
  return absl::OkStatus();
}

absl::Status AddConstants(const json& constants, const std::string& file, MetricSet* set) {
  if (!constants.is_object()) return FileError(file, "\"constants\" must be an object");
  for (const auto& [k, v] : constants.items()) {
    if (!v.is_number()) return FileError(file, "constant \"" + k + "\" must be a number");
    set->constants[k] = v.get<double>();
  }
  return absl::OkStatus();
}

// A family-wide object of a file with the uarch's own fields laid over it.
json FamilySection(const json& file, const json& uarch, const char* key) {
  json section = file.value(key, json::object());
  const json overrides = uarch.value(key, json::object());
  for (const auto& [k, v] : overrides.items()) section[k] = v;
  return section;
}

}  // namespace

const DefinitionLibrary::UarchSet* DefinitionLibrary::Built(const std::string& uarch) const {
  const auto it = sets_.find(uarch);
  if (it == sets_.end()) return nullptr;
  UarchSet* one = it->second.get();
  std::call_once(one->built, [&] {
    // Any field of the wrong JSON type ends up here as an exception: turn it
    // into an error naming the file instead of letting it escape.
    std::string current_file;
    try {
      one->set = ForUarchUnchecked(uarch, &current_file);
    } catch (const json::exception& e) {
      one->set = FileError(current_file, std::string("a field has the wrong type: ") + e.what());
    }
  });
  return one;
}

const MetricSet* DefinitionLibrary::Find(const std::string& uarch) const {
  const UarchSet* built = Built(uarch);
  return built != nullptr && built->set.ok() ? &*built->set : nullptr;
}

absl::StatusOr<MetricSet> DefinitionLibrary::ForUarch(const std::string& uarch) const {
  if (const UarchSet* built = Built(uarch)) return built->set;
  // No file defines it: the error says so.
  std::string current_file;
  try {
    return ForUarchUnchecked(uarch, &current_file);
  } catch (const json::exception& e) {
    return FileError(current_file, std::string("a field has the wrong type: ") + e.what());
  }
}

absl::StatusOr<MetricSet> DefinitionLibrary::ForUarchUnchecked(const std::string& uarch,
                                                               std::string* current_file) const {
  MetricSet set;
  set.uarch = uarch;
  bool specific = false;
  // Files that apply to every uarch ("*") first, so specific ones override;
  // extensions of a key (`td import-metrics --extend`: "source": {"extends"})
  // next, so their encodings for this key replace a family-wide one; a newer
  // vendor tree (--supersede: "source": {"supersedes"}) last, laid over all.
  for (int pass = 0; pass < 4; ++pass) {
    for (const File& file : files_) {
      const json& j = *file.json;
      const json uarchs = j.value("uarchs", json::object());
      const bool everywhere = uarchs.contains("*");
      const json source = j.value("source", json::object());
      const bool newer = source.is_object() && source.contains("supersedes");
      const bool extension = !newer && source.is_object() && source.contains("extends");
      const int file_pass = everywhere ? 0 : newer ? 3 : extension ? 2 : 1;
      if (pass != file_pass || !(everywhere || uarchs.contains(uarch))) continue;
      // What td's own files follow, before the newer tree names its version.
      const std::string older_version = set.tma_version.empty() ? "td's own formulas" : set.tma_version;
      *current_file = file.name;
      specific |= !everywhere;
      set.families.push_back(j.value("family", file.name));
      if (auto s = AddConstants(j.value("constants", json::object()), file.name, &set); !s.ok()) {
        return s;
      }
      if (!everywhere) {
        if (!uarchs[uarch].is_object()) return FileError(file.name, "uarchs." + uarch + " must be an object");
        set.libpfm_pmu = uarchs[uarch].value("libpfm_pmu", set.libpfm_pmu);
        set.tma_version = uarchs[uarch].value("tma_version", set.tma_version);
        if (auto s = AddCpuids(uarchs[uarch], &set); !s.ok()) return FileError(file.name, std::string(s.message()));
        // Family-wide counter and memory models, each field overridable per uarch.
        const json counters = FamilySection(j, uarchs[uarch], "counters");
        if (!counters.empty()) {
          set.counters = CounterModel{};
          if (auto s = ParseCounterModel(counters, &set.counters); !s.ok()) {
            return FileError(file.name, absl::StrFormat("uarch %s: %s", uarch, s.message()));
          }
        }
        const json memory = FamilySection(j, uarchs[uarch], "memory");
        if (!memory.empty()) {
          set.memory = MemoryModel{};
          if (auto s = ParseMemoryModel(memory, &set.memory); !s.ok()) {
            return FileError(file.name, absl::StrFormat("uarch %s: %s", uarch, s.message()));
          }
        }
        const json own_constants = uarchs[uarch].value("constants", json::object());
        for (const auto& [k, v] : own_constants.items()) {
          if (extension && set.constants.contains(k)) {
            return FileError(file.name, "uarch " + uarch + ": constant " + k +
                                            " is td's own already; an extension of a key only adds");
          }
        }
        if (auto s = AddConstants(own_constants, file.name, &set); !s.ok()) return s;
      }
      const json events = j.value("events", json::array());
      for (const json& e : events) {
        EventDefinition event;
        event.name = e.value("name", "");
        if (event.name.empty()) return FileError(file.name, "an event has no \"name\"");
        event.spellings.push_back(NormalizeEventName(event.name));
        for (const auto& alias : e.value("aliases", std::vector<std::string>{})) {
          event.spellings.push_back(NormalizeEventName(alias));
        }
        const json encoding = e.value("encoding", json::object());
        event.libpfm = encoding.value("libpfm", "");
        event.config = encoding.value("config", "");
        event.config1 = encoding.value("config1", "");
        event.note = encoding.value("note", e.value("note", ""));
        AddEvent(std::move(event), &set.events);
      }
      if (newer) {
        std::vector<FormulaDefinition> auxiliaries, nodes;
        TD_RETURN_IF_ERROR(AddFormulas(j.value("auxiliaries", json()), file.name, uarch, "auxiliaries", &auxiliaries));
        TD_RETURN_IF_ERROR(AddFormulas(j.value("nodes", json()), file.name, uarch, "nodes", &nodes));
        LayNewerFormulas(std::move(auxiliaries), older_version, &set.auxiliaries);
        LayNewerFormulas(std::move(nodes), older_version, &set.nodes);
        continue;
      }
      if (auto s = AddFormulas(j.value("auxiliaries", json()), file.name, uarch, "auxiliaries",
                               &set.auxiliaries, extension);
          !s.ok()) {
        return s;
      }
      if (auto s = AddFormulas(j.value("nodes", json()), file.name, uarch, "nodes", &set.nodes, extension);
          !s.ok()) {
        return s;
      }
    }
  }
  if (!specific) {
    const auto known = Uarchs();
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : " ") + k;
    return absl::NotFoundError(absl::StrFormat(
        "no definitions for microarchitecture \"%s\"; known: %s", uarch, list));
  }
  set.IndexNames();
  if (auto s = CheckNames(set); !s.ok()) return s;
  return set;
}

std::vector<std::string> DefinitionLibrary::Uarchs() const {
  std::set<std::string> keys;
  for (const File& file : files_) {
    const auto uarchs = file.json->find("uarchs");  // not value(): that copies the whole object
    if (uarchs == file.json->end() || !uarchs->is_object()) continue;
    for (const auto& [k, v] : uarchs->items()) {
      if (k != "*") keys.insert(k);
    }
  }
  return {keys.begin(), keys.end()};
}

absl::StatusOr<DefinitionLibrary> DefinitionLibrary::FromTexts(
    const std::vector<std::pair<std::string, std::string>>& files) {
  TD_ASSIGN_OR_RETURN(DefinitionLibrary library, Parse(files));
  // Every uarch checked now, so a bad file fails at load, not at first use.
  TD_RETURN_IF_ERROR(library.BuildAll());
  return library;
}

absl::Status DefinitionLibrary::BuildAll() const {
  for (const std::string& uarch : Uarchs()) {
    if (const UarchSet* built = Built(uarch); built != nullptr && !built->set.ok()) return built->set.status();
  }
  return absl::OkStatus();
}

absl::StatusOr<DefinitionLibrary> DefinitionLibrary::Parse(
    const std::vector<std::pair<std::string, std::string>>& files) {
  DefinitionLibrary library;
  for (const auto& [name, text] : files) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) return FileError(name, "not valid JSON");
    if (!j.is_object()) return FileError(name, "not a JSON object");
    if (!j.contains("uarchs") || !j["uarchs"].is_object()) {
      return FileError(name, "needs a \"uarchs\" object");
    }
    library.files_.push_back({name, std::make_shared<const json>(std::move(j))});
  }
  for (const std::string& uarch : library.Uarchs()) library.sets_.emplace(uarch, std::make_shared<UarchSet>());
  return library;
}

absl::StatusOr<DefinitionLibrary> DefinitionLibrary::LoadDirectory(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files = EmbeddedDefinitionFiles();
  std::error_code ec;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  if (ec) return absl::NotFoundError("TD_METRICS_DIR=" + dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string name = path.filename().string();
    auto same = std::find_if(files.begin(), files.end(),
                             [&name](const auto& f) { return f.first == name; });
    if (same != files.end()) {
      same->second = text.str();  // a file of the same name replaces the built-in one
    } else {
      files.emplace_back(name, text.str());
    }
  }
  return FromTexts(files);
}

absl::StatusOr<DefinitionLibrary> DefinitionLibrary::Load(const std::string& metrics_dir) {
  if (!metrics_dir.empty()) return LoadDirectory(metrics_dir);
  return Parse(EmbeddedDefinitionFiles());
}

}  // namespace td

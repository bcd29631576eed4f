#include "runtime/uarch/definition_versions.h"

#include <algorithm>
#include <map>
#include <utility>

namespace td {
namespace {

bool Names(const FormulaDefinition& def, const std::string& name) {
  return def.name == name ||
         std::find(def.former_names.begin(), def.former_names.end(), name) != def.former_names.end();
}

void AddFormerName(const std::string& name, FormulaDefinition* def) {
  if (name != def->name && !Names(*def, name)) def->former_names.push_back(name);
}

// The formulas of `def` from alternative `from` on are `version`'s, unless
// their file named an older one itself.
void LabelOlder(size_t from, const std::string& version, FormulaDefinition* def) {
  def->alternative_versions.resize(def->alternatives.size());
  for (size_t i = from; i < def->alternatives.size(); ++i) {
    if (def->alternative_versions[i].empty()) def->alternative_versions[i] = version;
  }
}

}  // namespace

void LayNewerFormulas(std::vector<FormulaDefinition> newer, const std::string& older_version,
                      std::vector<FormulaDefinition>* older) {
  std::vector<bool> replaced(older->size(), false);
  std::map<std::string, std::string> renamed;  // older name -> newer name
  std::vector<FormulaDefinition> added;
  for (FormulaDefinition& def : newer) {
    auto same = std::find_if(older->begin(), older->end(), [&def](const FormulaDefinition& old) {
      return Names(def, old.name);
    });
    if (same == older->end()) {
      added.push_back(std::move(def));
      continue;
    }
    const size_t newer_count = def.alternatives.size();
    def.alternative_versions.resize(newer_count);
    for (size_t i = 0; i < same->alternatives.size(); ++i) {
      def.alternatives.push_back(std::move(same->alternatives[i]));
      def.alternative_versions.push_back(same->VersionOf(i));
    }
    if (same->level > 0) LabelOlder(newer_count, older_version, &def);
    for (const std::string& former : same->former_names) AddFormerName(former, &def);
    AddFormerName(same->name, &def);
    if (same->name != def.name) renamed[same->name] = def.name;
    // td's own notes on the older node say how td reads it; the newer one has none of its own.
    if (def.note.empty()) def.note = same->note;
    replaced[same - older->begin()] = true;
    *same = std::move(def);
  }
  for (size_t i = 0; i < older->size(); ++i) {
    FormulaDefinition& def = (*older)[i];
    if (replaced[i]) continue;
    // An older node under a renamed one moves with it, its old path kept as a former name.
    for (const auto& [from, to] : renamed) {
      if (def.name.rfind(from + ".", 0) == 0) {
        const std::string old_name = def.name;
        def.name = to + def.name.substr(from.size());
        AddFormerName(old_name, &def);
        break;
      }
    }
    if (def.level > 0) LabelOlder(0, older_version, &def);
  }
  for (FormulaDefinition& def : added) older->push_back(std::move(def));
}

}  // namespace td

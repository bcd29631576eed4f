#include "runtime/uarch/explanation_table.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "runtime/base/json_fields.h"
#include "runtime/base/status_macros.h"

namespace td {

namespace {

using nlohmann::json;

// Get() already names a missing field or a wrong type; an empty text would
// print an empty section in `td explain`, so it is an error too.
absl::Status GetText(const json& entry, const char* key, std::string* out, const std::string& where) {
  TD_RETURN_IF_ERROR(json_fields::Get(entry, key, out, where));
  if (out->empty()) return absl::InvalidArgumentError(absl::StrFormat("%s.%s is empty", where, key));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<NodeExplanation>> ParseExplanationTable(std::string_view text,
                                                                   const std::string& name) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(name + ": not valid JSON");
  const json* nodes = nullptr;
  TD_RETURN_IF_ERROR(json_fields::GetArray(j, "nodes", &nodes, name));
  std::vector<NodeExplanation> table;
  absl::flat_hash_map<std::string, size_t> first_index;
  for (size_t i = 0; i < nodes->size(); ++i) {
    const std::string where = absl::StrFormat("%s: nodes[%d]", name, i);
    NodeExplanation e;
    TD_RETURN_IF_ERROR(GetText((*nodes)[i], "node", &e.node, where));
    TD_RETURN_IF_ERROR(GetText((*nodes)[i], "meaning", &e.meaning, where));
    TD_RETURN_IF_ERROR(GetText((*nodes)[i], "to_try", &e.to_try, where));
    // Lookups take the first match, so a second entry would never be shown.
    const auto [it, inserted] = first_index.emplace(e.node, i);
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: node \"%s\" is explained twice (nodes[%d] and nodes[%d])", name, e.node,
                          it->second, i));
    }
    table.push_back(std::move(e));
  }
  return table;
}

absl::StatusOr<std::vector<NodeExplanation>> EmbeddedExplanationTable() {
  return ParseExplanationTable(EmbeddedExplanationTableText(), "topdown_nodes.json");
}

}  // namespace td

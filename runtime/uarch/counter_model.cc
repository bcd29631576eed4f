#include "runtime/uarch/counter_model.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/base/json_fields.h"

namespace td {
namespace {

using nlohmann::json;

absl::Status Hex(const json& j, const std::string& field, uint64_t* value) {
  const std::string text = j.is_string() ? j.get<std::string>() : "";
  if (text.size() < 3 || text.compare(0, 2, "0x") != 0 || !absl::SimpleHexAtoi(text.substr(2), value)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("counters.%s: \"%s\" is not a hex number like \"0x3c\"", field, j.dump()));
  }
  return absl::OkStatus();
}

// "0x60" or "0x60-0x8b".
absl::Status HexRange(const json& j, const std::string& field, std::pair<uint64_t, uint64_t>* range) {
  const std::string text = j.is_string() ? j.get<std::string>() : "";
  const std::vector<std::string> ends = absl::StrSplit(text, '-');
  if (ends.empty() || ends.size() > 2) {
    return absl::InvalidArgumentError(absl::StrFormat("counters.%s: bad range %s", field, j.dump()));
  }
  if (auto s = Hex(ends[0], field, &range->first); !s.ok()) return s;
  range->second = range->first;
  if (ends.size() == 2) {
    if (auto s = Hex(ends[1], field, &range->second); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status HexList(const json& j, const std::string& field, std::vector<uint32_t>* out) {
  for (const json& item : j) {
    uint64_t v = 0;
    if (auto s = Hex(item, field, &v); !s.ok()) return s;
    out->push_back(static_cast<uint32_t>(v));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseCounterModel(const json& j, CounterModel* m) {
  if (!j.is_object()) return absl::InvalidArgumentError("\"counters\" must be an object");
  if (auto s = json_fields::GetOptionalInteger(j, "general", 0, &m->general, "counters", 0, 64); !s.ok()) return s;
  if (auto s = json_fields::GetOptionalInteger(j, "general_without_smt", 0, &m->general_without_smt, "counters", 0, 64);
      !s.ok()) {
    return s;
  }
  if (m->general <= 0) return absl::InvalidArgumentError("counters.general must be a positive number");
  if (auto s = HexList(j.value("fixed", json::array()), "fixed", &m->fixed); !s.ok()) return s;
  if (auto s = HexList(j.value("fixed_only", json::array()), "fixed_only", &m->fixed_only); !s.ok()) return s;
  if (auto s = HexList(j.value("paired_codes", json::array()), "paired_codes", &m->paired_codes); !s.ok()) {
    return s;
  }
  if (j.contains("cycles")) {
    if (auto s = Hex(j["cycles"], "cycles", &m->cycles); !s.ok()) return s;
  }
  if (j.contains("instructions")) {
    if (auto s = Hex(j["instructions"], "instructions", &m->instructions); !s.ok()) return s;
  }
  for (const json& r : j.value("restricted", json::array())) {
    CounterRestriction restriction;
    for (const json& code : r.value("codes", json::array())) {
      std::pair<uint64_t, uint64_t> range;
      if (auto s = HexRange(code, "restricted.codes", &range); !s.ok()) return s;
      restriction.codes.emplace_back(static_cast<uint32_t>(range.first), static_cast<uint32_t>(range.second));
    }
    if (auto s = HexList(r.value("configs", json::array()), "restricted.configs", &restriction.configs); !s.ok()) {
      return s;
    }
    if (auto s = HexList(r.value("except", json::array()), "restricted.except", &restriction.except_configs);
        !s.ok()) {
      return s;
    }
    if (const auto counters = r.find("counters"); counters != r.end()) {
      if (!counters->is_array()) return absl::InvalidArgumentError("counters.restricted.counters must be a list");
      for (const json& c : *counters) {
        int index = 0;
        if (auto s = json_fields::ToInteger(c, "counters.restricted.counters[]", &index, 0, 63); !s.ok()) return s;
        restriction.counters.push_back(index);
      }
    }
    restriction.note = r.value("note", "");
    if (restriction.counters.empty()) {
      return absl::InvalidArgumentError("counters.restricted: every entry needs \"counters\"");
    }
    m->restrictions.push_back(std::move(restriction));
  }
  if (j.contains("metrics_group")) {
    const json& g = j["metrics_group"];
    if (auto s = Hex(g.value("leader", json()), "metrics_group.leader", &m->metrics_leader); !s.ok()) return s;
    if (auto s = HexRange(g.value("members", json()), "metrics_group.members", &m->metrics_members); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace td

// What perf's Arm and AMD metric files need beyond Intel's
// (runtime/uarch/perf_metrics_importer.h): arm64 files name the
// architecture's standard metrics (sbsa.json) and events by "ArchStdEvent";
// their events are Arm's common event numbers, which no event file beside
// the metrics spells out; AMD's pipeline files come without event files here,
// so their events take the encodings of td's own AMD definitions.
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/event_names.h"
#include "runtime/uarch/perf_metrics_importer.h"

namespace td::perf_import {
namespace {

// Arm's common PMU events (Arm ARM, "PMU events and event numbers") that
// perf's arm64 metrics files use: the Armv8 common events, the Armv8.4
// slot events, and the Armv9 stall classes (STALL_FRONTEND_FLUSH, 0x8162).
const std::map<std::string, int>& ArmCommonEvents() {
  static const auto* events = new std::map<std::string, int>{
      {"L1I_CACHE_REFILL", 0x01}, {"L1I_TLB_REFILL", 0x02}, {"L1D_CACHE_REFILL", 0x03}, {"L1D_CACHE", 0x04},
      {"L1D_TLB_REFILL", 0x05}, {"INST_RETIRED", 0x08}, {"BR_MIS_PRED", 0x10}, {"CPU_CYCLES", 0x11},
      {"BR_PRED", 0x12}, {"L1I_CACHE", 0x14}, {"L2D_CACHE", 0x16}, {"L2D_CACHE_REFILL", 0x17}, {"INST_SPEC", 0x1b},
      {"BR_RETIRED", 0x21}, {"BR_MIS_PRED_RETIRED", 0x22}, {"STALL_FRONTEND", 0x23}, {"STALL_BACKEND", 0x24},
      {"L1D_TLB", 0x25}, {"L1I_TLB", 0x26}, {"L3D_CACHE_REFILL", 0x2a}, {"L3D_CACHE", 0x2b},
      {"L2D_TLB_REFILL", 0x2d}, {"L2D_TLB", 0x2f}, {"DTLB_WALK", 0x34}, {"ITLB_WALK", 0x35}, {"LL_CACHE_RD", 0x36},
      {"LL_CACHE_MISS_RD", 0x37}, {"OP_RETIRED", 0x3a}, {"OP_SPEC", 0x3b}, {"STALL", 0x3c},
      {"STALL_SLOT_BACKEND", 0x3d}, {"STALL_SLOT_FRONTEND", 0x3e}, {"STALL_SLOT", 0x3f}, {"LD_SPEC", 0x70},
      {"ST_SPEC", 0x71}, {"DP_SPEC", 0x73}, {"ASE_SPEC", 0x74}, {"VFP_SPEC", 0x75}, {"CRYPTO_SPEC", 0x77},
      {"BR_IMMED_SPEC", 0x78}, {"BR_RETURN_SPEC", 0x79}, {"BR_INDIRECT_SPEC", 0x7a}, {"STALL_BACKEND_MEM", 0x4005},
      {"FP_SCALE_OPS_SPEC", 0x80c0}, {"FP_FIXED_OPS_SPEC", 0x80c1}, {"STALL_FRONTEND_FLUSH", 0x8162},
  };
  return *events;
}

std::string Lower(const std::string& s) { return absl::AsciiStrToLower(s); }

}  // namespace

void Importer::ResolveArchStdMetrics(std::vector<json>* lists) {
  std::map<std::string, json> standard;  // lower-case MetricName -> entry
  for (const json& list : *lists) {
    for (const json& m : list) {
      if (m.is_object() && m.contains("MetricName") && m.contains("MetricExpr") && m["MetricName"].is_string()) {
        standard.emplace(Lower(m["MetricName"].get<std::string>()), m);
      }
    }
  }
  json resolved = json::array();
  for (json& list : *lists) {
    json kept = json::array();
    for (json& m : list) {
      if (!m.is_object() || !m.contains("ArchStdEvent") || m.contains("MetricName") || !m["ArchStdEvent"].is_string()) {
        kept.push_back(std::move(m));
        continue;
      }
      arm_ = true;
      const std::string name = Lower(m["ArchStdEvent"].get<std::string>());
      auto it = standard.find(name);
      if (it == standard.end() && !m.contains("MetricExpr")) {
        Skip(name, "ArchStdEvent metric with no standard metric of that name among the inputs (give arm64/sbsa.json too)");
        continue;
      }
      // perf's jevents merges the same way: the CPU's fields over the standard entry's.
      json merged = it == standard.end() ? json::object() : it->second;
      for (const auto& [key, value] : m.items()) {
        if (key != "ArchStdEvent") merged[key] = value;
      }
      merged["MetricName"] = name;
      resolved.push_back(std::move(merged));
    }
    list = std::move(kept);
  }
  // First: a CPU's version of a standard metric wins over the standard one.
  if (!resolved.empty()) lists->insert(lists->begin(), std::move(resolved));
}

bool Importer::IsArm() const {
  if (arm_) return true;
  for (const PerfCpu& c : options_.cpus) {
    if (c.part >= 0) return true;
  }
  return false;
}

absl::StatusOr<nlohmann::json> Importer::VendorEvent(const std::string& normalized) const {
  const size_t colon = normalized.find(':');
  const std::string base = normalized.substr(0, colon);
  if (IsArm() && colon == std::string::npos) {
    const std::string upper = absl::AsciiStrToUpper(base);
    auto it = ArmCommonEvents().find(upper);
    if (it != ArmCommonEvents().end()) {
      json entry = {{"name", upper}, {"encoding", {{"config", absl::StrFormat("0x%x", it->second)}}}};
      if (upper == "CPU_CYCLES") entry["aliases"] = {"cycles"};
      if (upper == "INST_RETIRED") entry["aliases"] = {"instructions"};
      return entry;
    }
  }
  if (!amd_ || events_.count(base)) return absl::NotFoundError(normalized);
  // AMD without event files: the encoding td's own AMD definitions give the same name.
  for (const auto& [file, text] : EmbeddedDefinitionFiles()) {
    if (file.rfind("amd_", 0) != 0) continue;
    const json definition = json::parse(text, nullptr, false);
    if (definition.is_discarded() || !definition.contains("events")) continue;
    for (const json& e : definition["events"]) {
      if (NormalizeEventName(e.value("name", "")) != normalized) continue;
      json entry = {{"name", e["name"]}, {"encoding", e.value("encoding", json::object())}};
      if (e.contains("aliases")) entry["aliases"] = e["aliases"];
      entry["note"] = "encoding from td's " + file + " (no event file was given)";
      return entry;
    }
  }
  return absl::NotFoundError(normalized);
}

// Arm's PMUv3 has a dedicated cycle counter besides the programmable ones;
// six is the fewest a Neoverse core has (more only means fewer groups).
nlohmann::json Importer::ArmCounters() {
  return {{"note", "Arm PMUv3: the dedicated cycle counter plus at least 6 programmable counters"},
          {"general", 6},
          {"fixed", {"0x11"}},
          {"cycles", "0x11"},
          {"instructions", "0x8"}};
}

}  // namespace td::perf_import

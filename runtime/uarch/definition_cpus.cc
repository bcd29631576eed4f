// DefinitionLibrary's identification of a CPU: which key the "cpus" tables
// of the definition files give a vendor, family, model and stepping, a CPUID
// as perf's mapfiles spell it, or one core type of a hybrid part.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_fields.h"
#include "runtime/uarch/definitions.h"

namespace td {

using nlohmann::json;

namespace {

// `v` as an int; anything else (a fraction, 1e30, a string) is no int.
bool AsInt(const json& v, int* out) { return json_fields::ToInteger(v, "", out).ok(); }

// Whether `v` (when present) is an int satisfying `test`; an entry of the
// wrong type matches nothing, so a malformed table never matches by accident.
template <typename Test>
bool IntMatches(const json& cpu, const char* key, Test test) {
  const auto it = cpu.find(key);
  if (it == cpu.end()) return true;
  int v = 0;
  return AsInt(*it, &v) && test(v);
}

bool CpuMatches(const json& cpu, const std::string& vendor, int family, int model, int stepping) {
  if (!cpu.is_object() || !cpu.contains("vendor") || !cpu["vendor"].is_string() ||
      cpu["vendor"].get<std::string>() != vendor) {
    return false;
  }
  if (!IntMatches(cpu, "family", [&](int v) { return v == family; })) return false;
  if (!IntMatches(cpu, "part", [&](int v) { return v == model; })) return false;
  if (!IntMatches(cpu, "stepping_min", [&](int v) { return stepping >= v; })) return false;
  if (!IntMatches(cpu, "stepping_max", [&](int v) { return stepping <= v; })) return false;
  if (cpu.contains("models")) {
    const json& models = cpu["models"];
    if (!models.is_array()) return false;
    bool listed = false;
    for (const json& m : models) {
      int v = 0;
      listed |= AsInt(m, &v) && v == model;
    }
    if (!listed) return false;
  }
  if (cpu.contains("model_ranges")) {
    const json& ranges = cpu["model_ranges"];
    if (!ranges.is_array()) return false;
    bool inside = false;
    for (const json& range : ranges) {
      int lo = 0, hi = 0;
      inside |= range.is_array() && range.size() == 2 && AsInt(range[0], &lo) && AsInt(range[1], &hi) &&
                model >= lo && model <= hi;
    }
    if (!inside) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> DefinitionLibrary::Identify(const std::string& vendor, int family,
                                                        int model, int stepping) const {
  for (const File& file : files_) {
    const json uarchs = file.json->value("uarchs", json::object());
    for (const auto& [key, entry] : uarchs.items()) {
      if (!entry.is_object()) continue;
      const json cpus = entry.value("cpus", json::array());
      for (const json& cpu : cpus) {
        try {
          if (CpuMatches(cpu, vendor, family, model, stepping)) return cpu.value("hybrid", key);
        } catch (const json::exception&) {
          continue;  // a malformed table entry matches nothing (FromTexts reported it)
        }
      }
    }
  }
  return absl::NotFoundError(absl::StrFormat(
      "this CPU (%s family %d model %d stepping %d) is not in td's definitions; set TD_UARCH to "
      "one of the keys of `td uarchs` if it matches one, or add a definition file "
      "(docs/analysis.md)",
      vendor, family, model, stepping));
}

absl::StatusOr<std::string> DefinitionLibrary::IdentifyCpuid(const std::string& cpuid) const {
  const auto refuse = [&cpuid] {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cpuid \"%s\" is not understood; accepted: VENDOR-FAMILY-MODEL[-STEPPING] as perf's mapfile spells it "
        "(GenuineIntel-6-AD) or an Arm MIDR (0x410fd840)",
        Printable(cpuid)));
  };
  uint64_t midr = 0;
  if (absl::StartsWithIgnoreCase(cpuid, "0x") && absl::SimpleHexAtoi(cpuid.substr(2), &midr)) {
    // MIDR_EL1: implementer in bits 31:24, part number in bits 15:4. The
    // "cpus" tables tell Arm keys apart by part alone; the revision goes to
    // the formulas (a case's cpu_revision), not to the choice of key.
    const auto implementer = static_cast<int>((midr >> 24) & 0xff);
    const auto part = static_cast<int>((midr >> 4) & 0xfff);
    return Identify(absl::StrFormat("0x%02x", implementer), 0, part, 0);
  }
  const std::vector<std::string> fields = absl::StrSplit(cpuid, '-');
  int family = 0;
  uint32_t model = 0;
  uint32_t stepping = 0;
  if (fields.size() < 3 || fields.size() > 4 || fields[0].empty() || !absl::SimpleAtoi(fields[1], &family) ||
      !absl::SimpleHexAtoi(fields[2], &model) || (fields.size() == 4 && !absl::SimpleHexAtoi(fields[3], &stepping))) {
    return refuse();
  }
  // Without a stepping, the earliest: a model that two keys share by
  // stepping (Skylake-SP and Cascade Lake) gets the older one.
  return Identify(fields[0], family, static_cast<int>(model), fields.size() == 4 ? static_cast<int>(stepping) : 0);
}

std::string DefinitionLibrary::UarchForPmu(const std::string& uarch, const std::string& pmu) const {
  for (const File& file : files_) {
    const json uarchs = file.json->value("uarchs", json::object());
    for (const auto& [key, entry] : uarchs.items()) {
      if (!entry.is_object()) continue;
      for (const json& cpu : entry.value("cpus", json::array())) {
        if (!cpu.is_object()) continue;
        const auto hybrid = cpu.find("hybrid");
        const auto core_pmu = cpu.find("core_pmu");
        if (hybrid == cpu.end() || core_pmu == cpu.end() || !hybrid->is_string() || !core_pmu->is_string()) continue;
        const std::string& part = hybrid->get_ref<const std::string&>();
        if ((uarch == part || uarch == part + "_hybrid") && *core_pmu == pmu) return key;
      }
    }
  }
  return uarch;
}

}  // namespace td

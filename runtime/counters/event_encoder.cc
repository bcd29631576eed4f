#include "runtime/counters/event_encoder.h"

#include <perfmon/pfmlib_perf_event.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/counters/event_selection.h"
#include "runtime/counters/event_spec.h"
#include "runtime/machine/machine_info.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

// libpfm4 reads its environment once, in pfm_initialize().
int InitializeLibpfm() {
  static std::once_flag once;
  static int status = PFM_SUCCESS;
  std::call_once(once, [] {
    setenv("LIBPFM_ENCODE_INACTIVE", "1", 0);  // encode for PMUs this host lacks
    status = pfm_initialize();
  });
  return status;
}

absl::Status LibpfmUnavailable(int err) { return absl::UnavailableError(std::string("libpfm4: ") + pfm_strerror(err)); }

// Every PMU libpfm4 knows, present on this machine or not.
std::vector<pfm_pmu_info_t> LibpfmPmus() {
  std::vector<pfm_pmu_info_t> pmus;
  if (InitializeLibpfm() != PFM_SUCCESS) return pmus;
  for (int index = PFM_PMU_NONE; index < PFM_PMU_MAX; ++index) {
    pfm_pmu_info_t info;
    std::memset(&info, 0, sizeof(info));
    info.size = sizeof(info);
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(index), &info) == PFM_SUCCESS && info.name != nullptr) {
      pmus.push_back(info);
    }
  }
  return pmus;
}

std::optional<pfm_pmu_info_t> LibpfmPmu(const std::string& name) {
  for (const pfm_pmu_info_t& info : LibpfmPmus()) {
    if (name == info.name) return info;
  }
  return std::nullopt;
}

// The core PMU libpfm4 finds on this machine, the architecture's default
// first; "" when there is none (a VM without a PMU, a CPU libpfm4 predates).
std::string PresentCorePmu() {
  std::string found;
  for (const pfm_pmu_info_t& info : LibpfmPmus()) {
    if (!info.is_present || info.type != PFM_PMU_TYPE_CORE) continue;
    if (info.is_dfl) return info.name;
    if (found.empty()) found = info.name;
  }
  return found;
}

// "UOPS_ISSUED.ANY" -> "UOPS_ISSUED:ANY"; td's ":c4" -> libpfm4's ":c=4".
std::string LibpfmSyntax(const std::string& event) {
  std::string out = event;
  const size_t dot = out.find('.');
  if (dot != std::string::npos && out.find(':') > dot) out[dot] = ':';
  std::string result;
  for (size_t i = 0; i < out.size(); ++i) {
    result += out[i];
    const bool counter_mask = out[i] == ':' && i + 2 < out.size() && out[i + 1] == 'c' &&
                              std::isdigit(static_cast<unsigned char>(out[i + 2]));
    if (counter_mask) {
      result += "c=";
      ++i;
    }
  }
  return result;
}

// The other way round: libpfm4's "EVENT:UMASK[:mods]" as td's "EVENT.UMASK[:mods]",
// the spelling of td's table. Names already dotted, or without a unit mask, stay.
std::string TdSpelling(const std::string& event) {
  const size_t colon = event.find(':');
  if (colon == std::string::npos || event.find('.') < colon) return event;
  std::string dotted = event;
  dotted[colon] = '.';
  return dotted;
}

// The uarch whose definitions serve as td's table for this PMU.
std::string UarchFor(const std::string& pmu, const DefinitionLibrary& library) {
  for (const std::string& uarch : library.Uarchs()) {
    if (uarch == pmu) return uarch;
  }
  for (const std::string& uarch : library.Uarchs()) {
    const MetricSet* set = library.Find(uarch);
    if (set != nullptr && set->libpfm_pmu == pmu) return uarch;
  }
  return "";
}

// The definitions key of this CPU, when td has definitions for it beyond the
// generic ones every machine gets.
std::string HostUarch(const DefinitionLibrary& library) {
  const MachineInfo machine = DescribeThisMachine();
  const std::string uarch = UarchForCpu(library, machine.cpu_vendor, machine.cpu_family, machine.cpu_model,
                                        machine.cpu_stepping);
  if (uarch == "generic" || library.Find(uarch) == nullptr) return "";
  return uarch;
}

// What one request is aimed at, resolved once for all the names it encodes.
struct Target {
  std::string name;                // reported as EventEncoding::pmu
  std::string libpfm;              // libpfm4's PMU; "" when libpfm4 has none for it
  const MetricSet* table = nullptr;  // td's definitions for it, when it has some (the library's)
};

absl::Status UnknownPmu(const std::string& pmu, const DefinitionLibrary& library) {
  std::vector<std::pair<size_t, std::string>> scored;
  const std::string wanted = absl::AsciiStrToLower(pmu);
  // PMU names are short and alike (icl, icx, clx): only near misses help.
  const size_t tolerated = std::max<size_t>(2, wanted.size() / 2);
  for (const PmuListing& known : ListPmus(library)) {
    const size_t distance = EditDistance(wanted, absl::AsciiStrToLower(known.name));
    if (distance <= tolerated) scored.emplace_back(distance, known.name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> closest;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) closest.push_back(scored[i].second);
  return absl::NotFoundError(absl::StrFormat("unknown PMU \"%s\"%s; `td events list --pmus` lists them all", pmu,
                                             closest.empty() ? "" : "; closest: " + absl::StrJoin(closest, ", ")));
}

Target HostTarget(const DefinitionLibrary& library) {
  Target target;
  const std::string uarch = HostUarch(library);
  if (!uarch.empty()) target.table = library.Find(uarch);
  // The PMU libpfm4 finds here serves a uarch whose definitions name none
  // (a newer libpfm4 than the definitions were written against).
  target.libpfm = target.table && !target.table->libpfm_pmu.empty() ? target.table->libpfm_pmu : PresentCorePmu();
  if (target.libpfm.empty() && !target.table) target.libpfm = "perf";  // generic events only
  target.name = target.libpfm.empty() ? uarch : target.libpfm;
  return target;
}

absl::StatusOr<Target> ResolveTarget(const std::string& pmu, const DefinitionLibrary& library) {
  if (const int err = InitializeLibpfm(); err != PFM_SUCCESS) return LibpfmUnavailable(err);
  if (pmu.empty()) return HostTarget(library);
  Target target;
  if (const std::string uarch = UarchFor(pmu, library); !uarch.empty()) target.table = library.Find(uarch);
  const std::string libpfm_name = target.table && !target.table->libpfm_pmu.empty() ? target.table->libpfm_pmu : pmu;
  if (LibpfmPmu(libpfm_name)) target.libpfm = libpfm_name;
  if (!target.table && target.libpfm.empty()) return UnknownPmu(pmu, library);
  target.name = target.libpfm.empty() ? pmu : target.libpfm;
  return target;
}

// ":c1:e" / ":c=1:e=1" / ":cmask=1:edge" as event-select bits, placed by the
// same field layout td encodes `cpu/…/` terms with; null for a modifier this
// cannot place (it is then libpfm4's to understand). perf's privilege letters
// (u, k, …) are not config bits and are skipped.
std::optional<uint64_t> ModifierBits(const std::string& modifiers) {
  uint64_t bits = 0;
  for (absl::string_view raw : absl::StrSplit(modifiers, ':', absl::SkipEmpty())) {
    const std::string term = absl::AsciiStrToLower(raw);
    const size_t eq = term.find('=');
    std::string key = term.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : term.substr(eq + 1);
    if (eq == std::string::npos && key.size() > 1 && key[0] == 'c' && std::isdigit(static_cast<unsigned char>(key[1]))) {
      value = key.substr(1);  // td's "c4"
      key = "c";
    }
    uint64_t number = 1;
    if (!value.empty() && !absl::SimpleAtoi(value, &number)) return std::nullopt;
    const char* field = key == "c" || key == "cmask" ? "cmask"
                        : key == "e" || key == "edge" ? "edge"
                        : key == "i" || key == "inv"  ? "inv"
                                                      : nullptr;
    if (field == nullptr) {
      if (key.find_first_not_of("ukh") != std::string::npos || !value.empty()) return std::nullopt;
      continue;
    }
    const std::optional<uint64_t> placed = EventSelectBits(field, number);
    if (!placed) return std::nullopt;
    bits |= *placed;
  }
  return bits;
}

// The event-select bits a modifier may set; a table encoding that already
// sets any of them is not extended.
uint64_t ModifierFieldBits() {
  return EventSelectBits("edge", 1).value_or(0) | EventSelectBits("inv", 1).value_or(0) |
         EventSelectBits("cmask", 0xff).value_or(0);
}

// Only the x86 tables carry event-select encodings that modifiers extend.
bool HasEventSelectLayout(const MetricSet& table) {
  return std::any_of(table.families.begin(), table.families.end(), [](const std::string& family) {
    return family.rfind("intel", 0) == 0 || family.rfind("amd", 0) == 0;
  });
}

// td's table, when it encodes the event: the name as spelled, as td spells
// it, or its event and unit mask with modifiers the table does not list
// ("TOPDOWN.BACKEND_BOUND_SLOTS:c1").
std::optional<EventEncoding> EncodeFromTable(const Target& target, const std::string& event) {
  if (!target.table) return std::nullopt;
  const MetricSet& table = *target.table;
  const std::string spelled = TdSpelling(event);
  for (const std::string& name : {event, spelled}) {
    const EventDefinition* def = table.FindEvent(name);
    if (def == nullptr) continue;
    if (const std::optional<uint64_t> config = def->RawConfig()) {
      return EventEncoding{target.name, PERF_TYPE_RAW, *config, def->RawConfig1(), "td table", def->name};
    }
  }
  const size_t colon = spelled.find(':');
  if (colon == std::string::npos || !HasEventSelectLayout(table)) return std::nullopt;
  const EventDefinition* base = table.FindEvent(spelled.substr(0, colon));
  const std::optional<uint64_t> config = base != nullptr ? base->RawConfig() : std::nullopt;
  if (!config || (*config & ModifierFieldBits()) != 0) return std::nullopt;
  const std::optional<uint64_t> bits = ModifierBits(spelled.substr(colon + 1));
  if (!bits) return std::nullopt;
  return EventEncoding{target.name, PERF_TYPE_RAW, *config | *bits, 0, "td table",
                       base->name + spelled.substr(colon)};
}

// The order of authority of the header; NotFound when nobody knows the name.
absl::StatusOr<EventEncoding> EncodeFor(const Target& target, const std::string& event) {
  if (const GenericEvent* generic = FindGenericEvent(event)) {
    return EventEncoding{"perf", generic->type, generic->config, 0, "perf generic", generic->name};
  }
  if (std::optional<EventEncoding> from_table = EncodeFromTable(target, event)) return *from_table;
  if (target.libpfm.empty()) {
    return absl::NotFoundError(absl::StrFormat("not in td's table, and libpfm4 has no PMU %s", target.name));
  }
  return EncodeWithLibpfm(event, target.libpfm);
}

// libpfm4's events of one PMU, each with each of its unit masks (td's
// spelling), as they must be encoded: a bare "TOPDOWN" is refused.
std::vector<std::string> LibpfmEventNames(const std::string& libpfm_pmu) {
  std::vector<std::string> names;
  const std::optional<pfm_pmu_info_t> pmu = LibpfmPmu(libpfm_pmu);
  if (!pmu) return names;
  for (int i = pmu->first_event; i != -1; i = pfm_get_event_next(i)) {
    pfm_event_info_t event;
    std::memset(&event, 0, sizeof(event));
    event.size = sizeof(event);
    if (pfm_get_event_info(i, PFM_OS_NONE, &event) != PFM_SUCCESS) continue;
    bool has_umask = false;
    for (int a = 0; a < event.nattrs; ++a) {
      pfm_event_attr_info_t attr;
      std::memset(&attr, 0, sizeof(attr));
      attr.size = sizeof(attr);
      if (pfm_get_event_attr_info(i, a, PFM_OS_NONE, &attr) != PFM_SUCCESS || attr.type != PFM_ATTR_UMASK) continue;
      names.push_back(absl::StrFormat("%s.%s", event.name, attr.name));
      has_umask = true;
    }
    if (!has_umask) names.emplace_back(event.name);
  }
  return names;
}

// Every name EncodeFor accepts for the target, once each (case aside).
std::vector<std::string> EventNames(const Target& target) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  auto add = [&](const std::string& name) {
    if (seen.insert(absl::AsciiStrToLower(name)).second && EncodeFor(target, name).ok()) names.push_back(name);
  };
  if (!target.libpfm.empty()) {
    for (const std::string& name : LibpfmEventNames(target.libpfm)) add(name);
  }
  if (target.table) {
    for (const EventDefinition& def : target.table->events) add(def.name);
  }
  for (const std::string& name : GenericEventNames()) add(name);
  return names;
}

// The distance that ranks candidates for an unknown name: whole names when
// it has a unit mask, else event names (a bare "UOPS_ISUED" is close to every
// UOPS_ISSUED.*).
size_t NameDistance(const std::string& wanted, const std::string& candidate) {
  const std::string spelled = TdSpelling(wanted);
  const std::string event = absl::AsciiStrToUpper(spelled.substr(0, spelled.find(':')));  // no modifiers
  const std::string known = absl::AsciiStrToUpper(candidate);
  if (event.find('.') != std::string::npos) return EditDistance(event, known);
  return EditDistance(event, known.substr(0, known.find('.')));
}

absl::Status UnknownEvent(const std::string& event, const Target& target, const absl::Status& why) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& name : EventNames(target)) scored.emplace_back(NameDistance(event, name), name);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> closest;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) closest.push_back(scored[i].second);
  return absl::NotFoundError(absl::StrFormat("unknown event \"%s\" for PMU %s (%s)%s", event, target.name,
                                             why.message(),
                                             closest.empty() ? "" : "; closest: " + absl::StrJoin(closest, ", ")));
}

}  // namespace

std::string LibpfmPmuName(const std::string& pmu_or_uarch, const DefinitionLibrary& library) {
  const MetricSet* set = library.Find(pmu_or_uarch);
  if (set != nullptr && !set->libpfm_pmu.empty()) return set->libpfm_pmu;
  return pmu_or_uarch;
}

std::string HostPmu(const DefinitionLibrary& library) {
  return HostTarget(library).name;
}

std::vector<PmuListing> ListPmus(const DefinitionLibrary& library) {
  const std::string host = HostPmu(library);
  std::vector<PmuListing> pmus;
  for (const pfm_pmu_info_t& info : LibpfmPmus()) {
    pmus.push_back({info.name, info.desc != nullptr ? info.desc : "", info.is_present != 0, host == info.name, {}});
  }
  for (const std::string& uarch : library.Uarchs()) {
    const std::string libpfm = LibpfmPmuName(uarch, library);
    auto served = std::find_if(pmus.begin(), pmus.end(), [&](const PmuListing& p) { return p.name == libpfm; });
    if (served == pmus.end()) {
      pmus.push_back({uarch, "td's definitions only (libpfm4 4.13 has no PMU for it)", false, host == uarch, {}});
      served = pmus.end() - 1;
    }
    served->uarchs.push_back(uarch);
  }
  return pmus;
}

absl::StatusOr<std::vector<std::string>> ListEvents(const std::string& pmu,
                                                    const DefinitionLibrary& library) {
  TD_ASSIGN_OR_RETURN(const auto target, ResolveTarget(pmu, library));
  return EventNames(target);
}

absl::StatusOr<EventEncoding> EncodeEvent(const std::string& event, const std::string& pmu,
                                          const DefinitionLibrary& library) {
  // "skl::EVENT" names its PMU, as in libpfm4 and TD_EVENTS.
  std::string pmu_name = pmu;
  std::string event_name = event;
  if (const size_t colons = event.find("::"); colons != std::string::npos) {
    pmu_name = event.substr(0, colons);
    event_name = event.substr(colons + 2);
  }
  TD_ASSIGN_OR_RETURN(const auto target, ResolveTarget(pmu_name, library));
  auto encoded = EncodeFor(target, event_name);
  if (encoded.ok() || encoded.status().code() != absl::StatusCode::kNotFound) return encoded;
  return UnknownEvent(event_name, target, encoded.status());
}

absl::StatusOr<EventEncoding> EncodeWithLibpfm(const std::string& event, const std::string& libpfm_pmu) {
  if (const int err = InitializeLibpfm(); err != PFM_SUCCESS) return LibpfmUnavailable(err);
  const std::string qualified =
      libpfm_pmu.empty() ? LibpfmSyntax(event) : libpfm_pmu + "::" + LibpfmSyntax(event);
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  char* full_name = nullptr;
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof(arg));
  arg.attr = &attr;
  arg.fstr = &full_name;
  arg.size = sizeof(arg);
  const int err = pfm_get_os_event_encoding(qualified.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (err == PFM_SUCCESS) {
    EventEncoding encoding{libpfm_pmu, attr.type, attr.config, attr.config1, "libpfm4",
                           full_name != nullptr ? full_name : qualified};
    std::free(full_name);
    return encoding;
  }
  std::free(full_name);
  return absl::NotFoundError(std::string("libpfm4: ") + pfm_strerror(err));
}

}  // namespace td

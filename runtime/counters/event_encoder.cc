#include "runtime/counters/event_encoder.h"

#include <perfmon/pfmlib_perf_event.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

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

// The uarch whose definitions serve as td's table for this PMU.
std::string UarchFor(const std::string& pmu, const DefinitionLibrary& library) {
  for (const std::string& uarch : library.Uarchs()) {
    if (uarch == pmu) return uarch;
  }
  for (const std::string& uarch : library.Uarchs()) {
    auto set = library.ForUarch(uarch);
    if (set.ok() && set->libpfm_pmu == pmu) return uarch;
  }
  return "";
}

}  // namespace

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string LibpfmPmuName(const std::string& pmu_or_uarch, const DefinitionLibrary& library) {
  auto set = library.ForUarch(pmu_or_uarch);
  if (set.ok() && !set->libpfm_pmu.empty()) return set->libpfm_pmu;
  return pmu_or_uarch;
}

absl::StatusOr<std::vector<std::string>> ListEvents(const std::string& pmu,
                                                    const DefinitionLibrary& library) {
  if (const int err = InitializeLibpfm(); err != PFM_SUCCESS) {
    return absl::UnavailableError(std::string("libpfm4: ") + pfm_strerror(err));
  }
  const std::string name = LibpfmPmuName(pmu, library);
  pfm_pmu_t found = PFM_PMU_NONE;
  bool any_present = false;
  std::string present;
  for (int index = PFM_PMU_NONE; index < PFM_PMU_MAX; ++index) {
    const auto p = static_cast<pfm_pmu_t>(index);
    pfm_pmu_info_t info;
    std::memset(&info, 0, sizeof(info));
    if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || info.name == nullptr) continue;
    if (info.is_present) {
      any_present = true;
      present += (present.empty() ? "" : " ") + std::string(info.name);
    }
    if ((name.empty() && info.is_present && info.is_dfl) || name == info.name) found = p;
  }
  if (found == PFM_PMU_NONE) {
    return absl::NotFoundError(
        name.empty() ? std::string("no PMU is present on this machine; name one with --pmu (e.g. skl, icl, "
                                   "amd64_fam19h_zen4) or a td uarch key")
                     : absl::StrFormat("libpfm4 has no PMU \"%s\"%s", name,
                                       any_present ? "; present: " + present : ""));
  }
  pfm_pmu_info_t info;
  std::memset(&info, 0, sizeof(info));
  pfm_get_pmu_info(found, &info);
  std::vector<std::string> events;
  for (int i = info.first_event; i != -1; i = pfm_get_event_next(i)) {
    pfm_event_info_t event;
    std::memset(&event, 0, sizeof(event));
    if (pfm_get_event_info(i, PFM_OS_NONE, &event) == PFM_SUCCESS) events.emplace_back(event.name);
  }
  return events;
}

absl::StatusOr<EventEncoding> EncodeEvent(const std::string& event, const std::string& pmu,
                                          const DefinitionLibrary& library) {
  const std::string libpfm_pmu = LibpfmPmuName(pmu, library);
  // td's table first: it holds what libpfm4 4.13 lacks (topdown pseudo events)
  // and what it encodes wrongly (TOPDOWN.*_SLOTS on icl/icx/spr).
  if (const std::string uarch = UarchFor(pmu, library); !uarch.empty()) {
    auto set = library.ForUarch(uarch);
    const EventDefinition* def = set.ok() ? set->FindEvent(event) : nullptr;
    uint64_t config = 0;
    if (def != nullptr && !def->config.empty() && absl::SimpleHexAtoi(def->config, &config)) {
      return EventEncoding{libpfm_pmu, PERF_TYPE_RAW, config, 0, "td table", def->name};
    }
  }
  auto encoded = EncodeWithLibpfm(event, libpfm_pmu);
  if (encoded.ok() || encoded.status().code() != absl::StatusCode::kNotFound) return encoded;
  // Unknown: name it and the closest names libpfm4 knows.
  std::vector<std::pair<size_t, std::string>> scored;
  const std::string wanted = absl::AsciiStrToUpper(event.substr(0, event.find_first_of(".:")));
  if (auto names = ListEvents(pmu, library); names.ok()) {
    for (const std::string& n : *names) scored.emplace_back(EditDistance(wanted, absl::AsciiStrToUpper(n)), n);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> closest;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) closest.push_back(scored[i].second);
  return absl::NotFoundError(absl::StrFormat(
      "unknown event \"%s\" for PMU %s (%s)%s", event,
      libpfm_pmu.empty() ? "(host default)" : libpfm_pmu, encoded.status().message(),
      closest.empty() ? "" : "; closest: " + absl::StrJoin(closest, ", ")));
}

absl::StatusOr<EventEncoding> EncodeWithLibpfm(const std::string& event, const std::string& libpfm_pmu) {
  if (const int err = InitializeLibpfm(); err != PFM_SUCCESS) {
    return absl::UnavailableError(std::string("libpfm4: ") + pfm_strerror(err));
  }
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

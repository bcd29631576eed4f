// Event names -> perf_event_attr encodings, for PMUs present or not:
// libpfm4 (with LIBPFM_ENCODE_INACTIVE=1) plus td's own table from the
// definition files for what libpfm4 4.13 lacks or encodes wrongly.
#ifndef TD_RUNTIME_COUNTERS_EVENT_ENCODER_H_
#define TD_RUNTIME_COUNTERS_EVENT_ENCODER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/uarch/definitions.h"

namespace td {

struct EventEncoding {
  std::string pmu;     // libpfm4 PMU name, e.g. "skl"
  uint32_t type = 0;   // perf_event_attr.type
  uint64_t config = 0;
  uint64_t config1 = 0;
  std::string source;  // "libpfm4" or "td table"
  std::string name;    // fully qualified, as libpfm4 understood it (or td's name)
};

// `pmu` is a libpfm4 PMU name ("skl") or a td uarch key ("tgl"); empty means
// the host's default PMU. Accepts "EVENT.UMASK" and "EVENT:UMASK[:mods]".
// An unknown event is an error naming it and the closest known names.
absl::StatusOr<EventEncoding> EncodeEvent(const std::string& event, const std::string& pmu,
                                          const DefinitionLibrary& library);

// libpfm4 alone (no td table): for checking td's table against it.
absl::StatusOr<EventEncoding> EncodeWithLibpfm(const std::string& event, const std::string& libpfm_pmu);

// Event names libpfm4 knows for `pmu` (libpfm4 name or td uarch key).
absl::StatusOr<std::vector<std::string>> ListEvents(const std::string& pmu,
                                                    const DefinitionLibrary& library);

// Levenshtein distance, for "closest names" in error messages.
size_t EditDistance(const std::string& a, const std::string& b);

// The libpfm4 PMU name for a td uarch key, from the definition files; the
// input itself when it is not a uarch key.
std::string LibpfmPmuName(const std::string& pmu_or_uarch, const DefinitionLibrary& library);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_EVENT_ENCODER_H_

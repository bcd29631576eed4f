// Event names -> perf_event_attr encodings, for PMUs present or not:
// libpfm4 (with LIBPFM_ENCODE_INACTIVE=1) plus td's own table from the
// definition files for what libpfm4 4.13 lacks or encodes wrongly.
//
// One event has one encoding whatever its spelling: "TOPDOWN.BACKEND_BOUND_SLOTS",
// "TOPDOWN:BACKEND_BOUND_SLOTS", "topdown.backend_bound_slots" and
// "icl::TOPDOWN:BACKEND_BOUND_SLOTS" all give config 0x2a4 on icl. Who decides,
// in this order:
//   1. perf's generic names (cycles, instructions, task-clock, …) are perf's
//      generic events on every PMU: the kernel maps them onto each CPU's own
//      event, and they are what td programs for those names;
//   2. td's table (the definitions of the PMU's microarchitecture), because
//      libpfm4 4.13 is wrong for some events (TOPDOWN.*_SLOTS on icl/icx/spr)
//      and lacks others (the PERF_METRICS pseudo events);
//   3. libpfm4.
#ifndef TD_RUNTIME_COUNTERS_EVENT_ENCODER_H_
#define TD_RUNTIME_COUNTERS_EVENT_ENCODER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/uarch/definitions.h"

namespace td {

struct EventEncoding {
  std::string pmu;     // libpfm4 PMU name ("skl"), a td uarch key libpfm4 lacks ("zen5"), or "perf"
  uint32_t type = 0;   // perf_event_attr.type
  uint64_t config = 0;
  uint64_t config1 = 0;
  std::string source;  // "perf generic", "td table" or "libpfm4"
  std::string name;    // fully qualified, as libpfm4 understood it (or td's name)
};

// `pmu` is a libpfm4 PMU name ("skl") or a td uarch key ("tgl"); empty means
// the host's PMU (HostPmu). Accepts "EVENT.UMASK", "EVENT:UMASK[:mods]" and
// "PMU::EVENT", in any case. An unknown PMU or event is an error naming it and
// the closest known names.
absl::StatusOr<EventEncoding> EncodeEvent(const std::string& event, const std::string& pmu,
                                          const DefinitionLibrary& library);

// libpfm4 alone (no td table): for checking td's table against it.
absl::StatusOr<EventEncoding> EncodeWithLibpfm(const std::string& event, const std::string& libpfm_pmu);

// Every name EncodeEvent accepts for `pmu` ("" = the host's), spelled td's way
// (EVENT.UMASK), one per event: libpfm4's events with each of their unit masks,
// then what only td's table has, then perf's generic names.
absl::StatusOr<std::vector<std::string>> ListEvents(const std::string& pmu,
                                                    const DefinitionLibrary& library);

// The PMU an empty `pmu` stands for, as EventEncoding::pmu names it: the one
// the runtime programs. This CPU's definitions (TD_UARCH wins), else the core
// PMU libpfm4 finds present, else "perf" (libpfm4's generic events: a VM
// without a PMU, or a CPU libpfm4 does not know).
std::string HostPmu(const DefinitionLibrary& library);

struct PmuListing {
  std::string name;                // what --pmu accepts
  std::string description;
  bool present = false;            // libpfm4 finds it on this machine
  bool host = false;               // what an empty --pmu means here
  std::vector<std::string> uarchs; // td uarch keys whose table serves it
};

// libpfm4's PMUs (present or not), then td uarch keys libpfm4 has no PMU for.
std::vector<PmuListing> ListPmus(const DefinitionLibrary& library);


// The libpfm4 PMU name for a td uarch key, from the definition files; the
// input itself when it is not a uarch key.
std::string LibpfmPmuName(const std::string& pmu_or_uarch, const DefinitionLibrary& library);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_EVENT_ENCODER_H_

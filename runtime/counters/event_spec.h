// TD_EVENTS: the events a user asks to count, parsed and resolved to
// perf_event_attr encodings. Accepted spellings:
//   perf names       cycles, instructions, task-clock, page-faults, ...
//   libpfm4 names    UOPS_ISSUED:ANY, UOPS_ISSUED.ANY, skl::INT_MISC:RECOVERY_CYCLES:c=1:e
//   raw              r01c2 (PERF_TYPE_RAW config in hex)
//   PMU terms        cpu/event=0xa4,umask=0x02,cmask=1,inv/ (fields from sysfs format/)
// and "{a,b}" forces a group: those events are read together or not at all.
#ifndef TD_RUNTIME_COUNTERS_EVENT_SPEC_H_
#define TD_RUNTIME_COUNTERS_EVENT_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/counters/backend.h"
#include "runtime/uarch/definitions.h"

namespace td {

// One group of an event list (TD_EVENTS) as written: names, not yet resolved.
struct EventListGroup {
  std::vector<std::string> events;
  bool forced = false;  // written in braces: never split
};

// Splits the list; an event outside braces is a group of its own (forced =
// false) that the planner may merge with others. Errors name the position.
absl::StatusOr<std::vector<EventListGroup>> ParseEventList(std::string_view text);

struct EventResolver {
  // libpfm4 PMU name or td uarch key for libpfm4 names; "" = the host's default.
  std::string pmu;
  const DefinitionLibrary* library = nullptr;  // td's table; null = libpfm4 only
  std::string sysfs_devices = "/sys/bus/event_source/devices";

  // An unknown name is an error naming it and the closest known names.
  absl::StatusOr<EventInfo> Resolve(const std::string& spec) const;
};

// perf's generic names (software and hardware) td accepts, for messages.
std::vector<std::string> GenericEventNames();

// `value` placed in the field of the x86 event-select register named by
// `field` ("edge", "inv", "cmask", …: the core PMU's default layout when
// sysfs does not describe it); nullopt for a field outside `config` or a
// value that does not fit.
std::optional<uint64_t> EventSelectBits(std::string_view field, uint64_t value);

struct GenericEvent {
  const char* name;
  uint32_t type;    // PERF_TYPE_HARDWARE or PERF_TYPE_SOFTWARE
  uint64_t config;  // PERF_COUNT_HW_* or PERF_COUNT_SW_*
  const char* unit;
};

// perf's generic event of that name, whatever its case ("cycles", "CYCLES");
// null for any other name. The kernel maps these onto each CPU's own event,
// so they mean the same on every PMU.
const GenericEvent* FindGenericEvent(std::string_view name);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_EVENT_SPEC_H_

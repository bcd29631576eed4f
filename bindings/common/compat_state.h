// What libtd_compat (the LIKWID and PAPI marker APIs on top of td) keeps per
// thread and per region beyond td's own recording: which regions each API has
// open (likwid_markerGetRegion answers from td's recording itself). Indexed
// by NamedSite::index; grows only when a thread meets a name it has not seen.
#ifndef TD_BINDINGS_COMMON_COMPAT_STATE_H_
#define TD_BINDINGS_COMMON_COMPAT_STATE_H_

#include <cstdint>

#include "bindings/common/name_cache.h"

namespace td::compat {

struct RegionState {
  uint8_t likwid_open;
  uint8_t papi_open;
};

enum class PapiState : uint8_t { kNeverUsed, kActive, kStopped };

struct ThreadState {
  RegionState* regions;  // `capacity` entries
  uint32_t capacity;
  PapiState papi;
  // The PAPI regions open now, innermost last (PAPI_hl_stop closes them).
  bindings::NamedSite** papi_stack;
  uint32_t papi_depth;
  uint32_t papi_stack_capacity;
};

// This thread's state, grown to hold `site`; null when out of memory.
RegionState* RegionFor(const bindings::NamedSite* site);
// This thread's state object (never null; its arrays may be).
ThreadState& ThisThread();
// Pushes onto the thread's PAPI stack; false when out of memory.
bool PushPapi(bindings::NamedSite* site);
// Removes `site` from the thread's PAPI stack (innermost occurrence).
void PopPapi(const bindings::NamedSite* site);

inline bool MarkersOn() { return !__atomic_load_n(&td_markers_off, __ATOMIC_RELAXED); }

// Bits of NamedSite::warned: each warning is said once per name.
enum WarnBit : uint32_t {
  kWarnLikwidAlreadyOpen = 1u << 0,
  kWarnLikwidNotOpen = 1u << 1,
  kWarnPapiAlreadyOpen = 1u << 2,
  kWarnPapiNotOpen = 1u << 3,
};
// Prints "td: warning: FUNCTION("NAME"): PROBLEM (said once for this name)"
// the first time `bit` is set on `site`.
void WarnOnce(bindings::NamedSite* site, uint32_t bit, const char* function, const char* problem);
// Prints "td: warning: FUNCTION: PROBLEM" the first time `key` is seen
// (a null name, a call after PAPI_hl_stop…).
void WarnOnceGlobal(const char* key, const char* function, const char* problem);

}  // namespace td::compat

#endif  // TD_BINDINGS_COMMON_COMPAT_STATE_H_

// PAPI's high-level API (C and Fortran entry points) recorded as td regions,
// part of libtd_compat (docs/compat.md). Written from PAPI's documented
// interface (papi.h supplies the constants only; nothing here calls PAPI
// except PAPI_library_init, below):
//   - regions are per thread and may nest; each begin is one td call;
//   - PAPI_hl_read(r) inside r records a zero-length child region
//     "r/PAPI_hl_read", so td's JSON counts the readings;
//   - PAPI_hl_stop() ends the thread's high-level recording: regions still
//     open are closed (with a warning), later high-level calls on the thread
//     return PAPI_EMISC, as PAPI does once deactivated;
//   - misuse returns an error code and records nothing: a null name, a
//     region that is already open (begin) or not open (read, end):
//     PAPI_EINVAL; PAPI_hl_stop with nothing started: PAPI_ENOEVNT.
// A program that mixes in PAPI's low-level API finds PAPI initialised where
// the real high-level API would have initialised it: the first high-level
// call runs the real PAPI_library_init (found with dlsym(RTLD_NEXT)) unless
// PAPI is initialised already; its result is ignored.
#include <dlfcn.h>
#include <papi.h>
#include <pthread.h>

#include <atomic>
#include <cstddef>

#include "bindings/common/compat_state.h"
#include "bindings/common/name_cache.h"
#include "td/td.h"

using td::bindings::NamedSite;
using td::compat::PapiState;
using td::compat::RegionState;

namespace {

pthread_once_t g_papi_once = PTHREAD_ONCE_INIT;
std::atomic<bool> g_papi_initialised{false};  // skips pthread_once's call on every marker

void InitRealPapi() {
  using IsInitialized = int (*)(void);
  using LibraryInit = int (*)(int);
  auto is_initialized = reinterpret_cast<IsInitialized>(dlsym(RTLD_NEXT, "PAPI_is_initialized"));
  auto library_init = reinterpret_cast<LibraryInit>(dlsym(RTLD_NEXT, "PAPI_library_init"));
  if (library_init == nullptr) return;  // no libpapi in the process: nothing to initialise
  if (is_initialized != nullptr && is_initialized() != PAPI_NOT_INITED) return;
  (void)library_init(PAPI_VER_CURRENT);
}

void InitRealPapiOnce() {
  pthread_once(&g_papi_once, InitRealPapi);
  g_papi_initialised.store(true, std::memory_order_release);
}

// The common entry: PAPI initialised once, the thread's state checked.
// Returns PAPI_OK to go on.
inline int Enter(bool begin) {
  if (__builtin_expect(!g_papi_initialised.load(std::memory_order_acquire), 0)) InitRealPapiOnce();
  td::compat::ThreadState& thread = td::compat::ThisThread();
  if (__builtin_expect(thread.papi == PapiState::kStopped, 0)) {
    td::compat::WarnOnceGlobal("PAPI_hl after stop", "PAPI high-level API",
                               "called after PAPI_hl_stop() on the same thread; returns PAPI_EMISC, records nothing");
    return PAPI_EMISC;
  }
  if (begin) thread.papi = PapiState::kActive;
  return PAPI_OK;
}

NamedSite* Site(const char* region, const char* function) {
  NamedSite* site = td::bindings::SiteForC(region);
  if (__builtin_expect(site == nullptr, 0)) {
    td::compat::WarnOnceGlobal(function, function, "a null region name; returns PAPI_EINVAL");
  }
  return site;
}

int Begin(NamedSite* site, const char* function) {
  if (int rc = Enter(true); rc != PAPI_OK) return rc;
  if (site == nullptr) return PAPI_EINVAL;
  RegionState* region = td::compat::RegionFor(site);
  if (region == nullptr) return PAPI_ENOMEM;
  if (__builtin_expect(region->papi_open, 0)) {
    td::compat::WarnOnce(site, td::compat::kWarnPapiAlreadyOpen, function,
                         "the region is already open on this thread; returns PAPI_EINVAL, records nothing");
    return PAPI_EINVAL;
  }
  if (!td::compat::PushPapi(site)) return PAPI_ENOMEM;
  region->papi_open = 1;
  if (td::compat::MarkersOn()) td_region_begin(&site->site);
  return PAPI_OK;
}

int End(NamedSite* site, const char* function) {
  if (int rc = Enter(false); rc != PAPI_OK) return rc;
  if (site == nullptr) return PAPI_EINVAL;
  RegionState* region = td::compat::RegionFor(site);
  if (region == nullptr) return PAPI_ENOMEM;
  if (__builtin_expect(!region->papi_open, 0)) {
    td::compat::WarnOnce(site, td::compat::kWarnPapiNotOpen, function,
                         "the region is not open on this thread; returns PAPI_EINVAL");
    return PAPI_EINVAL;
  }
  region->papi_open = 0;
  td::compat::PopPapi(site);
  if (td::compat::MarkersOn()) td_region_end(&site->site);
  return PAPI_OK;
}

td_site g_read_site = {"PAPI_hl_read", "(PAPI_hl_read)", 0, 0, 0};

int Read(NamedSite* site, const char* function) {
  if (int rc = Enter(false); rc != PAPI_OK) return rc;
  if (site == nullptr) return PAPI_EINVAL;
  RegionState* region = td::compat::RegionFor(site);
  if (region == nullptr) return PAPI_ENOMEM;
  if (!region->papi_open) {
    td::compat::WarnOnce(site, td::compat::kWarnPapiNotOpen, function,
                         "the region is not open on this thread; returns PAPI_EINVAL");
    return PAPI_EINVAL;
  }
  // A reading inside the innermost open region: a zero-length child. Inside
  // an outer region with inner ones open, the child lands under the innermost.
  if (td::compat::MarkersOn()) {
    td_region_begin(&g_read_site);
    td_region_end(&g_read_site);
  }
  return PAPI_OK;
}

int Stop() {
  td::compat::ThreadState& thread = td::compat::ThisThread();
  if (thread.papi != PapiState::kActive) return PAPI_ENOEVNT;
  InitRealPapiOnce();
  if (thread.papi_depth > 0) {
    td::compat::WarnOnceGlobal("PAPI_hl_stop open", "PAPI_hl_stop",
                               "regions still open on the calling thread are closed here");
  }
  while (thread.papi_depth > 0) {
    NamedSite* site = thread.papi_stack[thread.papi_depth - 1];
    --thread.papi_depth;
    if (RegionState* region = td::compat::RegionFor(site)) region->papi_open = 0;
    if (td::compat::MarkersOn()) td_region_end(&site->site);
  }
  thread.papi = PapiState::kStopped;
  return PAPI_OK;
}

using td::bindings::FortranSite;

}  // namespace

extern "C" {

TD_API int PAPI_hl_region_begin(const char* region) {
  return Begin(Site(region, "PAPI_hl_region_begin"), "PAPI_hl_region_begin");
}

TD_API int PAPI_hl_region_end(const char* region) {
  return End(Site(region, "PAPI_hl_region_end"), "PAPI_hl_region_end");
}

TD_API int PAPI_hl_read(const char* region) { return Read(Site(region, "PAPI_hl_read"), "PAPI_hl_read"); }

TD_API int PAPI_hl_stop(void) { return Stop(); }

// Fortran (fpapi.h): PAPIf_hl_region_begin(region, check) and friends, the
// name blank-padded and its length passed last. PAPI exports each under
// several manglings; all of them are defined here so that whichever the
// compiler chose resolves to td.
#define TD_PAPIF_REGION(lower, upper, function, call)                                             \
  TD_API void lower(const char* region, int* check, size_t length) {                              \
    const int rc = call(FortranSite(region, length, function), function);                         \
    if (check != nullptr) *check = rc;                                                            \
  }                                                                                               \
  TD_API void lower##_(const char* region, int* check, size_t length) { lower(region, check, length); } \
  TD_API void lower##__(const char* region, int* check, size_t length) { lower(region, check, length); } \
  TD_API void upper(const char* region, int* check, size_t length) { lower(region, check, length); }

TD_PAPIF_REGION(papif_hl_region_begin, PAPIF_HL_REGION_BEGIN, "PAPI_hl_region_begin", Begin)
TD_PAPIF_REGION(papif_hl_region_end, PAPIF_HL_REGION_END, "PAPI_hl_region_end", End)
TD_PAPIF_REGION(papif_hl_read, PAPIF_HL_READ, "PAPI_hl_read", Read)
#undef TD_PAPIF_REGION

TD_API void papif_hl_stop(int* check) {
  const int rc = Stop();
  if (check != nullptr) *check = rc;
}
TD_API void papif_hl_stop_(int* check) { papif_hl_stop(check); }
TD_API void papif_hl_stop__(int* check) { papif_hl_stop(check); }
TD_API void PAPIF_HL_STOP(int* check) { papif_hl_stop(check); }

}  // extern "C"

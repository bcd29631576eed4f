// LIKWID's marker API (C and Fortran entry points) recorded as td regions,
// part of libtd_compat (docs/compat.md). Written from LIKWID's documented
// interface: regions are per thread and may nest; registering is optional;
// starting a region that is already open on the thread warns and is ignored;
// stopping one that is not open warns and returns -EFAULT, as LIKWID does.
// likwid_markerGetRegion answers from td's own recording of the calling
// thread (runtime/driver/compat_api.h): the region's ended calls, their wall
// time and their counts in the order of td's events; likwid_markerResetRegion
// zeroes that recording, so td's report shows the region since the reset.
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "bindings/common/compat_state.h"
#include "bindings/common/name_cache.h"
#include "runtime/driver/compat_api.h"
#include "td/td.h"

using td::bindings::NamedSite;
using td::compat::RegionState;

namespace {

using td::bindings::FortranSite;

int Start(NamedSite* site, const char* function) {
  RegionState* region = td::compat::RegionFor(site);
  if (region == nullptr) return -ENOMEM;
  if (__builtin_expect(region->likwid_open, 0)) {
    td::compat::WarnOnce(site, td::compat::kWarnLikwidAlreadyOpen, function,
                         "the region is already open on this thread; this start is ignored");
    return 0;
  }
  region->likwid_open = 1;
  td_region_begin(&site->site);
  return 0;
}

int Stop(NamedSite* site, const char* function) {
  RegionState* region = td::compat::RegionFor(site);
  if (region == nullptr) return -ENOMEM;
  if (__builtin_expect(!region->likwid_open, 0)) {
    td::compat::WarnOnce(site, td::compat::kWarnLikwidNotOpen, function,
                         "the region is not open on this thread; ignored");
    return -EFAULT;
  }
  td_region_end(&site->site);
  region->likwid_open = 0;
  return 0;
}

// *nevents: in, how many values `events` holds; out, how many were written.
void Get(NamedSite* site, int* nevents, double* events, double* time, int* count) {
  const int capacity = nevents != nullptr && events != nullptr ? *nevents : 0;
  td_compat_totals totals{0, 0.0, 0};
  if (site != nullptr) td_compat_region_totals(&site->site, events, capacity, &totals);
  if (nevents != nullptr) *nevents = totals.nevents;
  if (time != nullptr) *time = totals.seconds;
  if (count != nullptr) *count = totals.calls > INT32_MAX ? INT32_MAX : static_cast<int>(totals.calls);
}

int Reset(NamedSite* site) { return td_compat_region_reset(&site->site) == 0 ? 0 : -ENOMEM; }

NamedSite* CSite(const char* tag, const char* function) {
  NamedSite* site = td::bindings::SiteForC(tag);
  if (__builtin_expect(site == nullptr, 0)) {
    td::compat::WarnOnceGlobal(function, function, "a null region tag is ignored");
  }
  return site;
}

}  // namespace

extern "C" {

TD_API void likwid_markerInit(void) { td_init(); }

// td opens each thread's counters at its first marker.
TD_API void likwid_markerThreadInit(void) {}

// LIKWID switches to its next event group; td measures one configuration per
// run (`td run --passes` shares groups out over runs), so this does nothing.
TD_API void likwid_markerNextGroup(void) {}

// Writes td's report now (td_finalize); later markers are ignored.
TD_API void likwid_markerClose(void) { td_finalize(); }

TD_API int likwid_markerRegisterRegion(const char* tag) {
  NamedSite* site = CSite(tag, "likwid_markerRegisterRegion");
  if (site == nullptr) return -EINVAL;
  return td::compat::RegionFor(site) == nullptr ? -ENOMEM : 0;
}

TD_API int likwid_markerStartRegion(const char* tag) {
  if (!td::compat::MarkersOn()) return 0;
  NamedSite* site = CSite(tag, "likwid_markerStartRegion");
  return site == nullptr ? -EINVAL : Start(site, "likwid_markerStartRegion");
}

TD_API int likwid_markerStopRegion(const char* tag) {
  if (!td::compat::MarkersOn()) return 0;
  NamedSite* site = CSite(tag, "likwid_markerStopRegion");
  return site == nullptr ? -EINVAL : Stop(site, "likwid_markerStopRegion");
}

TD_API void likwid_markerGetRegion(const char* tag, int* nevents, double* events, double* time, int* count) {
  Get(tag == nullptr ? nullptr : td::bindings::SiteForC(tag), nevents, events, time, count);
}

TD_API int likwid_markerResetRegion(const char* tag) {
  NamedSite* site = CSite(tag, "likwid_markerResetRegion");
  return site == nullptr ? -EINVAL : Reset(site);
}

// Fortran (module `likwid`): subroutines, names blank-padded, the length
// passed last.
TD_API void likwid_markerinit_(void) { likwid_markerInit(); }
TD_API void likwid_markerthreadinit_(void) {}
TD_API void likwid_markernextgroup_(void) {}
TD_API void likwid_markerclose_(void) { likwid_markerClose(); }

TD_API void likwid_markerregisterregion_(const char* tag, size_t length) {
  if (NamedSite* site = FortranSite(tag, length, "likwid_markerRegisterRegion")) td::compat::RegionFor(site);
}

TD_API void likwid_markerstartregion_(const char* tag, size_t length) {
  if (!td::compat::MarkersOn()) return;
  if (NamedSite* site = FortranSite(tag, length, "likwid_markerStartRegion")) Start(site, "likwid_markerStartRegion");
}

TD_API void likwid_markerstopregion_(const char* tag, size_t length) {
  if (!td::compat::MarkersOn()) return;
  if (NamedSite* site = FortranSite(tag, length, "likwid_markerStopRegion")) Stop(site, "likwid_markerStopRegion");
}

TD_API void likwid_markerresetregion_(const char* tag, size_t length) {
  if (NamedSite* site = FortranSite(tag, length, "likwid_markerResetRegion")) Reset(site);
}

TD_API void likwid_markergetregion_(const char* tag, int* nevents, double* events, double* time, int* count,
                                    size_t length) {
  Get(FortranSite(tag, length, "likwid_markerGetRegion"), nevents, events, time, count);
}

}  // extern "C"

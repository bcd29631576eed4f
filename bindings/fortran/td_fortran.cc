// The C side of the Fortran module `td` (td.f90): Fortran strings arrive as
// (address, length) without a NUL and without call-site statics, so each
// thread caches, per (address, length), the td_site of the trimmed name
// (bindings/common/name_cache: shared with the LIKWID and PAPI compatibility
// layer). A repeated call with the same string is one integer hash of the
// address, a probe and a memcmp of the name against the site's copy; only a
// name new to the thread takes the process-wide lock and hashes its
// characters.
#include <cstddef>
#include <string>

#include "bindings/common/name_cache.h"
#include "td/td.h"

namespace {

inline td_site* SiteFor(const char* name, size_t length, const char* what) {
  td::bindings::NamedSite* site = td::bindings::SiteForFortran(name, length, what, "Fortran");
  return site == nullptr ? nullptr : &site->site;
}

inline bool MarkersOn() { return !__atomic_load_n(&td_markers_off, __ATOMIC_RELAXED); }

}  // namespace

extern "C" {

// Called by the module procedures of td.f90 with the string and its length.
TD_API void td_fortran_region_begin(const char* name, size_t length) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_begin")) td_region_begin(site);
}

TD_API void td_fortran_region_end(const char* name, size_t length) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_end")) td_region_end(site);
}

TD_API void td_fortran_region_begin_p(const char* name, size_t length, long long parameter) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_begin_p")) td_region_begin_p(site, parameter);
}

// td_region_sample from Fortran: the name without its trailing blanks.
TD_API void td_fortran_region_sample(const char* name, size_t length, int every) {
  if (!MarkersOn() || name == nullptr) return;
  while (length > 0 && name[length - 1] == ' ') --length;
  try {
    td_region_sample(std::string(name, length).c_str(), every < 0 ? 0u : static_cast<unsigned>(every));
  } catch (...) {  // out of memory copying the name: the region keeps TD_SAMPLE's interval
  }
}

TD_API void td_fortran_region_end_p(const char* name, size_t length, long long parameter) {
  if (!MarkersOn()) return;
  if (td_site* site = SiteFor(name, length, "td_region_end_p")) td_region_end_p(site, parameter);
}

}  // extern "C"

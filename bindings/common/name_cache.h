// Region names that arrive as strings at every call (Fortran's character
// arguments, the LIKWID and PAPI marker APIs), turned into td sites without
// hashing the characters on a repeated call. Shared by libtd_fortran and
// libtd_compat (each links its own copy; the sites of one are not the
// other's, and td's registry gives both the same region for the same name).
//
// Each thread keeps a small open-addressing table from the string's address
// (and, for Fortran, its length) to the name's site. A repeated call with the
// same string is one integer hash of the address, a probe and a comparison of
// the string with the site's copy of the name (the storage may hold another
// name since the last call); only a name new to the thread takes the
// process-wide lock and hashes its characters. Sites are process-wide, one
// per name, and never freed: the runtime keeps pointers to them.
#ifndef TD_BINDINGS_COMMON_NAME_CACHE_H_
#define TD_BINDINGS_COMMON_NAME_CACHE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "td/td.h"

namespace td::bindings {

struct NamedSite {
  td_site site;                     // site.name: the name, NUL-terminated
  size_t length;                    // strlen(site.name)
  uint32_t index;                   // dense per library, in order of first use: 0, 1, …
  std::atomic<uint32_t> warned{0};  // bits the caller sets for its own said-once warnings
};

// A Fortran string (address, length, no NUL): trailing blanks are not part of
// the name. Null when markers with it are ignored (it holds a NUL byte; said
// once, naming `what`, e.g. "td_region_begin", and `from`, e.g. "Fortran").
NamedSite* SiteForFortran(const char* name, size_t length, const char* what, const char* from);

// A C string. Null for a null pointer (the caller reports it).
NamedSite* SiteForC(const char* name);

// How many sites exist (indexes below this are taken).
uint32_t SiteCount();

// A Fortran hidden length: gfortran passes size_t; older ABIs an int, whose
// upper register half is then undefined.
inline size_t FortranLength(size_t length) { return length > 0x7fffffffu ? (length & 0x7fffffffu) : length; }

// The site of a marker API's Fortran entry point `function` for `name`.
inline NamedSite* FortranSite(const char* name, size_t length, const char* function) {
  return SiteForFortran(name, FortranLength(length), function, "Fortran");
}

}  // namespace td::bindings

#endif  // TD_BINDINGS_COMMON_NAME_CACHE_H_

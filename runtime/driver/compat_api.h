/* Entry points of libtd.so for td's own compatibility library (libtd_compat,
 * bindings/: LIKWID's marker API and PAPI's high-level API, docs/compat.md).
 * Exported because libtd_compat is a library of its own, but not part of td's
 * public interface: not installed, not in td.h, and free to change with any
 * release. C linkage; nothing here throws, and none of it is on the marker
 * path.
 *
 * The region functions read and change only the calling thread's own
 * recording, inside the same handshake with td_finalize() as a marker (see
 * runtime/driver/runtime.h), so they race with nothing. */
#ifndef TD_RUNTIME_DRIVER_COMPAT_API_H_
#define TD_RUNTIME_DRIVER_COMPAT_API_H_

#include <stddef.h>

#include "td/td.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calling thread's figures for one region, over every call path it was
 * entered from. */
typedef struct td_compat_totals {
  long long calls; /* activations that have ended (calls minus those open now) */
  double seconds;  /* their inclusive wall time */
  int nevents;     /* values written to `events` */
} td_compat_totals;

/* Fills *out for the region `site` names (its name; the region need not have
 * been entered through this site) from what the calling thread recorded since
 * the region's last reset: the ended activations' calls and inclusive wall
 * time, and their inclusive raw counts, one per event of the run in the
 * order of the JSON's "events" (the groups' events in group order), at most
 * `capacity` of them. All zero when the thread has recorded nothing for it,
 * td is not recording (disabled, finalized), or (events only) the thread's
 * counters were not measured. */
TD_API void td_compat_region_totals(td_site* site, double* events, int capacity, td_compat_totals* out);

/* Zeroes what the calling thread recorded for the region `site` names and
 * for the regions entered inside it (ThreadState::ResetRegion): the report
 * then shows their calls and counts since the reset. Returns 0, or -1 when
 * memory ran out (nothing changed). Nothing to reset is not an error. */
TD_API int td_compat_region_reset(td_site* site);

/* The value of one of the variables libtd_compat reads (PAPI_EVENTS,
 * LIKWID_EVENTS, TD_EVENTS), read through td's configuration table
 * (runtime/driver/config.cc) from the environment as it is now. Copies it
 * into `buffer` (NUL-terminated, cut to size - 1 bytes; `buffer` may be null
 * when size is 0) and returns its full length: 0 when unset or empty, -1 for
 * a name that is not one of these. */
TD_API long td_compat_setting(const char* name, char* buffer, size_t size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TD_RUNTIME_DRIVER_COMPAT_API_H_ */

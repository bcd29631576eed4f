/* td's stand-in for <likwid.h>, for programs that take LIKWID's marker
 * macros from it (older LIKWID releases): only the marker API is provided. */
#ifndef TD_LIKWID_H_
#define TD_LIKWID_H_
#include "likwid-marker.h"
#endif /* TD_LIKWID_H_ */

/* td's stand-in for LIKWID's marker header (docs/compat.md).
 *
 * A program instrumented for LIKWID's marker API builds unchanged against td
 * alone:
 *
 *     cc -DLIKWID_PERFMON prog.c $(pkg-config --cflags --libs td-likwid)
 *
 * With LIKWID_PERFMON defined, the LIKWID_MARKER_* macros call the
 * likwid_marker* functions, which libtd_compat implements on top of td's
 * regions; without it they expand to nothing, as LIKWID documents. Plain C99.
 */
#ifndef TD_LIKWID_MARKER_H_
#define TD_LIKWID_MARKER_H_

#ifdef __cplusplus
extern "C" {
#endif

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char* regionTag);
int likwid_markerStartRegion(const char* regionTag);
int likwid_markerStopRegion(const char* regionTag);
int likwid_markerResetRegion(const char* regionTag);
void likwid_markerGetRegion(const char* regionTag, int* nevents, double* events, double* time, int* count);

#ifdef __cplusplus
} /* extern "C" */
#endif

#ifdef LIKWID_PERFMON
#define LIKWID_MARKER_INIT likwid_markerInit()
#define LIKWID_MARKER_THREADINIT likwid_markerThreadInit()
#define LIKWID_MARKER_SWITCH likwid_markerNextGroup()
#define LIKWID_MARKER_REGISTER(regionTag) likwid_markerRegisterRegion(regionTag)
#define LIKWID_MARKER_START(regionTag) likwid_markerStartRegion(regionTag)
#define LIKWID_MARKER_STOP(regionTag) likwid_markerStopRegion(regionTag)
#define LIKWID_MARKER_RESET(regionTag) likwid_markerResetRegion(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count) \
  likwid_markerGetRegion(regionTag, nevents, events, time, count)
#define LIKWID_MARKER_CLOSE likwid_markerClose()
#else
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_SWITCH
#define LIKWID_MARKER_REGISTER(regionTag)
#define LIKWID_MARKER_START(regionTag)
#define LIKWID_MARKER_STOP(regionTag)
#define LIKWID_MARKER_RESET(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count)
#define LIKWID_MARKER_CLOSE
#endif

#endif /* TD_LIKWID_MARKER_H_ */

/* A program instrumented for LIKWID's marker API the way LIKWID documents it
 * (likwid-marker.h, -DLIKWID_PERFMON): nested regions, an optional
 * REGISTER, GET, RESET, a region started twice and one stopped without being
 * started. Built against the real liblikwid (tests/compat/CMakeLists.txt) and
 * against td alone (pkg-config td-likwid). Lines starting "get:" depend on
 * who answers GET (LIKWID outside likwid-perfctr answers zeros); every other
 * line, and the exit status 3, must not change under td. */
#include <likwid-marker.h>
#include <stdio.h>

static volatile double sink;

static void work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.5;
  sink = s;
}

int main(void) {
  LIKWID_MARKER_INIT;
  LIKWID_MARKER_THREADINIT;
  LIKWID_MARKER_REGISTER("compute");

  LIKWID_MARKER_START("outer");
  for (int i = 0; i < 4; ++i) {
    LIKWID_MARKER_START("compute");
    work(200000);
    LIKWID_MARKER_STOP("compute");
  }
  LIKWID_MARKER_START("inner");
  LIKWID_MARKER_START("deep");
  work(1000);
  LIKWID_MARKER_STOP("deep");
  LIKWID_MARKER_STOP("inner");
  LIKWID_MARKER_STOP("outer");

  int nevents = 8;
  double events[8];
  double time = -1;
  int count = -1;
  LIKWID_MARKER_GET("compute", &nevents, events, &time, &count);
  printf("get: compute count=%d time_positive=%d nevents=%d\n", count, time > 0, nevents);
  LIKWID_MARKER_RESET("compute");
  nevents = 8;
  LIKWID_MARKER_GET("compute", &nevents, events, &time, &count);
  printf("get: after reset count=%d time=%g\n", count, time);
  LIKWID_MARKER_START("compute");
  work(1000);
  LIKWID_MARKER_STOP("compute");
  nevents = 8;
  LIKWID_MARKER_GET("compute", &nevents, events, &time, &count);
  printf("get: after one more count=%d\n", count);

  /* Misuse: a region started while open (LIKWID warns), one never started. */
  LIKWID_MARKER_START("twice");
  LIKWID_MARKER_START("twice");
  LIKWID_MARKER_STOP("twice");
  printf("get: stop never started -> %d\n", likwid_markerStopRegion("never_started"));

  LIKWID_MARKER_SWITCH;
  LIKWID_MARKER_CLOSE;
  printf("likwid_regions done\n");
  return 3;
}

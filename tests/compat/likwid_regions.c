/* A program instrumented for LIKWID's marker API the way LIKWID documents it
 * (likwid-marker.h, -DLIKWID_PERFMON): nested regions, an optional
 * REGISTER, GET, RESET, a region started twice and one stopped without being
 * started. Built against the real liblikwid (tests/compat/CMakeLists.txt) and
 * against td alone (pkg-config td-likwid). Lines starting "get" depend on
 * who answers GET (LIKWID outside likwid-perfctr answers zeros); every other
 * line, and the exit status 3, must not change under td. Under td, "get:"
 * lines are compared as they are and "getv:" lines with td's JSON. */
#include <likwid-marker.h>
#include <stdio.h>

static volatile double sink;

static void work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.5;
  sink = s;
}

/* GET's answer for the region at PATH, checked against td's JSON by
 * check_get.py (td's order of events, at most CAP of them). */
static void print_values(const char* path, int nevents, const double* events, double time, int count, int cap) {
  printf("getv: path=%s cap=%d count=%d nevents=%d time=%.17g events=", path, cap, count, nevents, time);
  for (int i = 0; i < nevents; ++i) printf("%s%.17g", i ? "," : "", events[i]);
  printf("\n");
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
  LIKWID_MARKER_GET("outer", &nevents, events, &time, &count);
  print_values("outer", nevents, events, time, count, 8);
  nevents = 8;
  LIKWID_MARKER_GET("compute", &nevents, events, &time, &count);
  printf("get: compute count=%d time_positive=%d\n", count, time > 0);
  /* td: RESET forgets compute's four calls, in td's report too. */
  LIKWID_MARKER_RESET("compute");
  nevents = 8;
  for (int i = 0; i < 8; ++i) events[i] = -1;
  LIKWID_MARKER_GET("compute", &nevents, events, &time, &count);
  int zeros = 1;
  for (int i = 0; i < nevents; ++i) zeros = zeros && events[i] == 0;
  printf("get: after reset count=%d time=%g events_zero=%d\n", count, time, zeros);
  LIKWID_MARKER_START("compute");
  work(1000);
  LIKWID_MARKER_STOP("compute");
  nevents = 8;
  LIKWID_MARKER_GET("compute", &nevents, events, &time, &count);
  printf("get: after one more count=%d\n", count);
  print_values("compute", nevents, events, time, count, 8);
  /* A caller's array smaller than td's events: capped. */
  nevents = 1;
  LIKWID_MARKER_GET("compute", &nevents, events, &time, &count);
  print_values("compute", nevents, events, time, count, 1);
  /* RESET while the region is open: the activation counts from the reset. */
  LIKWID_MARKER_START("held");
  work(1000);
  LIKWID_MARKER_RESET("held");
  work(1000);
  LIKWID_MARKER_STOP("held");
  nevents = 8;
  LIKWID_MARKER_GET("held", &nevents, events, &time, &count);
  print_values("held", nevents, events, time, count, 8);
  /* Never started: all zero. */
  nevents = 8;
  LIKWID_MARKER_GET("never_started", &nevents, events, &time, &count);
  printf("get: never started count=%d time=%g\n", count, time);

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

/* The compatibility layer's pairs (docs/compat.md, "Cost") next to td's own
 * macro pair, timed in one process: R repetitions, each timing N pairs of
 * every variant in turn (the order rotated per repetition); prints the median
 * per pair and the ratio to the macro pair. Linked with libtd_compat, as a
 * program built with pkg-config td-likwid is.
 *
 *   td_compat_pairs [N [R]]              timings
 *   td_compat_pairs N 0 VARIANT          only N pairs of VARIANT (0 macro,
 *                                        1 LIKWID, 2 PAPI HL), for callgrind */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <td/td.h>

int likwid_markerStartRegion(const char* tag);
int likwid_markerStopRegion(const char* tag);
int PAPI_hl_region_begin(const char* region);
int PAPI_hl_region_end(const char* region);

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void macro_pairs(long n) {
  for (long i = 0; i < n; ++i) {
    TD_REGION_BEGIN("macro_pair");
    TD_REGION_END("macro_pair");
  }
}

static void likwid_pairs(long n) {
  for (long i = 0; i < n; ++i) {
    likwid_markerStartRegion("likwid_pair");
    likwid_markerStopRegion("likwid_pair");
  }
}

static void papi_pairs(long n) {
  for (long i = 0; i < n; ++i) {
    PAPI_hl_region_begin("papi_pair");
    PAPI_hl_region_end("papi_pair");
  }
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 20000;
  const int r = argc > 2 ? atoi(argv[2]) : 15;
  void (*const variants[3])(long) = {macro_pairs, likwid_pairs, papi_pairs};
  const char* names[3] = {"td macros (TD_REGION_BEGIN/END)", "LIKWID start/stop (compat)",
                          "PAPI_hl begin/end (compat)"};
  if (r == 0) {
    const int v = argc > 3 ? atoi(argv[3]) : 0;
    if (v < 0 || v > 2) return 2;
    variants[v](n);
    return 0;
  }
  if (r < 1 || r > 1000 || n < 1) return 2;
  double* per_pair[3];
  for (int v = 0; v < 3; ++v) {
    per_pair[v] = calloc((size_t)r, sizeof(double));
    if (per_pair[v] == NULL) return 1;
    variants[v](1000);  /* warm: each thread's first marker opens its counters */
  }
  for (int k = 0; k < r; ++k) {
    for (int j = 0; j < 3; ++j) {
      const int v = (j + k) % 3;
      const long long start = now_ns();
      variants[v](n);
      per_pair[v][k] = (double)(now_ns() - start) / (double)n;
    }
  }
  double median[3];
  for (int v = 0; v < 3; ++v) {
    qsort(per_pair[v], (size_t)r, sizeof(double), by_value);
    median[v] = per_pair[v][r / 2];
    printf("%-34s %9.1f ns per pair  %.3fx (range %.3f-%.3fx over repetitions' min/max)\n", names[v], median[v],
           median[v] / median[0], per_pair[v][0] / median[0], per_pair[v][r - 1] / median[0]);
  }
  return 0;
}

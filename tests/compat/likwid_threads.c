/* LIKWID's marker API in OpenMP parallel code, as LIKWID documents it:
 * THREADINIT in a parallel region, then every thread starts and stops the same
 * region in its own loop iterations. Exit status 0. */
#include <likwid-marker.h>
#include <omp.h>
#include <stdio.h>

static double work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.25;
  return s;
}

int main(void) {
  double total = 0;
  LIKWID_MARKER_INIT;
#pragma omp parallel num_threads(2)
  { LIKWID_MARKER_THREADINIT; }
#pragma omp parallel num_threads(2) reduction(+ : total)
  {
    LIKWID_MARKER_START("parallel");
    for (int k = 0; k < 5; ++k) {
      LIKWID_MARKER_START("kernel");
      total += work(100000);
      LIKWID_MARKER_STOP("kernel");
    }
    LIKWID_MARKER_STOP("parallel");
  }
  LIKWID_MARKER_CLOSE;
  printf("likwid_threads done: %d\n", total > 0);
  return 0;
}

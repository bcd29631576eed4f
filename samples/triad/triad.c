/* STREAM-style triad a[i] = b[i] + s * c[i] over arrays far larger than the
 * last-level cache: the classic memory-bandwidth-bound loop.
 *
 *   td_triad [MIB_PER_ARRAY] [REPETITIONS]      (default 256 MiB, 10)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <td/td.h>

#include "common/sample_clock.h"

int main(int argc, char** argv) {
  const long mib = argc > 1 ? atol(argv[1]) : 256;
  const int repetitions = argc > 2 ? atoi(argv[2]) : 10;
  if (mib < 1 || repetitions < 1) {
    fprintf(stderr, "usage: %s [MIB_PER_ARRAY >= 1] [REPETITIONS >= 1]\n", argv[0]);
    return 2;
  }
  const size_t n = (size_t)mib * 1024 * 1024 / sizeof(double);
  double* a = malloc(n * sizeof(double));
  double* b = malloc(n * sizeof(double));
  double* c = malloc(n * sizeof(double));
  if (!a || !b || !c) {
    fprintf(stderr, "out of memory for 3 × %ld MiB\n", mib);
    return 1;
  }
  TD_REGION_BEGIN("init");
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  TD_REGION_END("init");

  const double scalar = 3.0;
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    const double start = now_seconds();
    TD_REGION_BEGIN("triad");
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
    TD_REGION_END("triad");
    const double took = now_seconds() - start;
    if (took < best) best = took;
  }
  const int ok = a[0] == 7.0 && a[n - 1] == 7.0;
  printf("triad: 3 × %ld MiB, best of %d: %.3f s, %.2f GB/s (STREAM count: 2 reads + 1 write)\n",
         mib, repetitions, best, 3.0 * (double)(n * sizeof(double)) / best / 1e9);
  printf("result correct: %s\n", ok ? "yes" : "NO");
  free(a);
  free(b);
  free(c);
  return ok ? 0 : 1;
}

/* The same loop over the same values, unsorted and then sorted: with random
 * data the branch mispredicts about half the time (Bad Speculation), sorted
 * it becomes predictable.
 *
 *   td_branches [MILLIONS_OF_ELEMENTS] [PASSES]     (default 8, 10)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <td/td.h>

#include "common/sample_clock.h"

static int compare_ints(const void* a, const void* b) {
  return (*(const int*)a > *(const int*)b) - (*(const int*)a < *(const int*)b);
}

/* The data-dependent branch is kept as a branch (no cmov) by the volatile sum. */
static long sum_large(const int* v, size_t n, int passes) {
  volatile long sum = 0;
  for (int p = 0; p < passes; ++p) {
    for (size_t i = 0; i < n; ++i) {
      if (v[i] >= 128) sum += v[i];
    }
  }
  return sum;
}

int main(int argc, char** argv) {
  const long millions = argc > 1 ? atol(argv[1]) : 8;
  const int passes = argc > 2 ? atoi(argv[2]) : 10;
  if (millions < 1 || passes < 1) {
    fprintf(stderr, "usage: %s [MILLIONS >= 1] [PASSES >= 1]\n", argv[0]);
    return 2;
  }
  const size_t n = (size_t)millions * 1000000;
  int* v = malloc(n * sizeof(int));
  if (!v) return 1;
  srand(12345);
  for (size_t i = 0; i < n; ++i) v[i] = rand() % 256;

  double t = now_seconds();
  TD_REGION_BEGIN("unsorted");
  const long unsorted = sum_large(v, n, passes);
  TD_REGION_END("unsorted");
  const double unsorted_s = now_seconds() - t;

  qsort(v, n, sizeof(int), compare_ints);
  t = now_seconds();
  TD_REGION_BEGIN("sorted");
  const long sorted = sum_large(v, n, passes);
  TD_REGION_END("sorted");
  const double sorted_s = now_seconds() - t;

  printf("branches: %ld M elements × %d passes: unsorted %.3f s, sorted %.3f s (%.2fx)\n",
         millions, passes, unsorted_s, sorted_s, unsorted_s / sorted_s);
  printf("sums agree: %s (%ld)\n", unsorted == sorted ? "yes" : "NO", sorted);
  free(v);
  return unsorted == sorted ? 0 : 1;
}

/* DECAN's 4K-aliasing example: a[i] = b[i - offset] where a starts exactly
 * 4 KiB after b. A load whose address matches a recent store in its low 12
 * bits waits for that store ("4K aliasing"), so small offsets are slow and
 * the effect vanishes as the offset grows. One region per offset: copy[0],
 * copy[1], … (a parameterised region).
 *
 *   td_aliasing4k [MAX_OFFSET] [REPETITIONS]     (default 32, 20000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <td/td.h>

#include "common/sample_clock.h"

enum { kElements = 2048 };  /* 16 KiB per array: stays in L1, so only aliasing shows */

/* noinline + restrict-free pointers keep the loop a plain load/store pair. */
__attribute__((noinline)) static void copy(double* a, const double* b, int offset, int n) {
  for (int i = offset; i < n; ++i) a[i] = b[i - offset];
}

int main(int argc, char** argv) {
  const int max_offset = argc > 1 ? atoi(argv[1]) : 32;
  const int repetitions = argc > 2 ? atoi(argv[2]) : 20000;
  if (max_offset < 0 || max_offset >= kElements || repetitions < 1) {
    fprintf(stderr, "usage: %s [MAX_OFFSET 0..%d] [REPETITIONS >= 1]\n", argv[0], kElements - 1);
    return 2;
  }
  /* b, then a starting a whole number of 4 KiB pages later (20 KiB), so a[i]
   * and b[i] share their low 12 address bits. */
  double* buffer = aligned_alloc(4096, 4096 + 2 * kElements * sizeof(double));
  if (!buffer) return 1;
  double* b = buffer;
  double* a = buffer + 4096 / sizeof(double) + kElements;
  int ok = 1;
  printf("offset  ns/element\n");
  for (int offset = 0; offset <= max_offset; ++offset) {
    for (int i = 0; i < kElements; ++i) b[i] = (double)i;
    const double start = now_seconds();
    TD_REGION_BEGIN_P("copy", offset);
    for (int r = 0; r < repetitions; ++r) copy(a, b, offset, kElements);
    TD_REGION_END_P("copy", offset);
    const double took = now_seconds() - start;
    ok &= a[kElements - 1] == (double)(kElements - 1 - offset);
    printf("%6d  %.3f\n", offset, 1e9 * took / ((double)repetitions * (kElements - offset)));
  }
  printf("copies correct: %s\n", ok ? "yes" : "NO");
  free(buffer);
  return ok ? 0 : 1;
}

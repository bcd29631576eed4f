/* Indirect loads data[index[i]] over a table far larger than the caches,
 * each followed by a little arithmetic on the loaded value, without and with
 * software prefetching a fixed distance ahead (the prefetch case study,
 * Table 6 of the Top-Down paper).
 *
 *   td_prefetch [MIB_OF_DATA] [PREFETCH_DISTANCE]      (default 256, 16)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <td/td.h>

#include "common/sample_clock.h"

static uint64_t next_random(uint64_t* state) {  /* xorshift64: reproducible indices */
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* The work done on each looked-up element, as real code does some. Its
 * dependent multiplies fill the out-of-order window, so the core alone keeps
 * only a few misses in flight: the latency shows, and prefetching pays. With
 * a bare `sum += data[index[i]]` a wide core overlaps most misses by itself. */
static uint64_t score(uint64_t x) {
  for (int round = 0; round < 4; ++round) {
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
  }
  return x;
}

int main(int argc, char** argv) {
  const long mib = argc > 1 ? atol(argv[1]) : 256;
  const long distance = argc > 2 ? atol(argv[2]) : 16;
  if (mib < 1 || distance < 1) {
    fprintf(stderr, "usage: %s [MIB_OF_DATA >= 1] [PREFETCH_DISTANCE >= 1]\n", argv[0]);
    return 2;
  }
  const size_t n = (size_t)mib * 1024 * 1024 / sizeof(long);
  const size_t lookups = n / 8;
  long* data = malloc(n * sizeof(long));
  size_t* index = malloc((lookups + (size_t)distance) * sizeof(size_t));
  if (!data || !index) return 1;
  uint64_t state = 88172645463325252ull;
  for (size_t i = 0; i < n; ++i) data[i] = (long)(i & 1023);
  for (size_t i = 0; i < lookups + (size_t)distance; ++i) index[i] = next_random(&state) % n;

  double t = now_seconds();
  uint64_t plain = 0;
  TD_REGION_BEGIN("no_prefetch");
  for (size_t i = 0; i < lookups; ++i) plain += score((uint64_t)data[index[i]]);
  TD_REGION_END("no_prefetch");
  const double plain_s = now_seconds() - t;

  t = now_seconds();
  uint64_t prefetched = 0;
  TD_REGION_BEGIN("software_prefetch");
  for (size_t i = 0; i < lookups; ++i) {
    __builtin_prefetch(&data[index[i + (size_t)distance]], 0, 0);
    prefetched += score((uint64_t)data[index[i]]);
  }
  TD_REGION_END("software_prefetch");
  const double prefetched_s = now_seconds() - t;

  printf("prefetch: %zu random lookups in %ld MiB: plain %.3f s, prefetch distance %ld %.3f s (%.2fx)\n",
         lookups, mib, plain_s, distance, prefetched_s, plain_s / prefetched_s);
  printf("sums agree: %s (%llu)\n", plain == prefetched ? "yes" : "NO", (unsigned long long)plain);
  free(data);
  free(index);
  return plain == prefetched ? 0 : 1;
}

/* The false-sharing case study of the Top-Down paper (Table 5): threads
 * increment their own counters, first packed next to each other on one
 * cache line, then padded to a line each. The increments are atomic
 * read-modify-writes (relaxed), as shared statistics counters usually are:
 * each one needs the line in this core's cache. (Plain increments can hide
 * the effect on cores that forward stores to loads and drain their store
 * buffer in bursts.)
 *
 *   td_false_sharing [THREADS] [MILLIONS_OF_INCREMENTS_PER_THREAD]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <td/td.h>

#include "common/sample_clock.h"

enum { kMaxThreads = 64, kLine = 64 };

struct packed { long count; };                      /* 8 B: several per line */
struct padded { long count; char pad[kLine - sizeof(long)]; };

static struct packed g_packed[kMaxThreads];
static struct padded g_padded[kMaxThreads] __attribute__((aligned(kLine)));
static long g_iterations;

static void increment(long* counter, long times) {
  for (long i = 0; i < times; ++i) __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static void* count_packed(void* arg) {
  long* counter = &g_packed[(long)arg].count;
  TD_REGION_BEGIN("adjacent_counters");
  increment(counter, g_iterations);
  TD_REGION_END("adjacent_counters");
  return NULL;
}

static void* count_padded(void* arg) {
  long* counter = &g_padded[(long)arg].count;
  TD_REGION_BEGIN("padded_counters");
  increment(counter, g_iterations);
  TD_REGION_END("padded_counters");
  return NULL;
}

static double run(int threads, void* (*body)(void*)) {
  pthread_t ids[kMaxThreads];
  const double start = now_seconds();
  for (long t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, body, (void*)t);
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  return now_seconds() - start;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  const long millions = argc > 2 ? atol(argv[2]) : 50;
  if (threads < 1 || threads > kMaxThreads || millions < 1) {
    fprintf(stderr, "usage: %s [THREADS 1..%d] [MILLIONS >= 1]\n", argv[0], kMaxThreads);
    return 2;
  }
  g_iterations = millions * 1000000L;

  double single = now_seconds();
  TD_REGION_BEGIN("single_thread");
  increment(&g_padded[0].count, g_iterations);
  TD_REGION_END("single_thread");
  single = now_seconds() - single;
  g_padded[0].count = 0;

  const double adjacent = run(threads, count_packed);
  const double padded = run(threads, count_padded);

  int ok = 1;
  for (int t = 0; t < threads; ++t) {
    ok &= g_packed[t].count == g_iterations && g_padded[t].count == g_iterations;
  }
  printf("false_sharing: %d threads × %ld M increments\n", threads, millions);
  printf("  single thread      %.3f s\n", single);
  printf("  adjacent counters  %.3f s\n", adjacent);
  printf("  padded counters    %.3f s  (%.2fx faster than adjacent)\n", padded, adjacent / padded);
  printf("counts correct: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}

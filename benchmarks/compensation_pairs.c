/* td's own cost taken out of a region split by many pairs
 * (docs/performance.md, "td's cost inside what it reports"): PAIRS stretches
 * of arithmetic (ITERATIONS steps of one dependent chain each) run once
 * without markers, timed with the thread's CPU clock and printed as
 * `work_cpu_ns N`, then the same stretches inside a region "work", each
 * followed by an empty pair "tick". The compensated task-clock of "work"
 * should equal the printed time; compensation_check.sh compares them.
 * Usage: td_compensation_pairs PAIRS ITERATIONS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "td/td.h"

static volatile double sink;

static void Stretch(int i, int iterations) {
  double x = 1.0 + i;
  for (int k = 0; k < iterations; ++k) x = x * 1.0000001 + 0.5 / (x + k);
  sink = sink + x;
}

static long long ThreadCpuNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s PAIRS ITERATIONS\n", argv[0]);
    return 2;
  }
  const int pairs = atoi(argv[1]);
  const int iterations = atoi(argv[2]);
  for (int i = 0; i < pairs; ++i) Stretch(i, iterations); /* warm up */
  const long long start = ThreadCpuNs();
  for (int i = 0; i < pairs; ++i) Stretch(i, iterations);
  printf("work_cpu_ns %lld\n", ThreadCpuNs() - start);
  TD_REGION_BEGIN("work");
  for (int i = 0; i < pairs; ++i) {
    Stretch(i, iterations);
    TD_REGION_BEGIN("tick");
    TD_REGION_END("tick");
  }
  TD_REGION_END("work");
  return 0;
}

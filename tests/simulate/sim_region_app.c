/* One region around one call of a function that is not inlined, so that the
 * region's simulated instructions can be set against callgrind's count for
 * that function (simulate_test.cc).
 *
 *   td_sim_region_app [ITERATIONS]     (default 1000000)
 */
#include <stdio.h>
#include <stdlib.h>

#include <td/td.h>

/* Data-dependent branches and a little memory traffic, so that every counter
 * of tdsim moves. */
__attribute__((noinline)) long simulated_work(long iterations) {
  static unsigned char table[4096];
  long sum = 0;
  unsigned state = 12345;
  for (long i = 0; i < iterations; ++i) {
    state = state * 1103515245u + 12345u;
    unsigned char* slot = &table[(state >> 8) & 4095];
    if ((state >> 16) & 1) {
      sum += *slot;
    } else {
      *slot = (unsigned char)i;
    }
  }
  return sum;
}

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? atol(argv[1]) : 1000000;
  TD_REGION_BEGIN("work");
  const long sum = simulated_work(iterations);
  TD_REGION_END("work");
  printf("sum %ld\n", sum);
  return 0;
}

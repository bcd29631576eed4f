/* The C side of the bindings' pair benchmarks (fortran_pairs.f90,
 * python_pairs.py): N pairs of the C macros in a loop, and a clock, so that a
 * binding's pair and the C pair are timed in the same process, interleaved. */
#include <time.h>

#include <td/td.h>

#if defined(__GNUC__)
#define TD_BENCH_API __attribute__((visibility("default")))
#else
#define TD_BENCH_API
#endif

TD_BENCH_API void td_bench_c_pairs(long long n) {
  for (long long i = 0; i < n; ++i) {
    TD_REGION_BEGIN("c_pair");
    TD_REGION_END("c_pair");
  }
}

TD_BENCH_API long long td_bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

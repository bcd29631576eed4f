/* CPU work of a given length for the MPI test programs: a rank that spins
 * for `ms` milliseconds of its own CPU time, whatever else the machine runs. */
#ifndef TD_TESTS_MPI_SPIN_H_
#define TD_TESTS_MPI_SPIN_H_

#include <time.h>

static double CpuMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static volatile double spin_sink;

static void Spin(double ms) {
  const double end = CpuMs() + ms;
  double x = 1;
  while (CpuMs() < end) {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  }
  spin_sink = x;
}

#endif /* TD_TESTS_MPI_SPIN_H_ */

/* Wall-clock seconds for the samples' own timing printouts. */
#ifndef TD_SAMPLES_COMMON_SAMPLE_CLOCK_H_
#define TD_SAMPLES_COMMON_SAMPLE_CLOCK_H_

#include <time.h>

static inline double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif /* TD_SAMPLES_COMMON_SAMPLE_CLOCK_H_ */

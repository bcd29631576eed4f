// A region's per-call times over its threads (docs/usage.md#per-call-times):
// min, median, p95 and max per call from the parts' histograms
// (runtime/regions/call_times.h): each is the mean of the calls within a
// quarter octave of it, so exact where calls cluster and never off by more
// than that bucket's width; td's own cost taken out as from the totals.
#ifndef TD_RUNTIME_RECORDED_CALL_TIME_SUMMARY_H_
#define TD_RUNTIME_RECORDED_CALL_TIME_SUMMARY_H_

#include <cstdint>
#include <optional>

#include "runtime/recorded/run_data.h"

namespace td {

struct CallTimeSummary {
  uint64_t calls = 0;  // the read calls the figures are of, over all threads
  double mean_ns = 0;  // exact: the read calls' total over their number
  double min_ns = 0;
  double median_ns = 0;
  double p95_ns = 0;
  double max_ns = 0;
  // The calls that took at least twice the median.
  uint64_t calls_over_twice_median = 0;
};

// None where the region has no read call, or a part with more than one read
// call has no histogram (a file from before them, or a bucket that passed
// 2^32 calls): a distribution of some threads only would mislead.
std::optional<CallTimeSummary> RegionCallTimes(const RunData& run, const Region& region);

// Whether the distribution says what the total does not: enough calls, and
// a tail (p95 at least 1.5 × the median) or an outlier (max at least 4 ×).
bool CallTimesWorthShowing(const CallTimeSummary& summary);

}  // namespace td

#endif  // TD_RUNTIME_RECORDED_CALL_TIME_SUMMARY_H_

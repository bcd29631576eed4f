// Conditions that spoil a measurement without making it fail: a region whose
// threads ran one at a time (so contention or false sharing never happened),
// a thread off its CPU for much of a region timed by wall clock, two runs
// whose wall and CPU speedups disagree. Every output names them, so a lesson
// taught on a busy machine says why it did not show.
#ifndef TD_RUNTIME_ANALYSIS_MEASUREMENT_CONDITIONS_H_
#define TD_RUNTIME_ANALYSIS_MEASUREMENT_CONDITIONS_H_

#include <optional>
#include <string>
#include <vector>

#include "runtime/recorded/run_data.h"

namespace td {

struct ConditionWarning {
  std::string region;  // the region's path
  std::string id;      // "threads_took_turns", "off_cpu"
  std::string text;    // one line, the numbers included
};

// Regions of at least 1 ms of wall time, from their task-clock: on several
// threads, busy less than 1.2 CPUs on average; on one thread, on a CPU less
// than 85 % of the wall time. Nothing where task-clock was not recorded.
std::vector<ConditionWarning> CheckMeasurementConditions(const RunData& data);

// Two columns of a comparison: their wall-time and CPU-time (task-clock)
// speedups over the first; a line when they differ by more than 25 %.
std::optional<std::string> SpeedupDisagreement(const std::string& label, double wall_speedup,
                                               double cpu_speedup);

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_MEASUREMENT_CONDITIONS_H_

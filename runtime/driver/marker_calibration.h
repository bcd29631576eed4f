// The counters a thread opens, and td's own cost per marker pair measured
// with them at exit (docs/performance.md, "td's cost inside what it reports").
#ifndef TD_RUNTIME_DRIVER_MARKER_CALIBRATION_H_
#define TD_RUNTIME_DRIVER_MARKER_CALIBRATION_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/counters/backend.h"
#include "runtime/recorded/run_data.h"

namespace td {

// The calling thread's counter groups (none when the layout has no events),
// or why they could not be opened.
struct ThreadCountersOrError {
  std::unique_ptr<ThreadCounters> counters;
  std::string error;
};
ThreadCountersOrError OpenCountersOfThisThread(CounterBackend& backend);

// Runs marker pairs through a scratch thread state on this thread's counters
// and returns what one pair costs inside and around a region: the median of
// several rounds (CombineCalibrationRounds). Nullopt, with one line said,
// when even that is beyond what a pair can cost.
std::optional<MarkerCost> MeasureMarkerCost(CounterBackend& backend);

// A pair of markers never costs more than this much wall time (a read() of a
// counter group is a few µs even in a VM); a measurement above it was taken
// while the thread waited (preempted, stopped), and correcting with it would
// wipe out the regions it is taken from.
inline constexpr double kMaxPairWallNs = 50'000;

// One round of a calibration, per pair: what an empty region reports for
// itself per call (inside), and what one pair adds to the region around it
// (pair: inside, the pair's own reads and what they cost the code beside
// them), measured as the difference between a stretch of work split by
// pairs and the same work without them. Per event in the run's order;
// empty where the counters were not measured.
struct PerCall {
  double wall_ns = 0;
  std::vector<double> events;
};
struct CalibrationRound {
  uint64_t pairs = 0;
  PerCall inside;
  PerCall pair;
};

// The rounds of one calibration, each measured alone. A preemption or an
// interrupt adds to whichever part of a round it hits: to the split work
// (pair too large), to the work alone (pair too small, even below 0) or to
// the empty regions (inside too large). So each figure is the median over
// the rounds (the lower one of an even count), and around is the median
// pair less the median inside, never below 0. Nullopt when no round was
// measured or the median pair is over kMaxPairWallNs; *why then says so.
std::optional<MarkerCost> CombineCalibrationRounds(const std::vector<CalibrationRound>& rounds, std::string* why);

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_MARKER_CALIBRATION_H_

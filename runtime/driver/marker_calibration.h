// The counters a thread opens, and td's own cost per marker pair measured
// with them at exit (docs/performance.md, "td's cost inside what it reports").
#ifndef TD_RUNTIME_DRIVER_MARKER_CALIBRATION_H_
#define TD_RUNTIME_DRIVER_MARKER_CALIBRATION_H_

#include <memory>
#include <string>

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
// and returns what one pair costs inside and around a region.
MarkerCost MeasureMarkerCost(CounterBackend& backend);

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_MARKER_CALIBRATION_H_

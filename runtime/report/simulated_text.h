// What the text report adds for a run of TD_BACKEND=simulate (tdsim's
// counts, docs/simulate.md): the rates that follow from the simulated
// counts, always labelled simulated.
#ifndef TD_RUNTIME_REPORT_SIMULATED_TEXT_H_
#define TD_RUNTIME_REPORT_SIMULATED_TEXT_H_

#include <string>

#include "runtime/recorded/run_data.h"

namespace td {

// True when group `g` holds tdsim's counts.
bool IsSimulatedGroup(const RunData& data, size_t g);

// One line for `region`: simulated instructions per call, branch-miss rate,
// L1D and LL misses per 1000 instructions; each left out where its counts
// are missing; "" when the run has no simulated instructions.
std::string SimulatedRatesLine(const RunData& data, const Region& region);

// "sim.instructions 118,034,164, sim.loads …" for `region` (compensated as
// the run is), prefixed "simulated by Valgrind tdsim: "; "" when the run
// has no simulated counts. For renderings without a counters section (HTML).
std::string SimulatedCountsText(const RunData& data, const Region& region);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_SIMULATED_TEXT_H_

// TD_BACKEND=simulate: counts from td's Valgrind tool, tdsim (tools/tdsim,
// docs/simulate.md), instead of a PMU. The program runs under
// `valgrind --tool=tdsim` (td run --simulate starts it so); at every marker
// a client request copies the thread's simulated counters, exact and the same
// on every run, into one group laid out as a PMU group's read:
// [nr, elapsed, elapsed, values…] (nothing is multiplexed: enabled = running).
#ifndef TD_RUNTIME_COUNTERS_SIMULATED_BACKEND_H_
#define TD_RUNTIME_COUNTERS_SIMULATED_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/counters/backend.h"

namespace td {

// The events, in the tool's order: "sim.instructions", "sim.loads", …. Their
// names are no formula's, so they never feed a Top-Down node.
std::vector<EventInfo> SimulatedEvents();

// True for one of SimulatedEvents()' names.
bool IsSimulatedEvent(const std::string& name);

// The backend, or why not (not under Valgrind, under another tool, td built
// without valgrind.h or not for x86-64). `availability` keeps why hardware
// counters are not there; its `measured` line then names the models.
absl::StatusOr<std::unique_ptr<CounterBackend>> MakeSimulatedBackend(Availability availability);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_SIMULATED_BACKEND_H_

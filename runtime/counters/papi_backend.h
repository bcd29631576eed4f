// TD_BACKEND=papi: counters through PAPI's per-thread event sets, for sites
// that standardise on PAPI. Same snapshot layout as perf_event (one group:
// [nr, elapsed, elapsed, values…]; PAPI does not multiplex unless asked, so
// running time equals enabled time).
#ifndef TD_RUNTIME_COUNTERS_PAPI_BACKEND_H_
#define TD_RUNTIME_COUNTERS_PAPI_BACKEND_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/counters/backend.h"

namespace td {

// Why PAPI cannot count CPU events here ("" when it can): initialises PAPI
// and asks its perf_event component.
std::string PapiUnusableReason();

// One line per PAPI component: "perf_event: enabled", "rapl: disabled (why)";
// empty when PAPI does not initialise (PapiUnusableReason says why).
std::vector<std::string> PapiComponentLines();

// What a PAPI event name is to td. PAPI's names of the kernel's software
// events ("perf::TASK-CLOCK", "perf::PAGE-FAULTS") are those events: td's name
// ("task-clock"), their unit, not hardware — so reports show them as they do
// the perf_event backend's. Anything else (presets, PMU events) is hardware.
EventInfo PapiEventInfo(const std::string& papi_name);

// What a run that counts `events` through PAPI measured: hardware counters
// are available only when one of the events is hardware; otherwise
// `probed` (the perf_event probe) keeps saying why not.
Availability PapiAvailability(const std::vector<EventInfo>& events, Availability probed);

// `events` are PAPI names (presets such as PAPI_TOT_CYC, or native names);
// empty means PAPI_TOT_CYC and PAPI_TOT_INS. Counts them once on the calling
// thread before returning, so that a PAPI that cannot count here (no PMU, an
// unknown event) fails once, with the reason, instead of on every thread.
absl::StatusOr<std::unique_ptr<CounterBackend>> MakePapiBackend(std::vector<std::string> events,
                                                                Availability availability);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_PAPI_BACKEND_H_

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

// `events` are PAPI names (presets such as PAPI_TOT_CYC, or native names);
// empty means PAPI_TOT_CYC and PAPI_TOT_INS. Fails with the reason when PAPI
// is unusable or rejects an event.
absl::StatusOr<std::unique_ptr<CounterBackend>> MakePapiBackend(std::vector<std::string> events,
                                                                Availability availability);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_PAPI_BACKEND_H_

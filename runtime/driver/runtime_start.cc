// Choosing what a run counts at start: the definitions settings, the PAPI
// and simulated backends, and the counter groups of this machine.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/diagnostics.h"
#include "runtime/counters/event_selection.h"
#include "runtime/counters/event_spec.h"
#include "runtime/counters/papi_backend.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/counters/simulated_backend.h"
#include "runtime/driver/runtime.h"
#include "runtime/uarch/definitions.h"

namespace td {
namespace {

// TD_BACKEND named a backend that cannot count here: one line, and the run
// falls back to what perf_event measures.
void ReportBackendRefused(const char* backend, const absl::Status& why, const Availability& availability) {
  ReportProblem(Severity::kError, absl::StrFormat("TD_BACKEND=%s: %s; %s", backend, why.message(),
                                                  availability.software_counters
                                                      ? "using the perf_event backend instead"
                                                      : "measuring wall time and calls only"));
}

}  // namespace

void Runtime::CheckDefinitionSettings() {
  if (config_.metrics_dir.empty() && config_.uarch.empty()) return;
  const absl::StatusOr<DefinitionLibrary> library = DefinitionLibrary::Load(config_.metrics_dir);
  if (!library.ok()) {
    ReportProblem(Severity::kError, absl::StrFormat("%s; Top-Down analysis needs definitions, so this run's hardware "
                                             "counts (if any) will not be analysed",
                                             Printable(std::string(library.status().message()))));
    return;
  }
  if (config_.uarch.empty()) return;
  const std::vector<std::string> known = library->Uarchs();
  if (std::find(known.begin(), known.end(), config_.uarch) == known.end()) {
    ReportProblem(Severity::kError,
                  absl::StrFormat("TD_UARCH=%s is not a microarchitecture td has definitions for (`td uarchs` lists "
                                  "them: %s); ignored, the CPU is identified instead",
                                  Printable(config_.uarch), absl::StrJoin(known, ", ")));
    config_.uarch.clear();
  }
}

bool Runtime::StartPapi(const Availability& availability) {
  std::vector<std::string> names;
  if (auto parsed = ParseEventList(config_.events); parsed.ok()) {
    for (const EventListGroup& g : *parsed) names.insert(names.end(), g.events.begin(), g.events.end());
  }
  // MakePapiBackend counts once on this thread: where PAPI cannot count, this
  // is the one line that says why, and the run measures what perf_event can.
  auto papi = MakePapiBackend(names, availability);
  if (!papi.ok()) {
    ReportBackendRefused("papi", papi.status(), availability);
    return false;
  }
  backend_ = *std::move(papi);
  return true;
}

bool Runtime::StartSimulated(Availability* availability) {
  auto simulated = MakeSimulatedBackend(*availability);
  if (!simulated.ok()) {
    ReportBackendRefused("simulate", simulated.status(), *availability);
    return false;
  }
  backend_ = *std::move(simulated);
  *availability = backend_->availability();
  return true;
}

// The groups of TD_EVENTS, or by default the Top-Down events of this CPU
// when it has a PMU; each planned to fit the counters.
void Runtime::AddSelectedGroups(Availability* availability, CounterLayout* layout) {
  EventSelection selection =
      SelectForThisMachine(config_.events, config_.level, *availability, config_.pass, config_.passes,
                           config_.memory, config_.uarch, config_.metrics_dir);
  if (!selection.memory.empty()) availability->memory = selection.memory;
  availability->events_not_opened = selection.not_opened;
  for (auto& e : selection.errors) ReportProblem(Severity::kError, std::move(e));
  for (auto& n : selection.notices) ReportProblem(Severity::kNotice, std::move(n));
  size_t hardware_groups = 0;
  for (auto& group : selection.groups) {
    hardware_groups += std::any_of(group.begin(), group.end(), [](const EventInfo& e) { return e.hardware; });
    layout->AddGroup(std::move(group));
  }
  // With hardware groups, a software group read at every marker would be the
  // only syscall left where they are read with rdpmc: task-clock comes from
  // a hardware group's time enabled instead, unless asked otherwise.
  if (!config_.all_software_events && !selection.software_group_named) {
    size_t source = 0;
    CounterLayout derived = TaskClockFromHardwareGroup(*layout, &source);
    if (source != 0) {
      *layout = std::move(derived);
      availability->measured =
          "wall time, calls, task-clock as the first hardware group's time enabled (no software group read at "
          "markers; TD_SOFTWARE_EVENTS=all counts page faults, context switches and CPU migrations too)";
    }
  }
  if (layout->groups.size() > 1) {
    availability->measured += absl::StrFormat(
        "; %d more group%s (%d hardware%s)", layout->groups.size() - 1, layout->groups.size() == 2 ? "" : "s",
        hardware_groups,
        config_.passes > 1 ? absl::StrFormat(", pass %d of %d", config_.pass, config_.passes) : "");
  }
}

}  // namespace td

#include "runtime/driver/marker_calibration.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "runtime/base/diagnostics.h"
#include "runtime/recorded/merge_threads.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/marker_forms.h"

namespace td {

ThreadCountersOrError OpenCountersOfThisThread(CounterBackend& backend) {
  ThreadCountersOrError out;
  if (backend.layout().events.empty()) return out;
  auto opened = backend.OpenForCurrentThread();
  if (!opened.ok()) {
    out.error = std::string(opened.status().message());
    return out;
  }
  out.counters = *std::move(opened);
  // Every thread opens the same groups: say it once, not per thread.
  static std::atomic<bool> said{false};
  if (const std::string unopened = out.counters->Unopened(); !unopened.empty() && !said.exchange(true)) {
    ReportProblem(Severity::kWarning, "counters: " + unopened + "; those groups read as not measured");
  }
  return out;
}

// The markers as the C entry points run them: a call each, the thread
// state's fast path inline (or, for a thread that reads its pages in user
// space, the forms made for its group, which the C markers reach through
// the gate), the handshake flag lowered at the end. Inlined into the loop
// below, the same pairs measured about a quarter less task-clock inside a
// region than the program's own markers report (callgrind_pairs and the
// marker_cost scenario, 2-vCPU VM), and the compensation fell short.
__attribute__((noinline)) void CalibrationBegin(ThreadState* thread, uint32_t region) {
  if (thread->user_read_path()) return thread->BeginUserReadAndLeave(region, nullptr);
  thread->BeginAndLeave(region, nullptr);
}
__attribute__((noinline)) void CalibrationEnd(ThreadState* thread, uint32_t region) {
  if (thread->user_read_path()) return thread->EndUserReadAndLeave(region, nullptr);
  thread->EndAndLeave(region, nullptr);
}

// td's own cost per marker pair (docs/performance.md, "td's cost inside what
// it reports"), measured the way markers run: a scratch thread state with a
// registry of its own and this thread's counters opened once more runs pairs
// of "outer" around one "inner" pair, after as many warm-up pairs. What
// "inner" reports per call is the cost inside a region; what "outer" reports
// beyond its own inside cost and the inner pair's is the cost around it.
MarkerCost MeasureMarkerCost(CounterBackend& backend) {
  constexpr int kPairs = 500;
  RegionRegistry registry;
  auto [counters, error] = OpenCountersOfThisThread(backend);
  ThreadState scratch(0, 0, std::move(counters), backend.layout().words, error, &registry);
  const uint32_t warm = registry.IdForName("warm-up");
  const uint32_t outer = registry.IdForName("outer");
  const uint32_t inner = registry.IdForName("inner");
  for (const uint32_t around : {warm, outer}) {
    for (int i = 0; i < kPairs; ++i) {
      CalibrationBegin(&scratch, around);
      CalibrationBegin(&scratch, inner);
      CalibrationEnd(&scratch, inner);
      CalibrationEnd(&scratch, around);
    }
  }
  RunData measured;
  measured.layout = backend.layout();
  MergeThreads({scratch.Record()}, registry.AllNames(), &measured, registry.AllParameters());
  MarkerCost cost;
  cost.pairs = kPairs;
  const RegionOnThread* outer_part = nullptr;
  const RegionOnThread* inner_part = nullptr;
  for (const Region& region : measured.regions) {
    if (region.path == "outer") outer_part = &region.threads.front();
    if (region.path == "outer/inner") inner_part = &region.threads.front();
  }
  if (outer_part == nullptr || inner_part == nullptr) return cost;
  const auto per_call = [](double total, uint64_t calls) { return calls == 0 ? 0.0 : total / static_cast<double>(calls); };
  const auto around_of = [](double outer_per_call, double inside) { return std::max(0.0, outer_per_call - 2 * inside); };
  cost.inside_wall_ns = per_call(static_cast<double>(inner_part->wall_inclusive_ns), inner_part->calls);
  cost.around_wall_ns =
      around_of(per_call(static_cast<double>(outer_part->wall_inclusive_ns), outer_part->calls), cost.inside_wall_ns);
  if (inner_part->events.size() == measured.layout.events.size() &&
      outer_part->events.size() == measured.layout.events.size()) {
    for (size_t e = 0; e < measured.layout.events.size(); ++e) {
      const double inside = per_call(static_cast<double>(inner_part->events[e].inclusive), inner_part->calls);
      cost.inside.push_back(inside);
      cost.around.push_back(
          around_of(per_call(static_cast<double>(outer_part->events[e].inclusive), outer_part->calls), inside));
    }
  }
  return cost;
}

}  // namespace td

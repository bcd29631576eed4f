#include "runtime/driver/marker_calibration.h"

#include <algorithm>
#include <atomic>
#include <utility>

#include "absl/strings/str_format.h"

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

namespace {

// One round: a scratch thread state with a registry of its own and this
// thread's counters opened once more runs pairs of "outer" around one
// "inner" pair, after a quarter as many warm-up pairs. What "inner" reports per call
// is the cost inside a region; what "outer" reports per call holds that, the
// inner pair's whole cost and the cost around it.
CalibrationRound MeasureRound(CounterBackend& backend, int pairs) {
  RegionRegistry registry;
  auto [counters, error] = OpenCountersOfThisThread(backend);
  ThreadState scratch(0, 0, std::move(counters), backend.layout().words, error, &registry);
  const uint32_t warm = registry.IdForName("warm-up");
  const uint32_t outer = registry.IdForName("outer");
  const uint32_t inner = registry.IdForName("inner");
  for (const uint32_t around : {warm, outer}) {
    for (int i = 0; i < (around == warm ? pairs / 4 : pairs); ++i) {
      CalibrationBegin(&scratch, around);
      CalibrationBegin(&scratch, inner);
      CalibrationEnd(&scratch, inner);
      CalibrationEnd(&scratch, around);
    }
  }
  RunData measured;
  measured.layout = backend.layout();
  MergeThreads({scratch.Record()}, registry.AllNames(), &measured, registry.AllParameters());
  CalibrationRound round;
  const RegionOnThread* outer_part = nullptr;
  const RegionOnThread* inner_part = nullptr;
  for (const Region& region : measured.regions) {
    if (region.path == "outer") outer_part = &region.threads.front();
    if (region.path == "outer/inner") inner_part = &region.threads.front();
  }
  if (outer_part == nullptr || inner_part == nullptr || inner_part->calls == 0 || outer_part->calls == 0) return round;
  round.pairs = static_cast<uint64_t>(pairs);
  const auto inner_calls = static_cast<double>(inner_part->calls);
  const auto outer_calls = static_cast<double>(outer_part->calls);
  round.inside.wall_ns = static_cast<double>(inner_part->wall_inclusive_ns) / inner_calls;
  round.outer.wall_ns = static_cast<double>(outer_part->wall_inclusive_ns) / outer_calls;
  const size_t events = measured.layout.events.size();
  if (inner_part->events.size() == events && outer_part->events.size() == events) {
    for (size_t e = 0; e < events; ++e) {
      round.inside.events.push_back(static_cast<double>(inner_part->events[e].inclusive) / inner_calls);
      round.outer.events.push_back(static_cast<double>(outer_part->events[e].inclusive) / outer_calls);
    }
  }
  return round;
}

}  // namespace

std::optional<MarkerCost> CombineCalibrationRounds(const std::vector<CalibrationRound>& rounds, std::string* why) {
  bool any = false;
  uint64_t pairs = 0;
  PerCall inside;  // the least of each figure
  PerCall outer;
  const auto keep_least = [](const PerCall& round, PerCall* least) {
    least->wall_ns = std::min(least->wall_ns, round.wall_ns);
    if (round.events.size() != least->events.size()) return;
    for (size_t e = 0; e < round.events.size(); ++e) least->events[e] = std::min(least->events[e], round.events[e]);
  };
  for (const CalibrationRound& round : rounds) {
    if (round.pairs == 0) continue;  // not measured
    pairs += round.pairs;
    if (!any) {
      any = true;
      inside = round.inside;
      outer = round.outer;
      continue;
    }
    keep_least(round.inside, &inside);
    keep_least(round.outer, &outer);
  }
  if (!any) {
    *why = "no calibration round was measured";
    return std::nullopt;
  }
  const auto around_of = [](double outer_cost, double inside_cost) { return std::max(0.0, outer_cost - 2 * inside_cost); };
  MarkerCost cost;
  cost.pairs = pairs;
  cost.inside_wall_ns = inside.wall_ns;
  cost.around_wall_ns = around_of(outer.wall_ns, inside.wall_ns);
  cost.inside = inside.events;
  for (size_t e = 0; e < inside.events.size() && e < outer.events.size(); ++e) {
    cost.around.push_back(around_of(outer.events[e], inside.events[e]));
  }
  if (cost.around.size() != cost.inside.size()) {  // rounds that disagree on what was counted
    cost.inside.clear();
    cost.around.clear();
  }
  if (const double pair = cost.inside_wall_ns + cost.around_wall_ns; pair > kMaxPairWallNs) {
    *why = absl::StrFormat("td's own cost per marker pair measured %.1f µs at best over %d rounds, beyond the %.0f µs "
                           "a pair can cost (the thread was kept from running): values are reported as measured, "
                           "without it taken out",
                           pair / 1e3, rounds.size(), kMaxPairWallNs / 1e3);
    return std::nullopt;
  }
  return cost;
}

// td's own cost per marker pair (docs/performance.md, "td's cost inside what
// it reports"), measured the way markers run, in rounds.
std::optional<MarkerCost> MeasureMarkerCost(CounterBackend& backend) {
  constexpr int kRounds = 5;
  constexpr int kPairsPerRound = 200;
  std::vector<CalibrationRound> rounds;
  for (int r = 0; r < kRounds; ++r) rounds.push_back(MeasureRound(backend, kPairsPerRound));
  std::string why;
  std::optional<MarkerCost> cost = CombineCalibrationRounds(rounds, &why);
  if (!cost && !why.empty()) ReportProblem(Severity::kWarning, why);
  return cost;
}

}  // namespace td

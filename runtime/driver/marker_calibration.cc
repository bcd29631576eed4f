#include "runtime/driver/marker_calibration.h"

#include <algorithm>
#include <atomic>
#include <string_view>
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

// About a microsecond of arithmetic on one dependent chain, standing for the
// program's own code between its markers. Pairs run back to back keep the
// kernel's read path and td's lines hotter than a program's pairs find them:
// on the 2-vCPU VM a pair then cost ~1,870 ns of task-clock against
// ~1,930 ns with a microsecond of work between pairs, and the least of a few
// back-to-back rounds ~1,810 ns, which left a tenth of 100,000 pairs' cost
// in the region around them (docs/performance.md).
__attribute__((noinline)) double CalibrationWork(int i) {
  double x = 1.0 + i;
  for (int k = 0; k < 256; ++k) x = x * 1.0000001 + 0.5 / (x + k);
  return x;
}

const RegionOnThread* PartOf(const RunData& run, std::string_view path) {
  for (const Region& region : run.regions) {
    if (region.path == path && !region.threads.empty()) return &region.threads.front();
  }
  return nullptr;
}

// One round: a scratch thread state with a registry of its own and this
// thread's counters opened once more runs `pairs` stretches of work alone in
// "work", then the same stretches each followed by an empty "inner" pair in
// "split", after a quarter as many warm-up stretches. Per pair: "inner"'s
// own value per call (inside), and split less work (pair).
CalibrationRound MeasureRound(CounterBackend& backend, int pairs) {
  RegionRegistry registry;
  auto [counters, error] = OpenCountersOfThisThread(backend);
  ThreadState scratch(0, 0, std::move(counters), backend.layout().words, error, &registry);
  const uint32_t warm = registry.IdForName("warm-up");
  const uint32_t work = registry.IdForName("work");
  const uint32_t split = registry.IdForName("split");
  const uint32_t inner = registry.IdForName("inner");
  volatile double sink = 0;
  for (const uint32_t around : {warm, work, split}) {
    CalibrationBegin(&scratch, around);
    for (int i = 0; i < (around == warm ? pairs / 4 : pairs); ++i) {
      sink = sink + CalibrationWork(i);
      if (around == work) continue;
      CalibrationBegin(&scratch, inner);
      CalibrationEnd(&scratch, inner);
    }
    CalibrationEnd(&scratch, around);
  }
  RunData measured;
  measured.layout = backend.layout();
  MergeThreads({scratch.Record()}, registry.AllNames(), &measured, registry.AllParameters());
  CalibrationRound round;
  const RegionOnThread* alone = PartOf(measured, "work");
  const RegionOnThread* with_pairs = PartOf(measured, "split");
  const RegionOnThread* empty = PartOf(measured, "split/inner");
  if (alone == nullptr || with_pairs == nullptr || empty == nullptr || empty->calls == 0) return round;
  round.pairs = static_cast<uint64_t>(pairs);
  const auto calls = static_cast<double>(empty->calls);
  const auto per_pair = [&](auto split_value, auto alone_value) {
    return (static_cast<double>(split_value) - static_cast<double>(alone_value)) / calls;
  };
  round.inside.wall_ns = static_cast<double>(empty->wall_inclusive_ns) / calls;
  round.pair.wall_ns = per_pair(with_pairs->wall_inclusive_ns, alone->wall_inclusive_ns);
  const size_t events = measured.layout.events.size();
  if (empty->events.size() == events && with_pairs->events.size() == events && alone->events.size() == events) {
    for (size_t e = 0; e < events; ++e) {
      round.inside.events.push_back(static_cast<double>(empty->events[e].inclusive) / calls);
      round.pair.events.push_back(per_pair(with_pairs->events[e].inclusive, alone->events[e].inclusive));
    }
  }
  return round;
}

// The median of `values` (the lower of the middle two of an even count).
double Median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace

std::optional<MarkerCost> CombineCalibrationRounds(const std::vector<CalibrationRound>& rounds, std::string* why) {
  std::vector<const CalibrationRound*> measured;
  for (const CalibrationRound& round : rounds) {
    if (round.pairs != 0) measured.push_back(&round);
  }
  if (measured.empty()) {
    *why = "no calibration round was measured";
    return std::nullopt;
  }
  // Median of one figure over the rounds; `pick` returns nullptr where a
  // round lacks it (counters not measured).
  const auto median_of = [&](auto pick) -> std::optional<double> {
    std::vector<double> values;
    for (const CalibrationRound* round : measured) {
      const double* value = pick(*round);
      if (value == nullptr) return std::nullopt;
      values.push_back(*value);
    }
    return Median(std::move(values));
  };
  MarkerCost cost;
  for (const CalibrationRound* round : measured) cost.pairs += round->pairs;
  cost.inside_wall_ns = *median_of([](const CalibrationRound& r) { return &r.inside.wall_ns; });
  const double pair_wall = *median_of([](const CalibrationRound& r) { return &r.pair.wall_ns; });
  cost.around_wall_ns = std::max(0.0, pair_wall - cost.inside_wall_ns);
  const size_t events = measured.front()->inside.events.size();
  for (size_t e = 0; e < events; ++e) {
    const auto at = [e, events](const PerCall& per_call) {
      return per_call.events.size() == events ? &per_call.events[e] : nullptr;
    };
    const std::optional<double> inside = median_of([&](const CalibrationRound& r) { return at(r.inside); });
    const std::optional<double> pair = median_of([&](const CalibrationRound& r) { return at(r.pair); });
    if (!inside || !pair) {  // rounds that disagree on what was counted
      cost.inside.clear();
      cost.around.clear();
      break;
    }
    cost.inside.push_back(std::max(0.0, *inside));
    cost.around.push_back(std::max(0.0, *pair - std::max(0.0, *inside)));
  }
  if (const double pair = cost.inside_wall_ns + cost.around_wall_ns; pair > kMaxPairWallNs) {
    *why = absl::StrFormat("td's own cost per marker pair measured %.1f µs (median of %d rounds), beyond the %.0f µs "
                           "a pair can cost (the thread was kept from running): values are reported as measured, "
                           "without it taken out",
                           pair / 1e3, measured.size(), kMaxPairWallNs / 1e3);
    return std::nullopt;
  }
  return cost;
}

// td's own cost per marker pair (docs/performance.md, "td's cost inside what
// it reports"), measured the way markers run, in rounds.
std::optional<MarkerCost> MeasureMarkerCost(CounterBackend& backend) {
  constexpr int kRounds = 7;
  constexpr int kPairsPerRound = 200;
  std::vector<CalibrationRound> rounds;
  for (int r = 0; r < kRounds; ++r) rounds.push_back(MeasureRound(backend, kPairsPerRound));
  std::string why;
  std::optional<MarkerCost> cost = CombineCalibrationRounds(rounds, &why);
  if (!cost && !why.empty()) ReportProblem(Severity::kWarning, why);
  return cost;
}

}  // namespace td

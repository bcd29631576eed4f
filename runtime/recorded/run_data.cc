#include "runtime/recorded/run_data.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/regions/node_stats.h"

namespace td {

std::optional<size_t> RunData::EventIndex(const std::string& name) const {
  for (size_t i = 0; i < layout.events.size(); ++i) {
    if (layout.events[i].name == name) return i;
  }
  return std::nullopt;
}

bool RunData::Sampled() const {
  if (sample_every > 1) return true;
  return std::any_of(regions.begin(), regions.end(), [](const Region& r) { return r.sample_every > 1; });
}

RegionTotals Totals(const Region& region, size_t num_events) {
  RegionTotals totals;
  totals.events.resize(num_events);
  for (const RegionOnThread& t : region.threads) {
    totals.calls += t.calls;
    totals.unterminated += t.unterminated;
    totals.wall_inclusive_ns = std::max(totals.wall_inclusive_ns, t.wall_inclusive_ns);
    totals.wall_exclusive_ns = std::max(totals.wall_exclusive_ns, t.wall_exclusive_ns);
    totals.mpi.Add(t.mpi);
    if (t.events.size() != num_events) continue;
    totals.counters_measured = true;
    for (size_t e = 0; e < num_events; ++e) {
      totals.events[e].inclusive += t.events[e].inclusive;
      totals.events[e].exclusive += t.events[e].exclusive;
    }
  }
  return totals;
}

namespace {

// `value` − `loss`, rounded, and 0 below 0. A loss of 0 (an event a pair does
// not move, such as page faults) leaves the value exact. A negative loss (a
// sampled region's exclusive values, see TakeOutMarkerCost) gives back.
template <typename Value>
Value Less(Value value, double loss) {
  if (loss == 0 || std::isnan(loss)) return value;
  const double left = static_cast<double>(value) - loss;
  if (left <= 0) return Value{0};
  // Near the top of the type a double rounds up past it: keep the value (a
  // loss that small against it changes nothing a report shows), or stop at
  // the top when giving back.
  if (left + 0.5 >= static_cast<double>(std::numeric_limits<Value>::max())) {
    return loss > 0 ? value : std::numeric_limits<Value>::max();
  }
  return static_cast<Value>(left + 0.5);
}

// a + b, stopping at the type's largest value (files may hold counts up to it).
template <typename Value>
Value SaturatingAdd(Value a, Value b) {
  Value sum;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<Value>::max() : sum;
}

}  // namespace

void TakeOutMarkerCost(RunData* run_data) {
  if (!run_data->marker_cost || run_data->marker_cost->taken_out) return;
  RunData& out = *run_data;
  const RunData& run = *run_data;  // read before written: each part's figures come from the counts only
  const MarkerCost& cost = *run.marker_cost;
  const size_t num_threads = run.threads.size();
  const size_t num_events = run.layout.events.size();
  const bool counted = cost.inside.size() == num_events && cost.around.size() == num_events;
  // The lists below are one allocation each, not one per region (a job's
  // loader runs this for every rank file). part_of[r * num_threads + thread]:
  // index of that thread's part of region r, or -1. first_part[r]: where
  // region r's parts start in the per-part lists.
  std::vector<int> part_of(run.regions.size() * num_threads, -1);
  std::vector<size_t> first_part(run.regions.size() + 1, 0);
  for (size_t r = 0; r < run.regions.size(); ++r) {
    const PartList& parts = run.regions[r].threads;
    for (size_t p = 0; p < parts.size(); ++p) {
      if (parts[p].thread < num_threads) part_of[r * num_threads + parts[p].thread] = static_cast<int>(p);
    }
    first_part[r + 1] = first_part[r] + parts.size();
  }
  const auto part_of_child = [&](int child, uint32_t thread) {
    return part_of[static_cast<size_t>(child) * num_threads + thread];
  };
  // Pairs run inside each part (its descendants' calls) and its direct
  // children's outermost calls; children come after parents, so a reverse
  // walk has every child's figures before its parent needs them.
  std::vector<uint64_t> inside_pairs(first_part.back(), 0);
  std::vector<uint64_t> child_calls(first_part.back(), 0);  // read outermost calls
  // TD_SAMPLE: the children's outermost calls that were not read. A child's
  // scaled inclusive values carry the inside cost on every call, the
  // parent's only on the read ones: the parent's exclusive values were
  // lowered by that much already.
  std::vector<uint64_t> unread_child_calls(first_part.back(), 0);
  for (size_t r = run.regions.size(); r-- > 0;) {
    const Region& region = run.regions[r];
    for (size_t p = 0; p < region.threads.size(); ++p) {
      const uint32_t thread = region.threads[p].thread;
      if (thread >= num_threads) continue;
      const size_t at = first_part[r] + p;
      for (const int child : region.children) {
        const int q = part_of_child(child, thread);
        if (q < 0) continue;
        const Region& child_region = run.regions[static_cast<size_t>(child)];
        const RegionOnThread& c = child_region.threads[static_cast<size_t>(q)];
        const uint32_t every = run.SampleEveryOf(child_region);
        // TD_SAMPLE: only the pairs whose counters were read cost a measured
        // pair; the others' few instructions are not taken out.
        const size_t child_at = first_part[static_cast<size_t>(child)] + static_cast<size_t>(q);
        inside_pairs[at] = SaturatingAdd(
            inside_pairs[at], SaturatingAdd(MeasuredCalls(c.calls, c.recursive_calls, every), inside_pairs[child_at]));
        const uint64_t outermost = c.calls - std::min(c.recursive_calls, c.calls);
        const uint64_t read = MeasuredOutermostCalls(outermost, every);
        child_calls[at] = SaturatingAdd(child_calls[at], read);
        unread_child_calls[at] = SaturatingAdd(unread_child_calls[at], outermost - read);
      }
    }
  }
  const double pair_wall = cost.inside_wall_ns + cost.around_wall_ns;
  const bool sampled = run.Sampled();
  uint64_t held = 0;
  std::vector<uint64_t> children_counts(num_events);
  // Children first: a part's inclusive values are then raised to at least
  // what its children keep, so that where the cost measured at exit is above
  // what the run's pairs cost, a region with many pairs inside (which loses
  // more) never shows less than the regions it contains.
  for (size_t r = out.regions.size(); r-- > 0;) {
    PartList& parts = out.regions[r].threads;
    for (size_t p = 0; p < parts.size(); ++p) {
      RegionOnThread& t = parts[p];
      // Each part's counts are an allocation of their own: ask for the next
      // part's while this one is done (at 640,000 parts the misses dominate).
      if (p + 1 < parts.size() && !parts[p + 1].events.empty()) __builtin_prefetch(parts[p + 1].events.data(), 1);
      const uint64_t recursive = std::min(t.recursive_calls, t.calls);  // always read
      // A region's outermost calls are scaled to all calls (TD_SAMPLE), so
      // each carries the inside cost; pairs nested in it cost a pair only
      // when they were read.
      const auto own = static_cast<double>(t.calls - recursive);
      const size_t at = first_part[r] + p;
      const auto inner = static_cast<double>(SaturatingAdd(inside_pairs[at], recursive));
      const auto children = static_cast<double>(child_calls[at]);
      const auto unread_children = static_cast<double>(unread_child_calls[at]);
      const int64_t raw_inclusive = t.wall_inclusive_ns;
      const int64_t raw_exclusive = t.wall_exclusive_ns;
      t.wall_inclusive_ns = Less(t.wall_inclusive_ns, own * cost.inside_wall_ns + inner * pair_wall);
      t.wall_exclusive_ns =
          Less(t.wall_exclusive_ns, own * cost.inside_wall_ns + children * cost.around_wall_ns -
                                        unread_children * cost.inside_wall_ns + static_cast<double>(recursive) * pair_wall);
      held += (raw_inclusive > 0 && t.wall_inclusive_ns == 0) + (raw_exclusive > 0 && t.wall_exclusive_ns == 0);
      const bool measured = counted && t.events.size() == num_events;
      if (measured) {
        for (size_t e = 0; e < num_events; ++e) {
          const double pair = cost.inside[e] + cost.around[e];
          t.events[e].inclusive = Less(t.events[e].inclusive, own * cost.inside[e] + inner * pair);
          t.events[e].exclusive =
              Less(t.events[e].exclusive, own * cost.inside[e] + children * cost.around[e] -
                                              unread_children * cost.inside[e] + static_cast<double>(recursive) * pair);
        }
      }
      int64_t children_wall = 0;
      std::fill(children_counts.begin(), children_counts.end(), 0);
      for (const int child : out.regions[r].children) {
        const int q = t.thread < num_threads ? part_of_child(child, t.thread) : -1;
        if (q < 0) continue;
        const RegionOnThread& c = out.regions[static_cast<size_t>(child)].threads[static_cast<size_t>(q)];
        children_wall = SaturatingAdd(children_wall, c.wall_inclusive_ns);
        if (!measured || c.events.size() != num_events) continue;
        for (size_t e = 0; e < num_events; ++e) children_counts[e] = SaturatingAdd(children_counts[e], c.events[e].inclusive);
      }
      // Exclusive is inclusive less the children on the same thread; where a
      // child stopped at 0 or its parent was raised, the two formulas part,
      // and exclusive must not keep more than inclusive leaves it (not under
      // TD_SAMPLE, whose children's values are scaled estimates).
      if (measured) {
        for (size_t e = 0; e < num_events; ++e) {
          t.events[e].inclusive = std::max(t.events[e].inclusive, children_counts[e]);
          if (!sampled) t.events[e].exclusive = std::min(t.events[e].exclusive, t.events[e].inclusive - children_counts[e]);
        }
      }
      if (children_wall > t.wall_inclusive_ns && t.wall_inclusive_ns != 0) ++held;  // a 0 was counted above
      t.wall_inclusive_ns = std::max(t.wall_inclusive_ns, children_wall);
      if (!sampled) t.wall_exclusive_ns = std::min(t.wall_exclusive_ns, t.wall_inclusive_ns - children_wall);
      if (own > 0) t.call_time_taken_out_ns = static_cast<double>(raw_inclusive - t.wall_inclusive_ns) / own;
    }
  }
  out.marker_cost->taken_out = true;
  out.marker_cost->wall_times_held = held;
}

}  // namespace td

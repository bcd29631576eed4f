#include "runtime/recorded/merge_passes.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/base/status_macros.h"

namespace td {
namespace {

std::string GroupKey(const CounterLayout& layout, size_t g) {
  std::vector<std::string> names;
  for (size_t i = 0; i < layout.groups[g].num_events; ++i) {
    names.push_back(layout.events[layout.groups[g].first_event + i].name);
  }
  return absl::StrJoin(names, ",");
}

// Pads a thread's part to the full layout: missing groups read "not measured".
void Pad(const CounterLayout& layout, RegionOnThread* t) {
  t->events.resize(layout.events.size());
  t->groups.resize(layout.groups.size());
}

RegionOnThread* ThreadOf(Region* region, uint32_t thread) {
  for (RegionOnThread& t : region->threads) {
    if (t.thread == thread) return &t;
  }
  return nullptr;
}

}  // namespace

namespace {

// The merged run being built: pass 1's regions and layout, then each later
// pass's new groups and regions added.
struct MergeState {
  RunData& run;
  absl::flat_hash_map<std::string, int> region_of;  // path -> index in run.regions
  std::set<std::string> group_keys;                 // groups already in run.layout
};

// Adds pass `number` (2, 3, …): its groups not seen before, its regions'
// counts in those groups, and warnings where it did other work than pass 1.
absl::Status AddPass(const RunData& pass, int number, MergeState* state) {
  RunData& run = state->run;
  if (pass.program.name != run.program.name) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pass %d ran %s, pass 1 ran %s", number, pass.program.name, run.program.name));
  }
  // Groups this pass adds: (its group index, merged index).
  std::vector<std::pair<size_t, size_t>> added;
  for (size_t g = 0; g < pass.layout.groups.size(); ++g) {
    if (!state->group_keys.insert(GroupKey(pass.layout, g)).second) continue;
    std::vector<EventInfo> events(pass.layout.events.begin() + pass.layout.groups[g].first_event,
                                  pass.layout.events.begin() + pass.layout.groups[g].first_event +
                                      pass.layout.groups[g].num_events);
    added.emplace_back(g, run.layout.AddGroup(std::move(events)));
  }
  for (const Region& region : pass.regions) {
    auto [it, inserted] = state->region_of.try_emplace(region.path, static_cast<int>(run.regions.size()));
    if (inserted) {
      Region copy = region;
      copy.children.clear();
      copy.threads.clear();
      const size_t slash = region.path.rfind('/');
      copy.parent = slash == std::string::npos ? -1 : state->region_of.at(region.path.substr(0, slash));
      if (copy.parent >= 0) run.regions[copy.parent].children.push_back(it->second);
      run.regions.push_back(std::move(copy));
      run.diagnostics.push_back({Severity::kWarning,
                                 absl::StrFormat("td run: region %s appears in pass %d only", region.path, number)});
    }
    Region& merged = run.regions[it->second];
    for (const RegionOnThread& t : region.threads) {
      RegionOnThread* target = ThreadOf(&merged, t.thread);
      if (target == nullptr) {
        merged.threads.push_back(t);  // wall times and calls from this pass
        target = &merged.threads.back();
        target->events.clear();
        target->groups.clear();
      }
      if (t.events.empty()) continue;  // this pass's counters were not measured
      Pad(run.layout, target);
      for (const auto& [from, to] : added) {
        const GroupInfo& src = pass.layout.groups[from];
        const GroupInfo& dst = run.layout.groups[to];
        target->groups[to] = t.groups[from];
        for (size_t i = 0; i < src.num_events; ++i) {
          target->events[dst.first_event + i] = t.events[src.first_event + i];
        }
      }
      const uint64_t first_calls = target->calls;
      if (first_calls != t.calls) {
        run.diagnostics.push_back(
            {Severity::kWarning,
             absl::StrFormat("td run: region %s on thread %d ran %d calls in pass 1 but %d in pass %d; the "
                             "passes did not do the same work",
                             region.path, t.thread, first_calls, t.calls, number)});
      }
    }
  }
  return absl::OkStatus();
}

// Spread of what every pass recorded, per region (inclusive, summed over
// threads), for the events all passes counted; widest first.
std::vector<PassSpread> PassSpreads(const std::vector<RunData>& passes, const RunData& run) {
  std::vector<PassSpread> spreads;
  if (passes.size() < 2) return spreads;
  std::set<std::string> common;
  for (const EventInfo& e : passes[0].layout.events) common.insert(e.name);
  for (const RunData& pass : passes) {
    std::set<std::string> here;
    for (const EventInfo& e : pass.layout.events) {
      if (common.count(e.name)) here.insert(e.name);
    }
    common = std::move(here);
  }
  for (const Region& region : run.regions) {
    for (const std::string& event : common) {
      PassSpread s{region.path, event, 0, 0, 0};
      int seen = 0;
      for (const RunData& pass : passes) {
        const auto index = pass.EventIndex(event);
        const auto at = std::find_if(pass.regions.begin(), pass.regions.end(),
                                     [&](const Region& r) { return r.path == region.path; });
        if (!index || at == pass.regions.end()) continue;
        const RegionTotals totals = Totals(*at, pass.layout.events.size());
        if (!totals.counters_measured) continue;
        const auto v = static_cast<double>(totals.events[*index].inclusive);
        s.min = seen == 0 ? v : std::min(s.min, v);
        s.max = seen == 0 ? v : std::max(s.max, v);
        s.mean += v;
        ++seen;
      }
      if (seen < 2) continue;
      s.mean /= seen;
      if (s.mean < 1000) continue;  // a handful of faults or switches says nothing about spread
      spreads.push_back(s);
    }
  }
  std::stable_sort(spreads.begin(), spreads.end(),
                   [](const PassSpread& a, const PassSpread& b) { return a.Relative() > b.Relative(); });
  return spreads;
}

void PadMeasuredThreads(RunData* run) {
  for (Region& r : run->regions) {
    for (RegionOnThread& t : r.threads) {
      // A thread without counters stays without; a measured one is padded.
      if (!t.events.empty()) Pad(run->layout, &t);
    }
  }
}

}  // namespace

absl::StatusOr<MergedPasses> MergePasses(const std::vector<RunData>& passes) {
  if (passes.empty()) return absl::InvalidArgumentError("no passes to merge");
  MergedPasses out;
  out.run = passes[0];
  PadMeasuredThreads(&out.run);
  MergeState state{out.run, {}, {}};
  for (size_t r = 0; r < out.run.regions.size(); ++r) state.region_of[out.run.regions[r].path] = static_cast<int>(r);
  for (size_t g = 0; g < out.run.layout.groups.size(); ++g) state.group_keys.insert(GroupKey(out.run.layout, g));
  for (size_t p = 1; p < passes.size(); ++p) {
    TD_RETURN_IF_ERROR(AddPass(passes[p], static_cast<int>(p + 1), &state));
  }
  PadMeasuredThreads(&out.run);
  out.spread = PassSpreads(passes, out.run);
  return out;
}

}  // namespace td

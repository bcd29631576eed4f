#include "runtime/report/merge_passes.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

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

absl::StatusOr<MergedPasses> MergePasses(const std::vector<RunData>& passes) {
  if (passes.empty()) return absl::InvalidArgumentError("no passes to merge");
  MergedPasses out;
  RunData& run = out.run;
  run = passes[0];
  for (Region& r : run.regions) {
    for (RegionOnThread& t : r.threads) {
      // A thread without counters stays without; a measured one gets padded later.
      if (!t.events.empty()) Pad(run.layout, &t);
    }
  }
  absl::flat_hash_map<std::string, int> region_of;
  for (size_t r = 0; r < run.regions.size(); ++r) region_of[run.regions[r].path] = static_cast<int>(r);
  std::set<std::string> keys;
  for (size_t g = 0; g < run.layout.groups.size(); ++g) keys.insert(GroupKey(run.layout, g));

  for (size_t p = 1; p < passes.size(); ++p) {
    const RunData& pass = passes[p];
    if (pass.program.name != run.program.name) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "pass %d ran %s, pass 1 ran %s", p + 1, pass.program.name, run.program.name));
    }
    // Groups this pass adds: (its group index, merged index).
    std::vector<std::pair<size_t, size_t>> added;
    for (size_t g = 0; g < pass.layout.groups.size(); ++g) {
      if (!keys.insert(GroupKey(pass.layout, g)).second) continue;
      std::vector<EventInfo> events(pass.layout.events.begin() + pass.layout.groups[g].first_event,
                                    pass.layout.events.begin() + pass.layout.groups[g].first_event +
                                        pass.layout.groups[g].num_events);
      added.emplace_back(g, run.layout.AddGroup(std::move(events)));
    }
    for (const Region& region : pass.regions) {
      auto [it, inserted] = region_of.try_emplace(region.path, static_cast<int>(run.regions.size()));
      if (inserted) {
        Region copy = region;
        copy.children.clear();
        copy.threads.clear();
        const size_t slash = region.path.rfind('/');
        copy.parent = slash == std::string::npos ? -1 : region_of.at(region.path.substr(0, slash));
        if (copy.parent >= 0) run.regions[copy.parent].children.push_back(it->second);
        run.regions.push_back(std::move(copy));
        run.diagnostics.push_back({Severity::kWarning,
                                   absl::StrFormat("td run: region %s appears in pass %d only", region.path, p + 1)});
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
                               region.path, t.thread, first_calls, t.calls, p + 1)});
        }
      }
    }
  }
  for (Region& r : run.regions) {
    for (RegionOnThread& t : r.threads) {
      if (!t.events.empty()) Pad(run.layout, &t);
    }
  }
  // Spread of what every pass recorded, per region (inclusive, summed over threads).
  std::set<std::string> common;
  for (const EventInfo& e : passes[0].layout.events) common.insert(e.name);
  for (const RunData& pass : passes) {
    std::set<std::string> here;
    for (const EventInfo& e : pass.layout.events) {
      if (common.count(e.name)) here.insert(e.name);
    }
    common = std::move(here);
  }
  if (passes.size() > 1) {
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
        out.spread.push_back(s);
      }
    }
    std::stable_sort(out.spread.begin(), out.spread.end(),
                     [](const PassSpread& a, const PassSpread& b) { return a.Relative() > b.Relative(); });
  }
  return out;
}

}  // namespace td

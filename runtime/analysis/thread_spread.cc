#include "runtime/analysis/thread_spread.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace td {
namespace {

// (thread, wall time) pairs, in thread order, each thread once. A sorted
// list rather than a map: it is made for every region of every rank file
// that `td report DIR` reads.
using ThreadWalls = std::vector<std::pair<uint32_t, int64_t>>;

// min / mean / max over (thread, wall) pairs in thread order; the first
// thread with the max is the slowest.
ThreadSpread SpreadOf(const RunData& data, const ThreadWalls& wall) {
  ThreadSpread spread;
  spread.threads = wall.size();
  if (wall.empty()) return spread;
  spread.min = INT64_MAX;
  double sum = 0;
  for (const auto& [thread, ns] : wall) {
    spread.min = std::min(spread.min, ns);
    if (ns > spread.max) {
      spread.max = ns;
      spread.slowest = thread;
    }
    sum += static_cast<double>(ns);
  }
  spread.mean = sum / static_cast<double>(spread.threads);
  if (spread.slowest < data.threads.size()) spread.slowest_openmp = data.threads[spread.slowest].openmp_thread;
  return spread;
}

ThreadWalls WallByThread(const Region& region) {
  ThreadWalls wall;
  wall.reserve(region.threads.size());
  for (const RegionOnThread& t : region.threads) wall.emplace_back(t.thread, t.wall_inclusive_ns);
  const auto by_thread = [](const auto& a, const auto& b) { return a.first < b.first; };
  // td writes a region's parts in thread order, each thread once; a file
  // that does not is sorted and its repeated threads summed.
  const bool strictly_ascending = std::adjacent_find(wall.begin(), wall.end(), [](const auto& a, const auto& b) {
                                    return a.first >= b.first;
                                  }) == wall.end();
  if (!strictly_ascending) {
    std::stable_sort(wall.begin(), wall.end(), by_thread);
    size_t kept = 0;
    for (size_t i = 0; i < wall.size(); ++i) {
      if (kept > 0 && wall[kept - 1].first == wall[i].first) {
        wall[kept - 1].second += wall[i].second;
      } else {
        wall[kept++] = wall[i];
      }
    }
    wall.resize(kept);
  }
  return wall;
}

bool HasThread(const ThreadWalls& wall, uint32_t thread) {
  const auto at = std::lower_bound(wall.begin(), wall.end(), thread,
                                   [](const auto& pair, uint32_t t) { return pair.first < t; });
  return at != wall.end() && at->first == thread;
}

// A region's task-clock on its threads, those measured; nullopt when none was.
std::optional<double> TaskClockOf(const RunData& data, const Region& region, const std::set<uint32_t>* only) {
  const std::optional<size_t> e = data.EventIndex("task-clock");
  if (!e) return std::nullopt;
  std::optional<double> sum;
  for (const RegionOnThread& t : region.threads) {
    if (t.events.size() != data.layout.events.size() || (only != nullptr && only->count(t.thread) == 0)) continue;
    sum = sum.value_or(0) + static_cast<double>(t.events[*e].inclusive);
  }
  return sum;
}

// The regions that contain every one of `copies` (each copy counts as
// containing itself), innermost first along the first copy's chain.
std::vector<size_t> CommonContainers(const RunData& data, const std::vector<size_t>& copies) {
  std::map<size_t, size_t> hits;
  for (const size_t c : copies) {
    size_t steps = 0;  // a parent index that does not lead upwards ends the climb
    for (int r = static_cast<int>(c); r >= 0 && static_cast<size_t>(r) < data.regions.size() &&
                                      steps <= data.regions.size();
         r = data.regions[static_cast<size_t>(r)].parent, ++steps) {
      ++hits[static_cast<size_t>(r)];
    }
  }
  std::vector<size_t> common;
  for (const auto& [region, count] : hits) {
    if (count == copies.size()) common.push_back(region);
  }
  return common;
}

// The threads with recursive calls of a region others ran without any (the
// same name around and inside a parallel region); none where every thread
// recursed.
std::vector<uint32_t> OuterCopies(const Region& region) {
  std::vector<uint32_t> recursive;
  for (const RegionOnThread& t : region.threads) {
    if (t.recursive_calls != 0) recursive.push_back(t.thread);
  }
  if (recursive.size() == region.threads.size()) return {};
  return recursive;
}

}  // namespace

ThreadSpread WallAcrossThreads(const Region& region) {
  ThreadSpread spread;
  spread.threads = region.threads.size();
  if (spread.threads == 0) return spread;
  spread.min = INT64_MAX;
  double sum = 0;
  for (const RegionOnThread& t : region.threads) {
    spread.min = std::min(spread.min, t.wall_inclusive_ns);
    if (t.wall_inclusive_ns > spread.max) {
      spread.max = t.wall_inclusive_ns;
      spread.slowest = t.thread;
    }
    sum += static_cast<double>(t.wall_inclusive_ns);
  }
  spread.mean = sum / static_cast<double>(spread.threads);
  return spread;
}

std::vector<ThreadSpread> TeamSpreads(const RunData& data) {
  // The nested regions named as a top-level one (the names live in `data`).
  absl::flat_hash_map<std::string_view, std::vector<size_t>> nested_by_name;
  for (const Region& region : data.regions) {
    if (region.parent < 0) nested_by_name.try_emplace(region.name);
  }
  for (size_t r = 0; r < data.regions.size(); ++r) {
    if (data.regions[r].parent < 0) continue;
    if (const auto it = nested_by_name.find(data.regions[r].name); it != nested_by_name.end()) it->second.push_back(r);
  }
  std::vector<ThreadSpread> spreads(data.regions.size());
  for (size_t r = 0; r < data.regions.size(); ++r) {
    const Region& region = data.regions[r];
    ThreadWalls wall = WallByThread(region);
    std::vector<size_t> copies;
    const auto nested = nested_by_name.find(region.name);
    if (region.parent < 0 && nested != nested_by_name.end()) {
      // A thread that ran the region only nested: its nested copies, summed.
      std::map<uint32_t, int64_t> extra;
      for (const size_t c : nested->second) {
        bool counted = false;
        for (const RegionOnThread& t : data.regions[c].threads) {
          if (HasThread(wall, t.thread)) continue;
          extra[t.thread] += t.wall_inclusive_ns;
          counted = true;
        }
        if (counted) copies.push_back(c);
      }
      wall.insert(wall.end(), extra.begin(), extra.end());  // threads not in `wall`
      std::sort(wall.begin(), wall.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    spreads[r] = SpreadOf(data, wall);
    spreads[r].copies = std::move(copies);
    spreads[r].outer_copies = OuterCopies(region);
  }
  return spreads;
}

std::vector<TeamCpu> TeamTaskClock(const RunData& data, const std::vector<ThreadSpread>& spreads) {
  std::vector<TeamCpu> cpu(data.regions.size());
  for (size_t r = 0; r < data.regions.size(); ++r) {
    cpu[r].own_ns = TaskClockOf(data, data.regions[r], nullptr);
    cpu[r].team_ns = cpu[r].own_ns;
  }
  auto add = [&cpu](size_t to, std::optional<double> ns, const std::string& path) {
    if (!ns) return;
    cpu[to].team_ns = cpu[to].team_ns.value_or(0) + *ns;
    cpu[to].team_paths.push_back(path);
  };
  for (size_t r = 0; r < data.regions.size() && r < spreads.size(); ++r) {
    const std::vector<size_t>& copies = spreads[r].copies;
    if (copies.empty()) continue;
    // The top-level region gains the threads that ran it only nested …
    std::set<uint32_t> own;
    for (const RegionOnThread& t : data.regions[r].threads) own.insert(t.thread);
    for (const size_t c : copies) {
      std::set<uint32_t> others;
      for (const RegionOnThread& t : data.regions[c].threads) {
        if (own.count(t.thread) == 0) others.insert(t.thread);
      }
      add(r, TaskClockOf(data, data.regions[c], &others), data.regions[c].path);
    }
    // … and every region containing all those copies gains the team threads'
    // top-level copies, which ran while it was open on the team's first thread.
    const std::optional<double> team = TaskClockOf(data, data.regions[r], nullptr);
    for (const size_t container : CommonContainers(data, copies)) add(container, team, data.regions[r].path);
  }
  return cpu;
}

}  // namespace td

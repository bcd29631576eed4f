#include "runtime/analysis/thread_spread.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace td {
namespace {

// min / mean / max over (thread, wall) pairs in thread order; the first
// thread with the max is the slowest.
ThreadSpread SpreadOf(const RunData& data, const std::map<uint32_t, int64_t>& wall) {
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

std::map<uint32_t, int64_t> WallByThread(const Region& region) {
  std::map<uint32_t, int64_t> wall;
  for (const RegionOnThread& t : region.threads) wall[t.thread] += t.wall_inclusive_ns;
  return wall;
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
  absl::flat_hash_map<std::string, std::vector<size_t>> nested_by_name;
  for (size_t r = 0; r < data.regions.size(); ++r) {
    if (data.regions[r].parent >= 0) nested_by_name[data.regions[r].name].push_back(r);
  }
  std::vector<ThreadSpread> spreads(data.regions.size());
  for (size_t r = 0; r < data.regions.size(); ++r) {
    const Region& region = data.regions[r];
    std::map<uint32_t, int64_t> wall = WallByThread(region);
    std::vector<size_t> copies;
    const auto nested = nested_by_name.find(region.name);
    if (region.parent < 0 && nested != nested_by_name.end()) {
      // A thread that ran the region only nested: its nested copies, summed.
      std::map<uint32_t, int64_t> extra;
      for (const size_t c : nested->second) {
        bool counted = false;
        for (const RegionOnThread& t : data.regions[c].threads) {
          if (wall.count(t.thread) != 0) continue;
          extra[t.thread] += t.wall_inclusive_ns;
          counted = true;
        }
        if (counted) copies.push_back(c);
      }
      wall.insert(extra.begin(), extra.end());
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

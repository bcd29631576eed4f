// How a region's wall time spreads over the threads that ran it (an OpenMP
// team's, or any threads'), and its CPU time summed over the team threads
// that ran inside it. One computation for the text, JSON, CSV and HTML
// reports and the job view's per-rank rows (docs/reports.md#across-threads).
//
// The outer-region pattern: a thread that opens a region and then an OpenMP
// parallel region inside it records the team's region nested ("solve/step"),
// while the other team threads, whose stacks start empty, record it at the
// top level ("step"). The spread of a top-level region therefore also counts
// the threads that ran it only nested inside other regions, each with its
// nested copies summed: those copies are listed in `copies`.
#ifndef TD_RUNTIME_ANALYSIS_THREAD_SPREAD_H_
#define TD_RUNTIME_ANALYSIS_THREAD_SPREAD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/recorded/run_data.h"

namespace td {

struct ThreadSpread {
  size_t threads = 0;
  int64_t min = 0;
  int64_t max = -1;
  double mean = 0;
  uint32_t slowest = 0;     // ThreadInfo::index of the thread with the max
  int slowest_openmp = -1;  // its OpenMP number; -1: not known
  // The nested copies (region indices) whose threads the spread counts (the
  // outer-region pattern); empty when it counts the region's own threads only.
  std::vector<size_t> copies;
  // Threads whose copy holds a call of the region made while it was open
  // (recorded as recursion) where other threads' do not: the same name
  // around and inside the parallel region. td records the inner call's time
  // only as moved between the two (NodeStats), so these threads count with
  // their outer copy's wall time (docs/hpc.md#openmp-teams).
  std::vector<uint32_t> outer_copies;
  // The slowest thread's wall time over the mean, as the job view's ranks;
  // 0 when there is no mean.
  double Imbalance() const { return mean > 0 ? static_cast<double>(max) / mean : 0; }
};

// The spread over the region's own threads only.
ThreadSpread WallAcrossThreads(const Region& region);

// Every region's spread (index = region index): a top-level region's counts
// the threads that ran it only nested, as above; others their own threads.
std::vector<ThreadSpread> TeamSpreads(const RunData& data);

// A region's task-clock summed over the team threads that ran inside it:
// its own threads' (as every output sums them) plus, for each top-level
// region whose nested copies (ThreadSpread::copies) all lie inside this one,
// that region's task-clock on its own threads (the team threads that ran it
// while this region was open on the thread that started the team). Team
// threads that ran no marker are not measured: td opens counters on a thread
// at its first marker.
struct TeamCpu {
  std::optional<double> own_ns;       // nullopt: task-clock not recorded
  std::optional<double> team_ns;      // own_ns plus the team threads'
  std::vector<std::string> team_paths;  // the top-level regions added; empty: team_ns == own_ns
};
std::vector<TeamCpu> TeamTaskClock(const RunData& data, const std::vector<ThreadSpread>& spreads);

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_THREAD_SPREAD_H_

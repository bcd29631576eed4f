// What a thread's state records per call-path node, and what it reports for
// one: the per-node records ThreadState keeps, the read-call arithmetic of
// TD_SAMPLE, and the totals and trace events it hands to the rest of td.
#ifndef TD_RUNTIME_REGIONS_NODE_STATS_H_
#define TD_RUNTIME_REGIONS_NODE_STATS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/regions/call_times.h"

namespace td {

// Totals of one call-path node on one thread.
struct NodeStats {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t region = kNone;  // kNone for the thread's root
  uint32_t parent = kNone;
  uint32_t first_child = kNone;
  uint32_t next_sibling = kNone;
  uint32_t child_count = 0;
  // Its histogram of per-call times in ThreadState's (call_times.h), made at
  // the second timed close: kNone before the first, kOneTimed after it (that
  // call's time is the inclusive time).
  static constexpr uint32_t kOneTimed = UINT32_MAX - 1;
  static constexpr uint32_t kNoHistogram = UINT32_MAX - 2;  // memory ran out making it: totals only
  uint32_t call_times = kNone;
  uint64_t calls = 0;
  // TD_SAMPLE=N: of the outermost calls, those whose times and counts are
  // read are the 1st, the N+1st, … (MeasuredCalls); this counts down to the
  // next one. Recursive activations are always read.
  uint32_t until_measured = 1;
  // N of this node: TD_SAMPLE, or td_region_sample's for its region; fixed
  // when the node is made, so MeasuredCalls(…, sample_every) is exact.
  uint32_t sample_every = 1;
  uint64_t recursive_calls = 0;    // calls made while the region was already open
  uint64_t unterminated = 0;       // still open at thread exit or finalize
  uint64_t closed_implicitly = 0;  // closed by the END of an enclosing region
  // Wall times are in ticks of the marker clock (marker_clock.h) until they
  // leave the thread state (ComputeTotals, EndedTotals, TraceEvents).
  int64_t wall_inclusive_ticks = 0;  // outermost activations only
  // Recursive activations only: their time, added here and taken from the
  // node they were entered in. Exclusive values are worked out from these and
  // the inclusive ones at the end (ThreadState::ComputeTotals), so that an
  // ordinary END adds to one node only.
  int64_t wall_moved_ticks = 0;
  // libtd-mpi's wrapped MPI calls made while this node was the innermost open
  // one (node 0: outside every region): never sampled, every call counts.
  int64_t mpi_ticks = 0;
  uint64_t mpi_calls = 0;
  uint64_t mpi_bytes = 0;
};

// Whether this call of `stats` is one whose times and counts are read
// (TD_SAMPLE, td_region_sample): counts down to the next such call.
inline bool TakeMeasuredCall(NodeStats& stats) {
  if (__builtin_expect(--stats.until_measured != 0, 0)) return false;
  stats.until_measured = stats.sample_every;
  return true;
}

// Of `calls` outermost calls, those whose times and counts were read when one
// in `sample_every` is: the first, then every sample_every-th.
inline uint64_t MeasuredOutermostCalls(uint64_t calls, uint32_t sample_every) {
  return sample_every <= 1 ? calls : calls / sample_every + (calls % sample_every != 0 ? 1 : 0);
}
// All read calls of a region that had `calls`, `recursive` of them recursive
// (those are always read: their time moves between regions exactly).
inline uint64_t MeasuredCalls(uint64_t calls, uint64_t recursive, uint32_t sample_every) {
  recursive = std::min(recursive, calls);
  return MeasuredOutermostCalls(calls - recursive, sample_every) + recursive;
}

// A read value scaled to all calls (TD_SAMPLE): `scale` = calls / read calls.
inline int64_t ScaledWall(int64_t ticks, double scale) {
  return scale == 1.0 ? ticks : static_cast<int64_t>(std::llround(static_cast<double>(ticks) * scale));
}
// Counter words wrap (deltas are taken modulo 2^64): scaled as signed.
inline uint64_t ScaledCount(uint64_t count, double scale) {
  if (scale == 1.0) return count;
  return static_cast<uint64_t>(std::llround(static_cast<double>(static_cast<int64_t>(count)) * scale));
}

// Every node's values as reported: inclusive ones scaled from the measured
// calls to all calls (TD_SAMPLE; unchanged when every call is measured), and
// exclusive ones worked out from them. `*_words[node * words() …]`.
struct NodeTotals {
  std::vector<int64_t> wall_inclusive_ns;
  std::vector<int64_t> wall_exclusive_ns;
  std::vector<uint64_t> inclusive_words;
  std::vector<uint64_t> exclusive_words;
  // MPI time, calls and bytes of each node with its descendants' (what the
  // region spent in MPI, nested regions included; node 0: outside every
  // region only); empty where the thread made no wrapped MPI call.
  std::vector<int64_t> mpi_inclusive_ns;
  std::vector<uint64_t> mpi_inclusive_calls;
  std::vector<uint64_t> mpi_inclusive_bytes;
  // Per node, its calls' times (call_times.h) where it has a histogram;
  // empty where no node of the thread has one.
  std::vector<CallTimeCounts> call_times_ns;
};

// One begin or end on the timeline (TD_TRACE). Its counter snapshot lives in
// the thread's flat buffer, `words` values per event.
struct TraceEvent {
  int64_t time_ns = 0;  // CLOCK_MONOTONIC
  uint32_t region = 0;
  bool begin = false;
  const uint64_t* counters = nullptr;
};

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_NODE_STATS_H_

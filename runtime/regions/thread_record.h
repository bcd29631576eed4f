// What the rest of td reads of one thread's recording once its markers are
// done (the recorded-run model merges these): who the thread was, whether its
// counters were measured, its call-path nodes and, on demand, their reported
// totals. ThreadState::Record() makes one; nothing here needs the markers.
#ifndef TD_RUNTIME_REGIONS_THREAD_RECORD_H_
#define TD_RUNTIME_REGIONS_THREAD_RECORD_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/regions/node_stats.h"

namespace td {

struct ThreadRecord {
  uint32_t index = 0;
  int64_t tid = 0;
  bool retired = false;     // the thread exited before finalize
  int openmp_thread = -1;   // its number in its first OpenMP team; -1: none
  bool counters_measured = false;
  std::string counters_error;  // why not, where they were not
  uint64_t read_failures = 0;
  std::string counters_lost;  // the program closed or reused a counter descriptor
  size_t words = 0;            // snapshot words per node
  const std::vector<NodeStats>* nodes = nullptr;  // node 0 is the thread itself
  // The nodes' reported values (ThreadState::ComputeTotals), worked out when
  // asked, so that a merge holds one thread's at a time.
  std::function<NodeTotals()> totals;
  // Where set, MergeThreads calls it once the thread's parts are made: the
  // caller (finalize) needs the nodes no more, and their memory goes before
  // the next thread's parts are made.
  std::function<void()> release;
};

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_THREAD_RECORD_H_

// TD_TRACE timelines as Chrome trace JSON (chrome://tracing and Perfetto
// open it): one B/E pair per region activation, with the counter values at
// that moment as arguments.
#ifndef TD_RUNTIME_REPORT_TRACE_EXPORT_H_
#define TD_RUNTIME_REPORT_TRACE_EXPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "runtime/counters/backend.h"
#include "runtime/regions/node_stats.h"

namespace td {

struct ThreadTrace {
  uint32_t index = 0;
  int64_t tid = 0;
  std::vector<TraceEvent> events;  // oldest first
  uint64_t dropped = 0;            // oldest events overwritten in the ring
};

nlohmann::json TraceToChromeJson(const std::vector<ThreadTrace>& threads,
                                 const std::vector<std::string>& names,
                                 const CounterLayout& layout, int64_t pid,
                                 const std::string& program);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_TRACE_EXPORT_H_

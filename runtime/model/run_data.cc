#include "runtime/model/run_data.h"

#include <algorithm>

namespace td {

std::optional<size_t> RunData::EventIndex(const std::string& name) const {
  for (size_t i = 0; i < layout.events.size(); ++i) {
    if (layout.events[i].name == name) return i;
  }
  return std::nullopt;
}

RegionTotals Totals(const Region& region, size_t num_events) {
  RegionTotals totals;
  totals.events.resize(num_events);
  for (const RegionOnThread& t : region.threads) {
    totals.calls += t.calls;
    totals.unterminated += t.unterminated;
    totals.wall_inclusive_ns = std::max(totals.wall_inclusive_ns, t.wall_inclusive_ns);
    totals.wall_exclusive_ns = std::max(totals.wall_exclusive_ns, t.wall_exclusive_ns);
    if (t.events.size() != num_events) continue;
    totals.counters_measured = true;
    for (size_t e = 0; e < num_events; ++e) {
      totals.events[e].inclusive += t.events[e].inclusive;
      totals.events[e].exclusive += t.events[e].exclusive;
    }
  }
  return totals;
}

}  // namespace td

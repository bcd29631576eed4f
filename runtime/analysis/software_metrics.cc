#include "runtime/analysis/software_metrics.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

constexpr char kTaskClock[] = "task-clock";
constexpr char kCpuUtilization[] = "cpu_utilization";
constexpr const char* kCountEvents[] = {"page-faults", "context-switches", "cpu-migrations"};

}  // namespace

std::vector<SoftwareMetric> SoftwareMetricColumns(const RunData& data) {
  std::vector<SoftwareMetric> columns;
  if (data.EventIndex(kTaskClock)) {
    columns.push_back({kTaskClock, kTaskClock, SoftwareUnit::kNanoseconds, std::nullopt});
    columns.push_back({kCpuUtilization, "CPUs", SoftwareUnit::kCpus, std::nullopt});
  }
  for (const char* name : kCountEvents) {
    if (data.EventIndex(name)) columns.push_back({name, name, SoftwareUnit::kCount, std::nullopt});
  }
  return columns;
}

std::vector<SoftwareMetric> SoftwareMetricsOf(const RunData& data, absl::Span<const EventDelta> events,
                                              int64_t wall_ns, bool exclusive) {
  std::vector<SoftwareMetric> metrics = SoftwareMetricColumns(data);
  const bool measured = !events.empty() && events.size() == data.layout.events.size();
  if (!measured) return metrics;
  auto count = [&](const std::string& name) {
    const EventDelta& d = events[*data.EventIndex(name)];
    return static_cast<double>(exclusive ? d.exclusive : d.inclusive);
  };
  for (SoftwareMetric& m : metrics) {
    if (m.key != kCpuUtilization) {
      m.value = count(m.key);
    } else if (wall_ns > 0 && !exclusive) {
      // Inclusive only: exclusive wall and task-clock are differences of
      // two clocks read at different instants, and over a short exclusive
      // time their ratio is noise (a single thread can show 1.4 CPUs).
      // No wall time: no utilisation, rather than a division by 0.
      m.value = count(kTaskClock) / static_cast<double>(wall_ns);
    }
  }
  return metrics;
}

std::vector<SoftwareMetric> RegionSoftwareMetrics(const RunData& data, const Region& region, bool exclusive) {
  const RegionTotals totals = Totals(region, data.layout.events.size());
  return SoftwareMetricsOf(data, totals.counters_measured ? absl::MakeConstSpan(totals.events) : absl::Span<const EventDelta>(),
                           exclusive ? totals.wall_exclusive_ns : totals.wall_inclusive_ns, exclusive);
}

uint64_t SoftwareIntegerValue(double value) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  if (!(value > 0)) return 0;                             // NaN too
  if (value >= static_cast<double>(kMax)) return kMax;  // 2^64 and beyond
  return static_cast<uint64_t>(value);
}

std::string FormatSoftwareValue(const SoftwareMetric& metric) {
  if (!metric.value) return "—";
  switch (metric.unit) {
    case SoftwareUnit::kNanoseconds: {
      constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      return HumanDuration(static_cast<int64_t>(std::min(SoftwareIntegerValue(*metric.value), kInt64Max)));
    }
    case SoftwareUnit::kCpus: return absl::StrFormat("%.2f", *metric.value);
    case SoftwareUnit::kCount: return WithThousands(SoftwareIntegerValue(*metric.value));
  }
  return "—";
}

namespace {

// Depth-first from `root`, children in their listed order. A loop with an
// explicit stack: a recording can nest regions deeper than the call stack.
void AppendSubtree(const RunData& data, size_t root, std::vector<RegionInTree>* out) {
  std::vector<RegionInTree> pending = {{root, 0}};
  while (!pending.empty()) {
    const RegionInTree node = pending.back();
    pending.pop_back();
    out->push_back(node);
    const std::vector<int>& children = data.regions[node.index].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      // Only children that name this region as parent: a hand-edited file
      // cannot make the walk leave the array or loop (parents come first).
      const int child = *it;
      const bool valid = child >= 0 && static_cast<size_t>(child) < data.regions.size() &&
                         data.regions[static_cast<size_t>(child)].parent == static_cast<int>(node.index);
      if (valid) pending.push_back({static_cast<size_t>(child), node.depth + 1});
    }
  }
}

}  // namespace

std::vector<RegionInTree> RegionTreeOrder(const RunData& data) {
  std::vector<RegionInTree> order;
  for (size_t r = 0; r < data.regions.size(); ++r) {
    if (data.regions[r].parent < 0) AppendSubtree(data, r, &order);
  }
  return order;
}

}  // namespace td

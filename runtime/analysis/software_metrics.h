// The software metrics every output shows beside calls and wall time:
// task-clock, CPU utilisation (task-clock / wall), page faults, context
// switches and CPU migrations — those of them the recording holds. One place
// computes and formats them, so the text, CSV, JSON, HTML and compare
// outputs cannot disagree.
#ifndef TD_RUNTIME_ANALYSIS_SOFTWARE_METRICS_H_
#define TD_RUNTIME_ANALYSIS_SOFTWARE_METRICS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "runtime/recorded/run_data.h"

namespace td {

enum class SoftwareUnit { kNanoseconds, kCpus, kCount };

struct SoftwareMetric {
  std::string key;    // "task-clock", "cpu_utilization", "page-faults", …
  std::string label;  // column heading: the key, "CPUs" for cpu_utilization
  SoftwareUnit unit = SoftwareUnit::kCount;
  std::optional<double> value;  // nullopt: not measured (never 0)
};

// The metrics a recording holds, in the text report's column order, values
// unset. Empty when it holds none of the software events.
std::vector<SoftwareMetric> SoftwareMetricColumns(const RunData& data);

// Values for one region or one thread of it: `events` are its deltas (all of
// data.layout.events, or empty when not measured), summed over threads for a
// region; `wall_ns` is the wall time CPU utilisation is taken against.
// `exclusive` takes the exclusive deltas; CPU utilisation is then not
// computed (see software_metrics.cc).
std::vector<SoftwareMetric> SoftwareMetricsOf(const RunData& data, absl::Span<const EventDelta> events,
                                              int64_t wall_ns, bool exclusive = false);

// A region's totals: events summed over threads, against the longest
// thread's wall time (as the text report does).
std::vector<SoftwareMetric> RegionSoftwareMetrics(const RunData& data, const Region& region,
                                                  bool exclusive = false);

// "3.96 ms", "1.00", "1,234"; "—" when not measured.
std::string FormatSoftwareValue(const SoftwareMetric& metric);

// A count's or a duration's value as an integer for the outputs that print
// integers, clamped to [0, 2^64 - 1]: counts read from a file go up to
// 2^64 - 1 (a double rounds that up to 2^64), more once summed over threads,
// and converting a double outside the integer's range is undefined. NaN is 0.
uint64_t SoftwareIntegerValue(double value);

// Regions in the text report's order: depth first, children after their
// parent in first-use order. `depth` is 0 for top-level regions.
struct RegionInTree {
  size_t index = 0;
  int depth = 0;
};
std::vector<RegionInTree> RegionTreeOrder(const RunData& data);

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_SOFTWARE_METRICS_H_

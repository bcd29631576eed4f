#include "runtime/analysis/measurement_conditions.h"

#include "absl/strings/str_format.h"
#include "runtime/analysis/software_metrics.h"

namespace td {
namespace {

constexpr int64_t kShortestRegionNs = 1'000'000;  // shorter ones: clock and scheduling noise
constexpr double kTogetherCpus = 1.2;              // threads that overlapped keep more CPUs busy
constexpr double kOnCpuShare = 0.85;               // one thread: on a CPU at least this much
constexpr double kSpeedupAgreement = 1.25;         // wall and CPU speedups within this factor

std::optional<double> CpusOf(const RunData& data, const Region& region) {
  for (const SoftwareMetric& m : RegionSoftwareMetrics(data, region)) {
    if (m.unit == SoftwareUnit::kCpus) return m.value;
  }
  return std::nullopt;
}

}  // namespace

std::vector<ConditionWarning> CheckMeasurementConditions(const RunData& data) {
  std::vector<ConditionWarning> warnings;
  for (const Region& region : data.regions) {
    const RegionTotals totals = Totals(region, 0);
    if (totals.wall_inclusive_ns < kShortestRegionNs) continue;
    const std::optional<double> cpus = CpusOf(data, region);
    if (!cpus) continue;
    const size_t threads = region.threads.size();
    if (threads >= 2 && *cpus < kTogetherCpus) {
      warnings.push_back({region.path, "threads_took_turns",
                          absl::StrFormat("%s: its %d threads kept %.2f CPUs busy on average, so they ran one at a "
                                          "time or waited for each other; what needs them at once (contention, "
                                          "false sharing, a parallel speedup) may not show. Check that the machine "
                                          "had %d free CPUs.",
                                          region.path, threads, *cpus, threads)});
    } else if (threads == 1 && *cpus < kOnCpuShare) {
      warnings.push_back({region.path, "off_cpu",
                          absl::StrFormat("%s: its thread was on a CPU %.0f%% of the region's wall time (preempted, "
                                          "waiting or asleep the rest); its wall time says more about the machine "
                                          "than the code, task-clock says what ran",
                                          region.path, 100 * *cpus)});
    }
  }
  return warnings;
}

std::optional<std::string> SpeedupDisagreement(const std::string& label, double wall_speedup, double cpu_speedup) {
  if (!(wall_speedup > 0) || !(cpu_speedup > 0)) return std::nullopt;
  const double ratio = wall_speedup / cpu_speedup;
  if (ratio <= kSpeedupAgreement && ratio >= 1 / kSpeedupAgreement) return std::nullopt;
  return absl::StrFormat("%s: wall time says %.2f× the first column's speed, CPU time (task-clock) %.2f×: the "
                         "machine was busy or the program waited, so rerun before trusting the speedup",
                         label, wall_speedup, cpu_speedup);
}

}  // namespace td

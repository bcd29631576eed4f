// What a job view derives per region from its ranks (docs/hpc.md,
// "Wait states and efficiencies"): imbalance by wall and CPU time with the
// core-seconds it costs, and, from the per-rank rows of ranks whose MPI
// calls libtd-mpi timed, the POP efficiencies and the wait states.
//
// Wait states are worked out from the ranks' totals, with no clock shared
// between ranks: in a phase that ends in a synchronising MPI call, every
// rank leaves it at about the same moment, so the rank that spent the least
// time in MPI is the one the others waited for, and each rank's time in MPI
// beyond that least time is what it waited. The late arriver is named as the
// rank with the most useful (non-MPI) time: the last to reach the phase's
// MPI calls.
#ifndef TD_RUNTIME_JOB_JOB_METRICS_H_
#define TD_RUNTIME_JOB_JOB_METRICS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "nlohmann/json.hpp"

namespace td {

struct JobView;
struct RegionAcrossRanks;
struct Spread;

// Of one quantity over the ranks (wall or CPU time): max / mean (1 when
// even), the percent imbalance 100 × (max − mean) / max, and the
// core-seconds the other ranks idle while the slowest finishes:
// ranks × (max − mean) / 1e9.
struct Imbalance {
  double ratio = 1;
  double percent = 0;
  double lost_core_seconds = 0;
  size_t ranks = 0;  // 0: no rank had the quantity
};
Imbalance ImbalanceOf(const Spread& spread_ns);

// POP efficiencies of one region over the ranks with MPI times, where
// useful time = wall − MPI time (at least 0) per rank and runtime = the
// longest wall time over those ranks.
struct Efficiency {
  size_t ranks = 0;  // 0: not known (no MPI times, or no per-rank rows)
  double useful_mean_ns = 0;
  double useful_max_ns = 0;
  double runtime_ns = 0;
  double load_balance = 1;              // mean useful / max useful
  double communication_efficiency = 1;  // max useful / runtime
  double parallel_efficiency = 1;       // the product of the two
  // The rank with the most useful time; -1 where its lead over the mean is
  // under 1 % of the runtime (no rank was late).
  int64_t late_rank = -1;
  double late_by_ns = 0;      // its useful time − the mean useful time
  double waited_ns = 0;       // Σ over ranks of the waits (RegionOnRank::wait_ns)
  int64_t most_waiting_rank = -1;
  double most_waited_ns = 0;
};

// Sets `region`'s efficiency and its rows' wait_ns from its rows (cleared
// where there are none).
void SettleEfficiency(RegionAcrossRanks* region);

// The job view's text sections: imbalance by wall and CPU time per region,
// then the efficiencies, the late rank and the waits ("" where no region has
// MPI times on rows).
std::string FormatImbalances(const JobView& view);
std::string FormatEfficiencies(const JobView& view);
// One line on the job as a whole (the kProgramRegion row's efficiencies),
// "" without them.
std::string FormatJobEfficiency(const JobView& view);

// JSON of a region's imbalance ({"wall": …, "cpu": …}) and efficiency
// (null where not known).
nlohmann::json ImbalanceJson(const RegionAcrossRanks& region);
nlohmann::json EfficiencyJson(const Efficiency& efficiency);
// The job's efficiency: the kProgramRegion row's (null without it).
nlohmann::json JobEfficiencyJson(const JobView& view);

// `text` right-aligned in `width` terminal columns, each UTF-8 character
// one column ("µs" is two bytes): the job views' text tables.
std::string RightAligned(const std::string& text, size_t width);
// A region's last path element, indented two spaces per level: the name
// column of the job views' text tables.
std::string IndentedName(const RegionAcrossRanks& region);

// The CSV columns of the derived values: the header's tail, a rank's row
// (MPI time, wait) and a region's "all" row.
inline constexpr char kMetricsCsvHeader[] =
    "mpi_ns,wait_ns,load_balance,communication_efficiency,parallel_efficiency,late_rank,cpu_imbalance,"
    "wall_imbalance_percent,cpu_imbalance_percent,wall_lost_core_seconds,cpu_lost_core_seconds";
std::string MetricsCsvOfRank(const RegionAcrossRanks& region, size_t row);
std::string MetricsCsvOfRegion(const RegionAcrossRanks& region);

}  // namespace td

#endif  // TD_RUNTIME_JOB_JOB_METRICS_H_

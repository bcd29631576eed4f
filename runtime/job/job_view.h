// The ranks of one MPI job side by side: per region, which ranks ran it and
// how their times spread (min, mean, max, the slowest rank, imbalance =
// max / mean), and the spread of each Level-1 Top-Down fraction where the
// ranks have trees. docs/hpc.md shows it.
#ifndef TD_RUNTIME_JOB_JOB_VIEW_H_
#define TD_RUNTIME_JOB_JOB_VIEW_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/run_analysis.h"
#include "runtime/job/job_metrics.h"
#include "runtime/recorded/run_data.h"

namespace td {

// min / mean / max of one quantity over the ranks that have it, and the rank
// holding the max.
struct Spread {
  double min = 0;
  double mean = 0;
  double max = 0;
  int64_t max_rank = -1;
  size_t ranks = 0;  // how many ranks had a value
  void Add(double value, int64_t rank);
};

struct RegionOnRank {
  int64_t rank = 0;
  uint64_t calls = 0;
  int64_t wall_ns = 0;                   // the rank's longest thread
  std::optional<double> task_clock_ns;   // summed over the rank's threads
  // MPI time, calls and bytes in the region, summed over the rank's
  // threads; none where the rank's file has no MPI times (no libtd-mpi).
  std::optional<MpiTime> mpi;
  // Its MPI time beyond the least over the region's ranks: what it waited
  // (runtime/job/job_metrics.h); derived, never stored in files.
  std::optional<int64_t> wait_ns;
  // The rank's own spread over its threads (runtime/analysis/thread_spread.h):
  // how many ran the region and its slowest thread's wall time / the mean;
  // 0 and none where the rank's table did not carry them.
  size_t threads = 0;
  std::optional<double> thread_imbalance;
};

// Σ instructions and Σ cycles of a region over the ranks that counted both
// (each rank's counts scaled and summed over its threads): what td compare
// splits computation scalability with (job_compare.h). Sums, so tables merge
// by adding them.
struct CountTotals {
  double instructions = 0;
  double cycles = 0;
  size_t ranks = 0;  // 0: no rank counted both
  void Add(const CountTotals& other);
};

struct RegionAcrossRanks {
  std::string path;
  int depth = 0;  // 0 at top level
  std::vector<RegionOnRank> ranks;  // in rank order
  uint64_t calls = 0;
  Spread wall_ns;
  Spread task_clock_ns;
  // MPI time / wall time per rank (docs/hpc.md#mpi-time-per-region), over
  // the ranks with MPI times and a wall time above 0.
  Spread mpi_share;
  double imbalance = 0;     // wall max / wall mean; 1 when even
  int64_t slowest_rank = -1;
  // Level-1 node name -> its fraction's spread over the ranks with trees.
  std::vector<std::pair<std::string, Spread>> level1;
  // POP efficiencies and wait states (job_metrics.h); ranks 0 without rows.
  Efficiency efficiency;
  CountTotals counts;
};

// The whole-program region every rank gets in a job view (docs/hpc.md): from
// td's start on the rank (MPI_Init under libtd-mpi) to its end, with all of
// the rank's MPI time; so an unmarked program has a row per rank.
inline constexpr char kProgramRegion[] = "(program)";

// Imbalance, slowest rank and efficiencies recomputed from the spreads and rows.
void SettleRegion(RegionAcrossRanks* region);

struct JobView {
  std::string program;
  std::string job;
  int64_t size = 0;                  // as the launcher said; 0 when unknown
  std::vector<int64_t> present;      // ranks read, in order
  std::vector<int64_t> missing;      // ranks below size with no file
  std::vector<int64_t> aborted;      // ranks whose file says they called MPI_Abort
  // (rank, signal) of the ranks whose file says a signal ended them (TD_SIGNALS), in rank order.
  std::vector<std::pair<int64_t, int>> signaled;
  // (rank, ns from its start to its last flush) of the ranks whose file is
  // a periodic flush's (TD_FLUSH_INTERVAL): the rank never reached its end
  // (SIGKILL, a crash), and its data stops at that flush. In rank order.
  std::vector<std::pair<int64_t, int64_t>> partial;
  std::vector<std::string> hosts;    // distinct, in rank order
  std::vector<RegionAcrossRanks> regions;  // parents before children, first-seen order
};

// `runs` are one file per rank of one job. Fails with one line naming the
// odd file out when they are not: a file without `mpi`, two programs or
// jobs, the same rank twice.
absl::StatusOr<JobView> BuildJobView(const std::vector<RunData>& runs, const std::vector<std::string>& files,
                                     const std::vector<RunAnalysis>& analyses);

// One rank's file reduced to what its job view keeps of it, so that the
// ranks of a large job need not be held in memory together (td report DIR:
// runtime/job/job_loader.h): per region, its path, the rank's row and its
// Level-1 fractions.
struct RankRegion {
  std::string path;
  RegionOnRank on_rank;
  std::vector<std::pair<std::string, double>> level1;  // node -> fraction, in tree order; empty without a tree
  CountTotals counts;  // the rank's instructions and cycles (ranks 1), where it counted both
};
struct RankSummary {
  std::string file;  // named in errors
  std::string program;
  std::optional<MpiRank> mpi;
  std::optional<int64_t> partial_after_ns;  // a partial file: its flush, ns after the rank's start
  std::vector<RankRegion> regions;  // in the file's order
};
// `analysis` may be null (no Level-1 fractions then).
RankSummary SummarizeRank(const RunData& run, const RunAnalysis* analysis, std::string file);
// The same view BuildJobView makes of the runs the summaries were made of,
// with the same errors.
absl::StatusOr<JobView> BuildJobView(std::vector<RankSummary> ranks);

std::string FormatJobText(const JobView& view);
// The MPI share section of FormatJobText ("" where no rank has MPI times).
std::string FormatMpiShares(const JobView& view);
// Adds the rank's MPI share of its wall time to `share`, where it has one.
void AddMpiShare(const RegionOnRank& on_rank, Spread* share);
// One row per region and rank, then one per region with rank "all".
std::string FormatJobCsv(const JobView& view);
nlohmann::json JobViewToJson(const JobView& view);
// What the job view and the job file both write: a spread as JSON (null
// when no rank had the value), and a region path's depth ("a/b" is 1).
nlohmann::json SpreadJson(const Spread& spread);
int PathDepth(const std::string& path);
// The same text as DumpJson(JobViewToJson(view), 1), made one region at a
// time, so a large job's view is never one JSON tree ("" when memory runs out).
std::string JobViewJsonText(const JobView& view);

// Two jobs side by side: runtime/job/job_compare.h.

}  // namespace td

#endif  // TD_RUNTIME_JOB_JOB_VIEW_H_

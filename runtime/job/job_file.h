// The job file: one MPI job's job view written in-process by libtd-mpi at
// MPI_Finalize (docs/hpc.md#one-file-per-job), and the partial tables the
// ranks pass up the reduction tree on the way there. Both are the same JSON
// ("td_job": 1): a partial table is a job table that holds some ranks.
//
// Tables merge region by region (matched by path): calls add up, the spreads
// of wall time, task-clock and the Level-1 fractions combine (min, max, the
// rank of the max, the mean weighted by ranks), and per-rank rows, when both
// sides keep them, are concatenated. A table without rows (a large job:
// TD_MPI_RANKS) keeps a histogram of the ranks' wall times per region
// instead, in quarter-octave bins, which merge by adding.
#ifndef TD_RUNTIME_JOB_JOB_FILE_H_
#define TD_RUNTIME_JOB_JOB_FILE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"
#include "runtime/job/job_view.h"

namespace td {

// What the reduction cost, carried up the tree with the tables.
struct ReductionStats {
  uint64_t messages = 0;       // messages received in the subtree
  uint64_t bytes = 0;          // their bytes together
  uint64_t largest = 0;        // the largest one
  uint64_t root_bytes = 0;     // bytes rank 0 received (set at the root)
  int levels = 0;              // ceil(log2 size) (set at the root)
  double root_seconds = 0;     // rank 0: from entering MPI_Finalize to the job merged
};

struct JobTable {
  std::string td_version;
  bool per_rank = true;  // the regions keep one row per rank (RegionAcrossRanks::ranks)
  JobView view;          // view.regions[i].ranks empty when !per_rank
  // Per region (same index as view.regions): bin -> ranks whose wall time
  // falls in it; bin b holds [2^(b/4), 2^((b+1)/4)) ns, bin -1 a zero time.
  std::vector<std::map<int, uint64_t>> histograms;
  ReductionStats reduction;
};

// This rank's table: BuildJobView of the one run (it must have `mpi`), with
// `analysis` (may be null) for the Level-1 spreads.
absl::StatusOr<JobTable> RankJobTable(const RunData& run, const RunAnalysis* analysis, bool per_rank);

// An empty table (no ranks) that merges with anything.
JobTable EmptyJobTable();

// Adds `later` to `into`. Both must be of the same program and job, and
// share no rank. Rows are kept only when both keep them.
absl::Status MergeJobTables(JobTable* into, JobTable later);

// Spreads, calls, imbalance and slowest rank recomputed from the rows (when
// kept) in rank order, as BuildJobView computes them from rank files.
void SettleJobTable(JobTable* table);

// indent -1: one line (the messages), 1: the file.
std::string JobTableText(const JobTable& table, int indent);
bool IsJobTableJson(const nlohmann::json& json);
absl::StatusOr<JobTable> JobTableFromJson(const nlohmann::json& json, const std::string& where);
absl::StatusOr<JobTable> ParseJobTable(const std::string& text, const std::string& where);
// Whether `path` holds a job file (false when it cannot be read or parsed).
bool IsJobFile(const std::string& path);
absl::StatusOr<JobTable> ReadJobFile(const std::string& path);

// FormatJobText, then, for a table without rows, the wall-time histogram of
// each region.
std::string FormatJobTableText(const JobTable& table);

// A view built from rank files (BuildJobView, rows kept) as a table.
JobTable TableOfView(JobView view);

// Several tables of one job (from rank files and job files; `names[i]`
// names where tables[i] came from) as one, merged in the order of their
// lowest rank: one program and job, each rank once, else one line naming
// the two sources.
absl::StatusOr<JobTable> CombineJobTables(std::vector<JobTable> tables, const std::vector<std::string>& names);

}  // namespace td

#endif  // TD_RUNTIME_JOB_JOB_FILE_H_

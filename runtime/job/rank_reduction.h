// One rank's part in reducing an MPI job's tables to one at MPI_Finalize
// (docs/hpc.md#one-file-per-job): its own table first, then its children's
// tables merged in as they arrive up a tree, then the whole handed to its
// parent, or, on rank 0, settled into the job's table with what the
// reduction cost. libtd-mpi moves the bytes; this decides what they hold.
#ifndef TD_RUNTIME_JOB_RANK_REDUCTION_H_
#define TD_RUNTIME_JOB_RANK_REDUCTION_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/job/job_file.h"
#include "runtime/recorded/run_data.h"

namespace td {

class RankReduction {
 public:
  // `start_ns`: CLOCK_MONOTONIC when this rank entered MPI_Finalize.
  RankReduction(int rank, int size, int64_t start_ns) : rank_(rank), size_(size), start_ns_(start_ns) {}

  int rank() const { return rank_; }
  // A part of this subtree's table is missing: nothing may be written from it.
  bool failed() const { return failed_; }
  const JobTable& table() const { return table_; }

  // This rank's own table from its run (what its report shows) and
  // `analysis` (may be null); `per_rank`: keep a row per rank (TD_MPI_RANKS).
  absl::Status Start(const RunData& shown, const RunAnalysis* analysis, bool per_rank);
  // A child's table as the bytes it sent, counted in the reduction's cost
  // and merged. No bytes: the child failed (it said why); the subtree is then
  // failed, as it is when the bytes do not parse or merge (the error).
  absl::Status AddChild(const char* bytes, size_t length);
  // The table as the bytes to send to the parent (one line of JSON); it is
  // no longer held here once they are made.
  absl::StatusOr<std::string> TakeForParent();
  // Rank 0: the job's table, settled (JobTable's spreads from its rows), with
  // the tree's depth and the time since start at `now_ns`.
  JobTable& Settle(int64_t now_ns);
  // Drops the table (this rank writes its own files instead).
  void Abandon() { table_ = EmptyJobTable(); }
  // What this subtree holds can no longer be trusted (a merge threw).
  void MarkFailed() { failed_ = true; }

 private:
  int rank_;
  int size_;
  int64_t start_ns_;
  JobTable table_ = EmptyJobTable();
  bool failed_ = false;
};

}  // namespace td

#endif  // TD_RUNTIME_JOB_RANK_REDUCTION_H_

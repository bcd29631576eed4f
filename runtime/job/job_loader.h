// The files of one MPI job — the ranks' run files and libtd-mpi's job files,
// in any mix — read into one job table: what `td report DIR` and
// `td compare DIR_A DIR_B` show (docs/hpc.md).
//
// Built for large jobs (docs/hpc.md, "Scale"): a few threads read the files;
// a rank's file with its summary (rank_summary_file.h) is read only at its
// head and end, any other once (ScanRunText, not a JSON tree, for run files),
// analysed (one pipeline, its definitions loaded once) and reduced at once to the rows
// its job view keeps (RankSummary), so no more than one run per thread is in
// memory at a time. The table and the errors are those of reading the files
// one after the other: the first file in the given order that fails names
// the failure.
#ifndef TD_RUNTIME_JOB_JOB_LOADER_H_
#define TD_RUNTIME_JOB_JOB_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/job/job_file.h"
#include "runtime/analysis/analysis_pipeline.h"

namespace td {

// `threads` 0: one per CPU, at most 8 (and no more than there are files).
absl::StatusOr<JobTable> LoadJobFiles(const std::vector<std::string>& files, const AnalysisSettings& settings,
                                      unsigned threads = 0);

}  // namespace td

#endif  // TD_RUNTIME_JOB_JOB_LOADER_H_

// Two MPI jobs side by side (td compare JOB_A JOB_B: two builds, two rank
// counts, before and after a fix): per region path of either job, in A's
// order then B's new ones, each job's rank count, mean and max wall time over
// its ranks, imbalance and slowest rank, the speedup A mean / B mean, and,
// where both jobs' MPI calls were timed, the POP scalability metrics, strong
// or weak, split by instructions and IPC where both jobs counted them
// (docs/hpc.md#scalability-between-two-rank-counts). A region only one job
// ran says so instead of a speedup.
#ifndef TD_RUNTIME_JOB_JOB_COMPARE_H_
#define TD_RUNTIME_JOB_JOB_COMPARE_H_

#include <cstddef>
#include <optional>
#include <string>

#include "nlohmann/json.hpp"
#include "runtime/job/job_view.h"

namespace td {

// Strong scaling: both jobs solve the same problem; weak scaling (--weak):
// the problem grows with the ranks, so each rank's share stays the same.
enum class Scaling { kStrong, kWeak };
const char* ScalingName(Scaling scaling);  // "strong", "weak"

// POP scalability between the two jobs' runs of one region. The reference
// is the job with fewer ranks (A when both have as many): its computation
// scalability is 1 by definition. Useful time is a rank's wall time in the
// region minus its MPI time (job_metrics.h).
struct Scalability {
  Scaling scaling = Scaling::kStrong;
  size_t a_ranks = 0, b_ranks = 0;       // ranks with MPI times in the region
  double a_useful_ns = 0, b_useful_ns = 0;  // summed over those ranks
  // Strong: Σ useful of the reference / Σ useful of the other job, below 1
  // when the larger job does more work (or the same work slower) in the
  // region. Weak: the same of the means per rank, 1 when each rank does
  // its share in the same time.
  double computation_scalability = 1;
  // Parallel efficiency × computation scalability (the reference's own is 1).
  double a_global_efficiency = 1, b_global_efficiency = 1;
  // Where both jobs counted instructions and cycles in the region
  // (CountTotals): computation scalability = instruction × IPC × frequency
  // scalability. Instruction: Σ instructions of the reference / Σ of the
  // other (weak: the means per rank); IPC: the other's IPC / the
  // reference's (IPC = Σ instructions / Σ cycles); frequency: the rest.
  struct Counts {
    CountTotals a, b;
    double a_ipc = 0, b_ipc = 0;
    double instruction_scalability = 1, ipc_scalability = 1, frequency_scalability = 1;
  };
  std::optional<Counts> counts;
};

// Whether A is the reference: it has no more ranks present than B.
bool ReferenceIsA(const JobView& a, const JobView& b);

// Of the region in both jobs; none where either has no MPI times on rows
// (no libtd-mpi, or a job file without per-rank rows) or no useful time.
std::optional<Scalability> ScalabilityOf(const RegionAcrossRanks& a, const RegionAcrossRanks& b, bool reference_is_a,
                                         Scaling scaling = Scaling::kStrong);

std::string FormatJobComparisonText(const JobView& a, const JobView& b, Scaling scaling = Scaling::kStrong);
// One row per region: path, then for a and b ranks, wall mean and max (ns),
// imbalance, slowest rank; then speedup (empty when a job lacks the region),
// the reference ("a" or "b"), each job's useful time and parallel
// efficiency, computation scalability and each job's global efficiency;
// then the scaling ("strong" or "weak"), instruction, IPC and frequency
// scalability and each job's IPC (empty where not known).
std::string FormatJobComparisonCsv(const JobView& a, const JobView& b, Scaling scaling = Scaling::kStrong);
// {"a": job, "b": job, "reference": "a" | "b", "scaling": "strong" |
// "weak", "scalability": the (program) region's or null, "regions": [{path,
// a, b, speedup, scalability}]}; docs/json-schema.md.
nlohmann::json JobComparisonJson(const JobView& a, const JobView& b, Scaling scaling = Scaling::kStrong);

}  // namespace td

#endif  // TD_RUNTIME_JOB_JOB_COMPARE_H_

// Two MPI jobs side by side (td compare JOB_A JOB_B: two builds, two rank
// counts, before and after a fix): per region path of either job, in A's
// order then B's new ones, each job's rank count, mean and max wall time over
// its ranks, imbalance and slowest rank, the speedup A mean / B mean, and,
// where both jobs' MPI calls were timed, the POP scalability metrics
// (docs/hpc.md#scalability-between-two-rank-counts). A region only one job ran says so
// instead of a speedup.
#ifndef TD_RUNTIME_JOB_JOB_COMPARE_H_
#define TD_RUNTIME_JOB_JOB_COMPARE_H_

#include <cstddef>
#include <optional>
#include <string>

#include "nlohmann/json.hpp"
#include "runtime/job/job_view.h"

namespace td {

// Strong scaling between the two jobs' runs of one region. The reference is
// the job with fewer ranks (A when both have as many): its computation
// scalability is 1 by definition. Useful time is a rank's wall time in the
// region minus its MPI time (job_metrics.h).
struct Scalability {
  size_t a_ranks = 0, b_ranks = 0;       // ranks with MPI times in the region
  double a_useful_ns = 0, b_useful_ns = 0;  // summed over those ranks
  // Σ useful of the reference / Σ useful of the other job: below 1 when the
  // larger job does more work (or the same work slower) in the region.
  double computation_scalability = 1;
  // Parallel efficiency × computation scalability (the reference's own is 1).
  double a_global_efficiency = 1, b_global_efficiency = 1;
};

// Whether A is the reference: it has no more ranks present than B.
bool ReferenceIsA(const JobView& a, const JobView& b);

// Of the region in both jobs; none where either has no MPI times on rows
// (no libtd-mpi, or a job file without per-rank rows) or no useful time.
std::optional<Scalability> ScalabilityOf(const RegionAcrossRanks& a, const RegionAcrossRanks& b,
                                         bool reference_is_a);

std::string FormatJobComparisonText(const JobView& a, const JobView& b);
// One row per region: path, then for a and b ranks, wall mean and max (ns),
// imbalance, slowest rank; then speedup (empty when a job lacks the region),
// the reference ("a" or "b"), each job's useful time and parallel
// efficiency, computation scalability and each job's global efficiency
// (empty where not known).
std::string FormatJobComparisonCsv(const JobView& a, const JobView& b);
// {"a": job, "b": job, "reference": "a" | "b", "scalability": the
// (program) region's or null, "regions": [{path, a, b, speedup,
// scalability}]}; docs/json-schema.md.
nlohmann::json JobComparisonJson(const JobView& a, const JobView& b);

}  // namespace td

#endif  // TD_RUNTIME_JOB_JOB_COMPARE_H_

// `td run --passes`: one run of the program per share of the counter groups,
// merged by region path into one recording, as if every group had counted at
// once. Events that every pass recorded (the software group; cycles and
// instructions when each pass has them) show whether the runs were alike.
#ifndef TD_RUNTIME_RECORDED_MERGE_PASSES_H_
#define TD_RUNTIME_RECORDED_MERGE_PASSES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/recorded/run_data.h"

namespace td {

struct PassSpread {
  std::string region;  // path
  std::string event;
  double min = 0;
  double max = 0;
  double mean = 0;
  double Relative() const { return mean > 0 ? (max - min) / mean : 0; }
};

struct MergedPasses {
  RunData run;
  std::vector<PassSpread> spread;  // per region and common event, largest first
};

// Pass 1 gives the program, machine, wall times and calls; every pass adds
// the groups the earlier ones lack. A region or thread a pass did not see
// has that pass's groups "not measured" (time running 0), never 0 counts.
absl::StatusOr<MergedPasses> MergePasses(const std::vector<RunData>& passes);

}  // namespace td

#endif  // TD_RUNTIME_RECORDED_MERGE_PASSES_H_

// Folds every thread's call-path tree into RunData regions, matched by path.
#ifndef TD_RUNTIME_MODEL_MERGE_THREADS_H_
#define TD_RUNTIME_MODEL_MERGE_THREADS_H_

#include <string>
#include <vector>

#include "runtime/regions/thread_state.h"
#include "runtime/model/run_data.h"

namespace td {

// Fills data->threads and data->regions. `layout` must be the layout the
// threads counted with; `names` maps region ids to names.
void MergeThreads(const std::vector<const ThreadState*>& threads,
                  const std::vector<std::string>& names, RunData* data,
                  const std::vector<std::optional<RegionRegistry::Parameter>>& parameters = {});

}  // namespace td

#endif  // TD_RUNTIME_MODEL_MERGE_THREADS_H_

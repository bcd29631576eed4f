// Folds every thread's call-path tree into RunData regions, matched by path.
#ifndef TD_RUNTIME_RECORDED_MERGE_THREADS_H_
#define TD_RUNTIME_RECORDED_MERGE_THREADS_H_

#include <string>
#include <vector>

#include "runtime/recorded/run_data.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/thread_record.h"

namespace td {

// Fills data->threads and data->regions. `layout` must be the layout the
// threads counted with; `names` maps region ids to names.
void MergeThreads(const std::vector<ThreadRecord>& threads,
                  const std::vector<std::string>& names, RunData* data,
                  const std::vector<std::optional<RegionRegistry::Parameter>>& parameters = {});

}  // namespace td

#endif  // TD_RUNTIME_RECORDED_MERGE_THREADS_H_

// Finding a region of a recorded run by what a user typed (--region), and the
// one line that says it is not there: the same for td report and td compare.
#ifndef TD_TOOLS_TD_REGION_LOOKUP_H_
#define TD_TOOLS_TD_REGION_LOOKUP_H_

#include <string>

#include "runtime/recorded/run_data.h"

namespace td::tool {

// The region whose path is `wanted`, else the one region named `wanted`;
// -1 when there is none, or several of that name.
int FindRegion(const RunData& run, const std::string& wanted);

// Whether some region's path or name is `wanted` (td report shows them all).
bool NamesARegion(const RunData& run, const std::string& wanted);

// "FILE: no region "X"; did you mean Y?" when a path or name is a likely
// typo of X, else "FILE: no region "X"; the nearest is Y"; or, when X is
// the name of several regions (FindRegion's other -1), that its path is needed.
std::string NoRegion(const std::string& file, const RunData& run, const std::string& wanted);

}  // namespace td::tool

#endif  // TD_TOOLS_TD_REGION_LOOKUP_H_

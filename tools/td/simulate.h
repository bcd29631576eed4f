// `td run --simulate`: the program runs under td's Valgrind tool, tdsim,
// with TD_BACKEND=simulate (docs/simulate.md).
#ifndef TD_TOOLS_TD_SIMULATE_H_
#define TD_TOOLS_TD_SIMULATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/machine/cache_geometry.h"

namespace td::tool {

// The folder holding tdsim-amd64-linux and Valgrind's support files (beside
// this td when installed, else the build tree's), or why there is none.
absl::StatusOr<std::string> FindToolFolder();

// The command that runs `program` under tdsim, and the environment it needs
// set (VALGRIND_LIB, TD_BACKEND=simulate) in `env` as NAME=VALUE; the cache
// options come from `caches` ("" leaves the tool's default), valgrind from `path_list` (PATH's value).
absl::StatusOr<std::vector<std::string>> SimulatedCommand(const std::vector<std::string>& program,
                                                          const CacheGeometry& caches, const std::string& path_list,
                                                          std::vector<std::string>* env);

}  // namespace td::tool

#endif  // TD_TOOLS_TD_SIMULATE_H_

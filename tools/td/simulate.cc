#include "tools/td/simulate.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "tools/td/compat_preload.h"

namespace td::tool {

absl::StatusOr<std::string> FindToolFolder() {
  const std::string from_bindir = TD_TDSIM_FROM_BINDIR;
  const std::string built = TD_TDSIM_BUILD_DIR;
  if (from_bindir.empty() && built.empty()) {
    return absl::NotFoundError("this td was built without tdsim (CMake found no Valgrind tool archives)");
  }
  std::vector<std::filesystem::path> candidates;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && !from_bindir.empty()) candidates.push_back(self.parent_path() / from_bindir);
  if (!built.empty()) candidates.emplace_back(built);
  std::string looked;
  for (const auto& folder : candidates) {
    const std::filesystem::path tool = folder.lexically_normal() / "tdsim-amd64-linux";
    if (access(tool.c_str(), X_OK) == 0) return folder.lexically_normal().string();
    looked += (looked.empty() ? "" : ", ") + tool.string();
  }
  return absl::NotFoundError(absl::StrFormat("td's Valgrind tool is not installed (looked for %s)", looked));
}

absl::StatusOr<std::vector<std::string>> SimulatedCommand(const std::vector<std::string>& program,
                                                          const CacheGeometry& caches, const std::string& path_list,
                                                          std::vector<std::string>* env) {
  const std::string valgrind = FindProgram("valgrind", path_list);
  if (valgrind.empty()) return absl::NotFoundError("--simulate needs valgrind on PATH (install valgrind)");
  auto folder = FindToolFolder();
  if (!folder.ok()) return folder.status();
  env->push_back("VALGRIND_LIB=" + *folder);
  env->push_back("TD_BACKEND=simulate");
  std::vector<std::string> command = {valgrind, "--tool=tdsim", "-q"};
  if (!caches.l1i.empty()) command.push_back("--l1i=" + caches.l1i);
  if (!caches.l1d.empty()) command.push_back("--l1d=" + caches.l1d);
  if (!caches.last_level.empty()) command.push_back("--ll=" + caches.last_level);
  command.insert(command.end(), program.begin(), program.end());
  return command;
}

}  // namespace td::tool

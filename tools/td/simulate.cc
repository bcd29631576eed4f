#include "tools/td/simulate.h"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "tools/td/compat_preload.h"

namespace td::tool {
namespace {

std::string ReadLine(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return std::string(absl::StripAsciiWhitespace(line));
}

uint64_t ReadNumber(const std::filesystem::path& file) {
  uint64_t n = 0;
  return absl::SimpleAtoi(ReadLine(file), &n) ? n : 0;
}

}  // namespace

CacheGeometry ReadCacheGeometry(const std::string& cache_dir) {
  CacheGeometry geometry;
  int last_level = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, error)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const int level = static_cast<int>(ReadNumber(entry.path() / "level"));
    const std::string type = ReadLine(entry.path() / "type");
    const uint64_t sets = ReadNumber(entry.path() / "number_of_sets");
    const uint64_t ways = ReadNumber(entry.path() / "ways_of_associativity");
    const uint64_t line = ReadNumber(entry.path() / "coherency_line_size");
    if (level == 0 || sets == 0 || ways == 0 || line == 0) continue;  // a VM may leave some out
    // The size from sets × ways × line: what the tool checks it against.
    const std::string spec = absl::StrFormat("%d,%d,%d", sets * ways * line, ways, line);
    if (level == 1 && type == "Data") geometry.l1d = spec;
    if (level == 1 && type == "Instruction") geometry.l1i = spec;
    if (level > 1 && type == "Unified" && level > last_level) {
      geometry.ll = spec;
      last_level = level;
    }
  }
  return geometry;
}

absl::StatusOr<std::string> FindToolFolder() {
  std::vector<std::filesystem::path> candidates;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) candidates.push_back(self.parent_path() / TD_TDSIM_FROM_BINDIR);
  if (std::string(TD_TDSIM_BUILD_DIR).empty() && candidates.empty()) {
    return absl::NotFoundError("this td was built without tdsim (CMake found no Valgrind tool archives)");
  }
  if (!std::string(TD_TDSIM_BUILD_DIR).empty()) candidates.emplace_back(TD_TDSIM_BUILD_DIR);
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
  if (!caches.ll.empty()) command.push_back("--ll=" + caches.ll);
  command.insert(command.end(), program.begin(), program.end());
  return command;
}

}  // namespace td::tool

#include "runtime/machine/cache_geometry.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <system_error>

#include "absl/strings/str_format.h"
#include "runtime/machine/kernel_files.h"

namespace td {

CacheGeometry ReadCacheGeometry(const std::string& cache_dir) {
  CacheGeometry geometry;
  int64_t last_level = 0;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(cache_dir, error)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const std::string dir = entry.path().string();
    const int64_t level = ReadIntegerFile(dir + "/level").value_or(0);
    const int64_t sets = ReadIntegerFile(dir + "/number_of_sets").value_or(0);
    const int64_t ways = ReadIntegerFile(dir + "/ways_of_associativity").value_or(0);
    const int64_t line = ReadIntegerFile(dir + "/coherency_line_size").value_or(0);
    const std::string type = ReadFirstLine(dir + "/type").value_or("");
    if (level <= 0 || sets <= 0 || ways <= 0 || line <= 0) continue;
    // The size from its parts rather than "size" ("32K"): the simulator
    // checks that the three agree.
    const std::string spec = absl::StrFormat("%d,%d,%d", sets * ways * line, ways, line);
    if (level == 1 && type == "Data") geometry.l1d = spec;
    if (level == 1 && type == "Instruction") geometry.l1i = spec;
    if (level > 1 && type == "Unified" && level > last_level) {
      geometry.last_level = spec;
      last_level = level;
    }
  }
  return geometry;
}

}  // namespace td

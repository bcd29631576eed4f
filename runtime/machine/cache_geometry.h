// This machine's caches as Linux describes them in sysfs
// (/sys/devices/system/cpu/cpu0/cache/index*), for td's cache simulator
// (`td run --simulate`, docs/simulate.md).
#ifndef TD_RUNTIME_MACHINE_CACHE_GEOMETRY_H_
#define TD_RUNTIME_MACHINE_CACHE_GEOMETRY_H_

#include <string>

namespace td {

inline constexpr char kCpu0CacheDir[] = "/sys/devices/system/cpu/cpu0/cache";

// Each cache as "BYTES,WAYS,LINE" (bytes = sets × ways × line); "" where
// sysfs does not describe it.
struct CacheGeometry {
  std::string l1i;
  std::string l1d;
  std::string last_level;  // the highest level of type Unified above 1
};

// Reads the index* folders of `cache_dir`; entries without a level, set
// count, ways or line size (some hypervisors leave fields out) are skipped.
CacheGeometry ReadCacheGeometry(const std::string& cache_dir = kCpu0CacheDir);

}  // namespace td

#endif  // TD_RUNTIME_MACHINE_CACHE_GEOMETRY_H_

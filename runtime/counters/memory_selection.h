// Memory traffic per region. Memory-controller PMUs (Intel uncore_imc, AMD
// UMC / data fabric) count a whole socket and only system-wide (pid -1, one
// CPU of the PMU's cpumask), so td opens them once, on the first thread that
// records a region, and each region gets the socket's bytes during its time
// window on that thread. When they cannot be opened, the per-thread estimate
// (last-level-cache misses × 64 B, the DRAM_Read_Bytes metric) is counted
// instead and labelled as such.
#ifndef TD_RUNTIME_COUNTERS_MEMORY_SELECTION_H_
#define TD_RUNTIME_COUNTERS_MEMORY_SELECTION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/counters/backend.h"
#include "runtime/uarch/memory_model.h"

namespace td {

enum class MemoryMode { kAuto, kSocket, kEstimate, kOff };  // TD_MEMORY

struct SocketCounters {
  std::vector<std::vector<EventInfo>> groups;  // one per PMU instance and socket CPU
  std::string description;                     // e.g. "uncore_imc_0..5 on 2 sockets"
};

// The first controller of `model` present under `sysfs_devices`, resolved:
// type and fields from sysfs, aliases from events/ (with their .scale and
// .unit for bytes per count). NotFound when none is present; other errors
// name the PMU and the problem.
absl::StatusOr<SocketCounters> ResolveSocketCounters(const MemoryModel& model, const std::string& sysfs_devices);

// "0,28" / "0-3,8" → CPU numbers.
std::vector<int> ParseCpuList(const std::string& text);

// Whether this process may count system-wide: root, CAP_PERFMON or
// CAP_SYS_ADMIN, or perf_event_paranoid ≤ 0.
bool SystemWideCountingPermitted(int perf_event_paranoid);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_MEMORY_SELECTION_H_

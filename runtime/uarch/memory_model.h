// Where a microarchitecture's memory traffic can be counted, as the
// definition files describe it ("memory" object, family-wide with per-uarch
// overrides): the memory-controller PMUs that count the whole socket. (The
// per-thread estimate used when they cannot be opened is the DRAM_Read_Bytes
// formula of the same files.)
#ifndef TD_RUNTIME_UARCH_MEMORY_MODEL_H_
#define TD_RUNTIME_UARCH_MEMORY_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace td {

struct MemoryEventDefinition {
  std::string traffic;         // "read", "write" or "total"
  std::string terms;           // sysfs alias ("cas_count_read") or terms ("event=0x0a,rdwrmask=1")
  double bytes_per_count = 64;  // used when sysfs gives no .scale/.unit for an alias
};

struct MemoryControllerDefinition {
  std::string pmu;  // sysfs PMU name; a trailing "*" matches "<prefix><number>" instances
  std::string description;
  std::vector<MemoryEventDefinition> events;
  bool separate_groups = false;  // more events than the PMU has counters: one group each
};

struct MemoryModel {
  std::vector<MemoryControllerDefinition> controllers;  // the first one present and usable is used
};

// Reads a "memory" object; errors name the field.
absl::Status ParseMemoryModel(const nlohmann::json& j, MemoryModel* model);

}  // namespace td

#endif  // TD_RUNTIME_UARCH_MEMORY_MODEL_H_

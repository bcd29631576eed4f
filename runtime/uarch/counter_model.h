// A core PMU's counters as the definition files describe them ("counters"
// object, family-wide with per-uarch overrides): how many general-purpose and
// fixed counters, which events only some counters accept, and the topdown
// metrics group. The group planner schedules against it.
#ifndef TD_RUNTIME_UARCH_COUNTER_MODEL_H_
#define TD_RUNTIME_UARCH_COUNTER_MODEL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace td {

struct CounterRestriction {
  std::vector<std::pair<uint32_t, uint32_t>> codes;  // event-code ranges (config & 0xff), inclusive
  std::vector<uint32_t> configs;         // exact event | umask << 8 (config & 0xffff)
  std::vector<uint32_t> except_configs;  // exempt from `codes`
  std::vector<int> counters;             // general-purpose counters allowed
  std::string note;
};

struct CounterModel {
  int general = 0;              // general-purpose counters per logical CPU, SMT on
  int general_without_smt = 0;  // when SMT is off (0: same as `general`)
  // fixed[i] is the event | umask << 8 that fixed counter i counts.
  std::vector<uint32_t> fixed;
  // Pseudo encodings that exist only on their fixed counter (REF_TSC, SLOTS).
  std::vector<uint32_t> fixed_only;
  uint64_t cycles = 0;        // what perf's "cycles" means on this PMU (and the NMI watchdog uses)
  uint64_t instructions = 0;  // what perf's "instructions" means
  std::vector<CounterRestriction> restrictions;
  // AMD large-increment events: an even counter plus its odd neighbour.
  std::vector<uint32_t> paired_codes;  // 12-bit AMD event selects
  // Ice Lake+: the metric pseudo events must sit in a group led by `leader`.
  uint64_t metrics_leader = 0;
  std::pair<uint64_t, uint64_t> metrics_members{0, 0};  // config range, inclusive

  bool known() const { return general > 0; }
  bool IsMetricsMember(uint64_t config) const {
    return metrics_leader != 0 && config >= metrics_members.first && config <= metrics_members.second;
  }
};

// Reads a "counters" object; errors name the field.
absl::Status ParseCounterModel(const nlohmann::json& j, CounterModel* model);

}  // namespace td

#endif  // TD_RUNTIME_UARCH_COUNTER_MODEL_H_

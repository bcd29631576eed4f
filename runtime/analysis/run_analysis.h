// Top-Down analysis of every region of a recorded run.
#ifndef TD_RUNTIME_ANALYSIS_RUN_ANALYSIS_H_
#define TD_RUNTIME_ANALYSIS_RUN_ANALYSIS_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/recorded/run_data.h"
#include "runtime/uarch/definitions.h"

namespace td {

struct RunAnalysis {
  std::string uarch;        // key used; "" when none could be chosen
  std::string tma_version;  // the TMA release of its formulas, when its definitions say ("5.2")
  std::string unavailable;  // why there is no tree (no hardware counts, unknown CPU…)
  std::string unknown_cpu;  // set when the CPU is not in the definitions ("generic" Level 1)
  std::vector<TopDownResult> regions;  // parallel to RunData::regions (inclusive counts)
  // Exclusive counts (minus nested regions); empty results for regions
  // without children, whose exclusive counts equal their inclusive ones.
  std::vector<TopDownResult> exclusive;
  std::optional<double> peak_gbps;     // the bandwidth the diagnoses compared against
  // Hybrid recordings: the core type these trees are for ("cpu_core"; "" when
  // the recording has one core PMU), and the other core types' own analyses.
  std::string core_type;
  std::vector<RunAnalysis> other_core_types;

  bool HasTrees() const { return unavailable.empty(); }
};

// `uarch_override` (TD_UARCH or --uarch) wins over the recorded CPU;
// `peak_gbps` is the recording machine's calibrated bandwidth, if known.
RunAnalysis AnalyzeRun(const RunData& data, const DefinitionLibrary& library,
                       const std::string& uarch_override,
                       std::optional<double> peak_gbps = std::nullopt);

// A region's count of each recorded event, summed over threads, each
// thread's count scaled by its group's time_enabled / time_running.
// nullopt for an event no thread measured.
std::optional<double> ScaledRegionCount(const RunData& data, const Region& region,
                                        size_t event_index, bool exclusive = false);

// The recorded event `name` names: itself, or for "instructions" and
// "cycles" the event that counts them on the run's PMU (or the simulator),
// so that a rule or a comparison holds for runs of any backend.
std::optional<size_t> EventNamed(const RunData& data, const std::string& name);

// Memory-controller bytes of the region's time window (socket-wide, from the
// events with a cpu and bytes_per_count) as metrics Socket_Read_Bytes,
// Socket_Write_Bytes and Socket_Memory_Bytes; nothing when none was counted.
void AddSocketTraffic(const RunData& data, const Region& region, bool exclusive, TopDownResult* result);

// Σ running / Σ enabled of `group` over the region's threads: the share of
// the region's time the group was counted. nullopt when no thread had it
// enabled; 0 when enabled but never counted.
std::optional<double> GroupCoverage(const Region& region, size_t group);

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_RUN_ANALYSIS_H_

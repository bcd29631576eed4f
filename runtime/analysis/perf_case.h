// Counts printed by perf stat (or LIKWID) on some machine, and the metrics
// td computes from them: the "case" format of docs/analysis.md.
#ifndef TD_RUNTIME_ANALYSIS_PERF_CASE_H_
#define TD_RUNTIME_ANALYSIS_PERF_CASE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/uarch/definitions.h"

namespace td {

struct PrintedCount {
  std::string event;   // normalized
  std::string printed; // as printed
  std::optional<double> value;  // nullopt: <not counted>
  int group = 0;
  std::string pmu;     // "" when unknown
};

struct WantedMetric {
  std::string metric;  // canonical node name, or Event_Rate_Per_Sec[event]
  int group = 0;
  std::string pmu;
  // Filled from an expected value when the case has one.
  std::optional<double> expected;
  double tolerance = 0;
  bool reproducible = true;
};

struct PerfCase {
  std::string id;
  std::string uarch;  // "": picked from cpuid
  std::string cpuid;  // as perf's mapfile spells it (DefinitionLibrary::IdentifyCpuid); "" when not given
  std::string formula_family;  // F1 … F6, other, LIKWID; "" when unknown
  std::optional<bool> smt;     // SMT active on the measured machine, when known
  // Arm core revision (variant × 16 + revision, r0p3 = 3), from "cpu_revision"
  // or "midr" ("0x410fd493", perf's cpuid); sets the formulas' CPU_Revision.
  std::optional<int> cpu_revision;
  std::optional<int> sockets;  // sockets of the measured machine ("sockets"); sets Sockets
  // the measured machine has persistent memory ("persistent_memory"); sets Has_PMEM
  std::optional<bool> persistent_memory;
  // The counts are whole cores' ("scope": "system-wide", perf stat -a): sets
  // Core_Wide, perf's #core_wide, so formulas take their core-wide form (the
  // per-thread one needs CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE and REF_XCLK).
  std::optional<bool> core_wide;
  std::vector<PrintedCount> counts;
  std::vector<WantedMetric> wanted;  // empty: compute every node
};

struct MetricAnswer {
  WantedMetric wanted;
  std::optional<double> value;  // nullopt: could not be computed
  std::string why_not;
  std::vector<std::string> notes;
};

absl::StatusOr<PerfCase> ParsePerfCase(const nlohmann::json& j);

// The key a case's counts are evaluated with: its "uarch", else the one its
// "cpuid" identifies (a hybrid part's P-core key when no count names a
// core PMU).
absl::StatusOr<std::string> CaseUarch(const PerfCase& c, const DefinitionLibrary& library);


// Evaluates each wanted metric with the counts of its own group, falling back
// to a single copy elsewhere (same group and pmu, same group, same pmu,
// anywhere; several different values left is an error).
absl::StatusOr<std::vector<MetricAnswer>> Recompute(const PerfCase& c,
                                                    const DefinitionLibrary& library);

// "perf stat -x," output (CSV: value,unit,event,run-time,percentage,...).
// Events are read as perf prints them, terms with commas included
// ("EXE_ACTIVITY.3_PORTS_UTIL,umask=0x80", "cpu/RS.EMPTY,umask=1/").
absl::StatusOr<PerfCase> ParsePerfStatCsv(const std::string& text, const std::string& uarch);

// The event of one split `perf stat -x,` line, its comma-separated terms
// joined back; `fields` then holds the event as one field. Exposed for tests.
std::string PerfCsvEventField(std::vector<std::string>& fields);

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_PERF_CASE_H_

// `td compare BASE NEW --fail-if RULE`: a regression gate for CI. A rule is
//
//   [SCOPE:]METRIC OP LIMIT
//
// SCOPE: a region's path (matmul/multiply1), or `total` (the run's top-level
// regions summed); none: every region both runs hold, matched by path.
// METRIC: wall, calls, any recorded event (instructions, task-clock,
// sim.instructions…), a Top-Down node (Backend_Bound, Memory_Bound…: its
// full or last name) or a metric of the tree (IPC…).
// OP `>` fails when NEW is above BASE by more than LIMIT; `<` when below.
// LIMIT: +1% / -5% (relative to BASE), +5pt (percentage points, for node
// fractions), or a plain number in the metric's unit (+1000).
#ifndef TD_RUNTIME_REPORT_REGRESSION_GATE_H_
#define TD_RUNTIME_REPORT_REGRESSION_GATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"

namespace td {

struct GateRule {
  std::string text;    // as given, for messages
  std::string scope;   // "" every shared region; "total"; else a region path
  std::string metric;
  bool above = true;   // '>': fail on a rise; '<': fail on a fall
  enum class Unit { kPercent, kPoints, kAbsolute } unit = Unit::kPercent;
  double limit = 0;    // the size of the allowed change (≥ 0)
};

absl::StatusOr<GateRule> ParseGateRule(const std::string& text);

struct GateRun {
  const RunData* data;
  const RunAnalysis* analysis;
};

struct GateResult {
  std::vector<std::string> crossed;  // one line each: where, the two values, the change, the limit
  std::vector<std::string> problems; // rules that could not be checked (a metric neither run has…)
  int checks = 0;                    // (region, rule) pairs compared
  bool passed() const { return crossed.empty() && problems.empty(); }
};

// A rule that can be checked nowhere is a problem, and fails the gate: a CI
// job whose gate measures nothing must not pass.
GateResult CheckGate(const std::vector<GateRule>& rules, const GateRun& base, const GateRun& candidate);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_REGRESSION_GATE_H_

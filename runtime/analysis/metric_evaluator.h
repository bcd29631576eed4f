// Evaluates a MetricSet's nodes against a source of event counts.
#ifndef TD_RUNTIME_ANALYSIS_METRIC_EVALUATOR_H_
#define TD_RUNTIME_ANALYSIS_METRIC_EVALUATOR_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/uarch/expression.h"
#include "runtime/uarch/definitions.h"

namespace td {

// Gives an event's count, trying its spellings in order (the formula's own
// spelling first). nullopt when not measured. A lookup that cannot decide
// (several different copies) reports through `error`.
using CountLookup = std::function<std::optional<double>(const std::vector<std::string>& spellings,
                                                       std::string* error)>;

struct EvaluationOptions {
  // optional(...) correction terms are used when their events were collected.
  // Off reproduces tools that never had them (perf 5.10–6.2 on Ice Lake+).
  bool use_optional_terms = true;
  // Values that replace a definition's constants (SMT_on from the machine).
  absl::flat_hash_map<std::string, double> constants;
};

class MetricEvaluator {
 public:
  MetricEvaluator(const MetricSet& set, CountLookup lookup, EvaluationOptions options = {});

  // A node, auxiliary, constant or event by name; memoised.
  Value Evaluate(const std::string& name);

  // What happened along the way: dropped correction terms, chosen
  // alternatives other than the first, lookup errors.
  const std::vector<std::string>& notes() const { return notes_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  Value EvaluateDefinition(const FormulaDefinition& def);
  Value EvaluateEvent(const std::string& name);
  void Note(std::string note);

  const MetricSet& set_;
  CountLookup lookup_;
  EvaluationOptions options_;
  absl::flat_hash_map<std::string, Value> memo_;
  std::vector<std::string> in_progress_;
  std::vector<std::string> notes_;
  std::vector<std::string> errors_;
};

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_METRIC_EVALUATOR_H_

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

// Notes that begin so mark a value built on an estimate ("estimated: static
// retire latency: …"); the tree copies what follows into TreeNode::estimated.
inline constexpr char kEstimatedNotePrefix[] = "estimated: ";
// Notes that begin so mark a value computed with an older version's formula
// ("formula of TMA 4.8 (perf 6.12): …"); the tree copies the version into
// TreeNode::formula_version.
inline constexpr char kOlderFormulaNotePrefix[] = "formula of TMA ";

struct EvaluationOptions {
  // optional(...) correction terms are used when their events were collected.
  // Off reproduces tools that never had them (perf 5.10–6.2 on Ice Lake+).
  bool use_optional_terms = true;
  // Values that replace a definition's constants (SMT_on from the machine).
  absl::flat_hash_map<std::string, double> constants;
  // Events that did not open on the machine that recorded (name -> errno
  // name): a node missing one says so rather than "not measured".
  absl::flat_hash_map<std::string, std::string> not_opened;
};

class MetricEvaluator {
 public:
  MetricEvaluator(const MetricSet& set, CountLookup lookup, EvaluationOptions options = {});

  // A node, auxiliary, constant or event by name; memoised.
  Value Evaluate(const std::string& name);

  // What evaluating one name met along the way — its terms' notes and errors
  // included, also those of terms an earlier evaluation left in the memo —
  // so that many metrics can share one evaluator and still each get their own.
  struct Trail {
    std::vector<std::string> notes;
    std::vector<std::string> errors;
  };
  Value Evaluate(const std::string& name, Trail* trail);

  // What happened along the way, over every evaluation: dropped correction
  // terms, chosen alternatives other than the first, lookup errors.
  const std::vector<std::string>& notes() const { return notes_; }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  struct Memoized {
    Value value;
    Trail trail;
  };
  Value EvaluateDefinition(const FormulaDefinition& def);
  Value EvaluateEvent(const std::string& name);
  bool IsRetireLatency(const std::string& name) const;
  Value EvaluateRetireLatency(const std::string& name);
  void Note(std::string note);
  void Error(std::string error);

  const MetricSet& set_;
  CountLookup lookup_;
  EvaluationOptions options_;
  absl::flat_hash_map<std::string, Memoized> memo_;
  std::vector<std::string> in_progress_;
  std::vector<Trail> frames_;  // one per name being evaluated, innermost last
  std::vector<std::string> notes_;
  std::vector<std::string> errors_;
};

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_METRIC_EVALUATOR_H_

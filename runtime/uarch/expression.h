// Metric formulas: parsing and evaluation.
//
// Grammar (Python-like, as TMA and perf write their formulas):
//   expr    := or ["if" or "else" expr]
//   or      := and {"or" and}        and := not {"and" not}     not := ["not"] cmp
//   cmp     := sum [("<"|"<="|">"|">="|"=="|"!=") sum]
//   sum     := product {("+"|"-") product}
//   product := unary {("*"|"/") unary}
//   unary   := ["-"] primary
//   primary := number | name | name "(" expr {"," expr} ")" | "(" expr ")"
// Names are events ("INT_MISC.RECOVERY_CYCLES:c1:e", or "branch-misses": a '-'
// between two letters belongs to the name, so subtraction is written with
// spaces), nodes ("Frontend_Bound"),
// auxiliaries ("#Recovery_Cycles") or constants. Functions: min, max, abs,
// d_ratio(a, b), and optional(x) — x, or 0 when x needs something not measured.
// Division by zero yields 0, as perf's d_ratio does; 0 / 0 also marks the
// value "no samples" (perf: NaN), and so does arithmetic on such a value.
#ifndef TD_RUNTIME_UARCH_EXPRESSION_H_
#define TD_RUNTIME_UARCH_EXPRESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace td {

// A value, or "not measured" with the first missing name.
struct Value {
  double number = 0;
  bool measured = true;
  std::string missing;  // the name that was not measured
  // A 0 / 0 went into it: the number is 0, but there was nothing to count
  // (perf shows NaN); reports say "no samples" instead of 0 %.
  bool no_samples = false;

  static Value Of(double v, bool no_samples = false) { return {v, true, {}, no_samples}; }
  static Value Missing(std::string name) { return {0, false, std::move(name), false}; }
};

struct ExprNode;

class Expression {
 public:
  // Errors say what was expected, at which character, in which text.
  static absl::StatusOr<Expression> Parse(const std::string& text);

  // `resolve` gives the value of a name; `on_dropped` hears of each optional()
  // term that was dropped and why.
  using Resolver = std::function<Value(const std::string& name)>;
  using DropListener = std::function<void(const std::string& term, const std::string& missing)>;
  // With `use_optional` false every optional() term is 0.
  Value Evaluate(const Resolver& resolve, const DropListener& on_dropped = nullptr,
                 bool use_optional = true) const;

  // Every name the expression mentions, in order of first appearance.
  std::vector<std::string> Names() const;
  // The names it can need when `constants` gives the values it knows (a
  // Missing value for any other name): of a conditional whose condition
  // those decide, only the branch taken ("… if Has_PMEM > 0 else 0" needs
  // no event on a machine without persistent memory).
  std::vector<std::string> NamesGiven(const Resolver& constants) const;
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::shared_ptr<const ExprNode> root_;
};

}  // namespace td

#endif  // TD_RUNTIME_UARCH_EXPRESSION_H_

#include "runtime/uarch/expression.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <initializer_list>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "runtime/base/status_macros.h"

namespace td {

struct ExprNode {
  enum Kind { kNumber, kName, kUnary, kBinary, kCall, kConditional } kind;
  double number = 0;
  std::string text;  // name, operator or function
  std::vector<std::shared_ptr<const ExprNode>> args;
  std::string source;  // the text of this subexpression, for optional() notes
};

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  absl::StatusOr<NodePtr> ParseAll() {
    auto e = ParseExpr();
    if (!e.ok()) return e;
    SkipSpace();
    if (pos_ != s_.size()) return Error("end of formula");
    return e;
  }

 private:
  absl::Status Error(const std::string& expected) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("expected %s at character %d of \"%s\"", expected, pos_ + 1, s_));
  }
  void SkipSpace() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  static bool NameStart(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '#';
  }
  static bool NameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '#' ||
           c == ':';
  }
  // Reads a keyword only when it stands alone (not the start of a name).
  bool Keyword(const char* word) {
    SkipSpace();
    const size_t n = std::string(word).size();
    if (s_.compare(pos_, n, word) != 0) return false;
    if (pos_ + n < s_.size() && NameChar(s_[pos_ + n])) return false;
    pos_ += n;
    return true;
  }
  bool Symbol(const char* symbol) {
    SkipSpace();
    const size_t n = std::string(symbol).size();
    if (s_.compare(pos_, n, symbol) != 0) return false;
    pos_ += n;
    return true;
  }
  NodePtr Make(ExprNode::Kind kind, std::string text, std::vector<NodePtr> args, size_t from) {
    auto node = std::make_shared<ExprNode>();
    node->kind = kind;
    node->text = std::move(text);
    node->args = std::move(args);
    node->source = s_.substr(from, pos_ - from);
    return node;
  }

  absl::StatusOr<NodePtr> ParseExpr() {
    // Bounded so that hostile input cannot exhaust the stack.
    if (++depth_ > kMaxDepth) return Error("at most 100 nested levels");
    struct Leave {
      int* depth;
      ~Leave() { --*depth; }
    } leave{&depth_};
    SkipSpace();
    const size_t from = pos_;
    auto value = ParseOr();
    if (!value.ok()) return value;
    if (!Keyword("if")) return value;
    auto condition = ParseOr();
    if (!condition.ok()) return condition;
    if (!Keyword("else")) return Error("'else'");
    auto otherwise = ParseExpr();
    if (!otherwise.ok()) return otherwise;
    return Make(ExprNode::kConditional, "if", {*condition, *value, *otherwise}, from);
  }
  absl::StatusOr<NodePtr> ParseOr() { return ParseLeftAssociative({"or"}, &Parser::ParseAnd); }
  absl::StatusOr<NodePtr> ParseAnd() { return ParseLeftAssociative({"and"}, &Parser::ParseNot); }
  absl::StatusOr<NodePtr> ParseSum() {
    return ParseLeftAssociative({"+", "-"}, &Parser::ParseProduct);
  }
  absl::StatusOr<NodePtr> ParseProduct() {
    return ParseLeftAssociative({"*", "/"}, &Parser::ParseUnary);
  }
  // next {op next}: word operators must stand alone, symbols need not.
  absl::StatusOr<NodePtr> ParseLeftAssociative(std::initializer_list<const char*> ops,
                                               absl::StatusOr<NodePtr> (Parser::*next)()) {
    SkipSpace();
    const size_t from = pos_;
    auto left = (this->*next)();
    while (left.ok()) {
      const char* matched = nullptr;
      for (const char* op : ops) {
        if (std::isalpha(static_cast<unsigned char>(op[0])) ? Keyword(op) : Symbol(op)) {
          matched = op;
          break;
        }
      }
      if (matched == nullptr) break;
      // A chain of operators nests to the left as deep as it is long, and
      // what walks the tree recurses: bounded like the levels (a sum of
      // 20,000 terms overflowed the stack). TMA's longest formulas have
      // well under 200.
      if (++operators_ > kMaxOperators) return Error("at most 2000 operators");
      auto right = (this->*next)();
      if (!right.ok()) return right;
      left = Make(ExprNode::kBinary, matched, {*left, *right}, from);
    }
    return left;
  }
  absl::StatusOr<NodePtr> ParseNot() {
    return ParsePrefix("not", &Parser::ParseNot, &Parser::ParseComparison);
  }
  absl::StatusOr<NodePtr> ParseUnary() {
    return ParsePrefix("-", &Parser::ParseUnary, &Parser::ParsePrimary);
  }
  // [op] operand, where the operand may carry the operator again.
  absl::StatusOr<NodePtr> ParsePrefix(const char* op, absl::StatusOr<NodePtr> (Parser::*self)(),
                                      absl::StatusOr<NodePtr> (Parser::*next)()) {
    SkipSpace();
    const size_t from = pos_;
    if (!(std::isalpha(static_cast<unsigned char>(op[0])) ? Keyword(op) : Symbol(op))) {
      return (this->*next)();
    }
    if (++depth_ > kMaxDepth) return Error("at most 100 nested levels");
    auto inner = (this->*self)();
    --depth_;
    if (!inner.ok()) return inner;
    return Make(ExprNode::kUnary, op, {*inner}, from);
  }
  absl::StatusOr<NodePtr> ParseComparison() {
    SkipSpace();
    const size_t from = pos_;
    auto left = ParseSum();
    if (!left.ok()) return left;
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (Symbol(op)) {
        auto right = ParseSum();
        if (!right.ok()) return right;
        return Make(ExprNode::kBinary, op, {*left, *right}, from);
      }
    }
    return left;
  }
  absl::StatusOr<NodePtr> ParsePrimary() {
    SkipSpace();
    const size_t from = pos_;
    if (pos_ >= s_.size()) return Error("a number, a name or '('");
    if (Symbol("(")) {
      auto inner = ParseExpr();
      if (!inner.ok()) return inner;
      if (!Symbol(")")) return Error("')'");
      return inner;
    }
    const char c = s_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      char* end = nullptr;
      const double v = std::strtod(s_.c_str() + pos_, &end);
      if (end == s_.c_str() + pos_) return Error("a number");
      pos_ = static_cast<size_t>(end - s_.c_str());
      auto node = Make(ExprNode::kNumber, "", {}, from);
      std::const_pointer_cast<ExprNode>(node)->number = v;
      return node;
    }
    if (!NameStart(c)) return Error("a number, a name or '('");
    // A '-' directly between letters belongs to the name (perf's
    // "branch-misses"); subtraction is written with spaces.
    while (pos_ < s_.size() &&
           (NameChar(s_[pos_]) ||
            (s_[pos_] == '-' && pos_ + 1 < s_.size() &&
             std::isalpha(static_cast<unsigned char>(s_[pos_ + 1])) &&
             std::isalpha(static_cast<unsigned char>(s_[pos_ - 1]))))) {
      ++pos_;
    }
    std::string name = s_.substr(from, pos_ - from);
    if (!Symbol("(")) return Make(ExprNode::kName, name, {}, from);
    static const char* kFunctions[] = {"min", "max", "abs", "d_ratio", "optional"};
    bool known = false;
    for (const char* f : kFunctions) known |= name == f;
    if (!known) {
      pos_ = from;
      return Error("a function of min, max, abs, d_ratio, optional (not '" + name + "')");
    }
    std::vector<NodePtr> args;
    do {
      auto arg = ParseExpr();
      if (!arg.ok()) return arg;
      args.push_back(*arg);
    } while (Symbol(","));
    if (!Symbol(")")) return Error("')' or ','");
    const size_t want = name == "abs" || name == "optional" ? 1 : 2;
    if ((name == "min" || name == "max") ? args.size() < 2 : args.size() != want) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s() takes %s%d argument%s, got %d, in \"%s\"", name,
          (name == "min" || name == "max") ? "at least " : "", want, want == 1 ? "" : "s",
          args.size(), s_));
    }
    return Make(ExprNode::kCall, name, std::move(args), from);
  }

  static constexpr int kMaxDepth = 100;
  static constexpr int kMaxOperators = 2000;
  int operators_ = 0;
  const std::string& s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

double SafeDivide(double a, double b) { return b == 0 ? 0 : a / b; }

struct EvalContext {
  const Expression::Resolver& resolve;
  const Expression::DropListener& on_dropped;
  bool use_optional;
};

Value Eval(const ExprNode& n, const EvalContext& ctx) {
  switch (n.kind) {
    case ExprNode::kNumber:
      return Value::Of(n.number);
    case ExprNode::kName:
      return ctx.resolve(n.text);
    case ExprNode::kUnary: {
      Value v = Eval(*n.args[0], ctx);
      if (!v.measured) return v;
      if (n.text == "-") return Value::Of(-v.number, v.no_samples);
      return Value::Of(v.number == 0 ? 1 : 0);
    }
    case ExprNode::kConditional: {
      Value condition = Eval(*n.args[0], ctx);
      if (!condition.measured) return condition;
      return Eval(*n.args[condition.number != 0 ? 1 : 2], ctx);
    }
    case ExprNode::kCall: {
      if (n.text == "optional") {
        if (!ctx.use_optional) {
          if (ctx.on_dropped) ctx.on_dropped(n.args[0]->source, "not part of this formula set");
          return Value::Of(0);
        }
        Value v = Eval(*n.args[0], ctx);
        if (v.measured) return v;
        if (ctx.on_dropped) ctx.on_dropped(n.args[0]->source, v.missing);
        return Value::Of(0);
      }
      std::vector<double> xs;
      bool no_samples = false;
      for (const auto& arg : n.args) {
        Value v = Eval(*arg, ctx);
        if (!v.measured) return v;
        xs.push_back(v.number);
        no_samples |= v.no_samples;
      }
      if (n.text == "abs") return Value::Of(std::fabs(xs[0]), no_samples);
      if (n.text == "d_ratio") return Value::Of(SafeDivide(xs[0], xs[1]), no_samples || (xs[0] == 0 && xs[1] == 0));
      double r = xs[0];
      for (double x : xs) r = n.text == "min" ? std::min(r, x) : std::max(r, x);
      return Value::Of(r, no_samples);
    }
    case ExprNode::kBinary: {
      Value a = Eval(*n.args[0], ctx);
      if (!a.measured) return a;
      Value b = Eval(*n.args[1], ctx);
      if (!b.measured) return b;
      const double x = a.number, y = b.number;
      const std::string& op = n.text;
      const bool no_samples = a.no_samples || b.no_samples;
      if (op == "+") return Value::Of(x + y, no_samples);
      if (op == "-") return Value::Of(x - y, no_samples);
      if (op == "*") return Value::Of(x * y, no_samples);
      if (op == "/") return Value::Of(SafeDivide(x, y), no_samples || (x == 0 && y == 0));
      // Comparisons and logic give a plain truth value.
      if (op == "<") return Value::Of(x < y);
      if (op == "<=") return Value::Of(x <= y);
      if (op == ">") return Value::Of(x > y);
      if (op == ">=") return Value::Of(x >= y);
      if (op == "==") return Value::Of(x == y);
      if (op == "!=") return Value::Of(x != y);
      if (op == "and") return Value::Of(x != 0 && y != 0);
      return Value::Of(x != 0 || y != 0);  // or
    }
  }
  return Value::Of(0);
}

// With `constants`, a conditional whose condition they decide contributes
// the branch taken only.
void CollectNames(const ExprNode& n, std::vector<std::string>* names, const Expression::Resolver* constants = nullptr) {
  if (n.kind == ExprNode::kName) {
    for (const auto& existing : *names) {
      if (existing == n.text) return;
    }
    names->push_back(n.text);
  }
  if (n.kind == ExprNode::kConditional && constants != nullptr) {
    const Expression::DropListener none;
    const Value condition = Eval(*n.args[0], EvalContext{*constants, none, true});
    if (condition.measured) {
      CollectNames(*n.args[0], names, constants);
      CollectNames(*n.args[condition.number != 0 ? 1 : 2], names, constants);
      return;
    }
  }
  for (const auto& arg : n.args) CollectNames(*arg, names, constants);
}

}  // namespace

absl::StatusOr<Expression> Expression::Parse(const std::string& text) {
  Parser parser(text);
  Expression e;
  TD_ASSIGN_OR_RETURN(e.root_, parser.ParseAll());
  e.text_ = text;
  return e;
}

Value Expression::Evaluate(const Resolver& resolve, const DropListener& on_dropped,
                           bool use_optional) const {
  const EvalContext ctx{resolve, on_dropped, use_optional};
  return Eval(*root_, ctx);
}

std::vector<std::string> Expression::Names() const {
  std::vector<std::string> names;
  CollectNames(*root_, &names);
  return names;
}

std::vector<std::string> Expression::NamesGiven(const Resolver& constants) const {
  std::vector<std::string> names;
  CollectNames(*root_, &names, &constants);
  return names;
}

}  // namespace td

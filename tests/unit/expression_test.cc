#include "runtime/uarch/expression.h"

#include <map>

#include "gtest/gtest.h"

namespace td {
namespace {

Value Eval(const std::string& text, const std::map<std::string, double>& vars = {}) {
  auto e = Expression::Parse(text);
  EXPECT_TRUE(e.ok()) << e.status();
  if (!e.ok()) return Value::Missing("parse error");
  return e->Evaluate([&vars](const std::string& name) {
    auto it = vars.find(name);
    return it == vars.end() ? Value::Missing(name) : Value::Of(it->second);
  });
}

TEST(Expression, ArithmeticAndPrecedence) {
  EXPECT_DOUBLE_EQ(Eval("1 + 2 * 3").number, 7);
  EXPECT_DOUBLE_EQ(Eval("(1 + 2) * 3").number, 9);
  EXPECT_DOUBLE_EQ(Eval("10 - 4 - 3").number, 3);
  EXPECT_DOUBLE_EQ(Eval("-2 * -3").number, 6);
  EXPECT_DOUBLE_EQ(Eval("1 - 0.25 / 0.5").number, 0.5);
}

TEST(Expression, DivisionByZeroIsZero) {
  EXPECT_DOUBLE_EQ(Eval("5 / 0").number, 0);
  EXPECT_DOUBLE_EQ(Eval("d_ratio(5, 0)").number, 0);
  EXPECT_DOUBLE_EQ(Eval("d_ratio(6, 3)").number, 2);
}

TEST(Expression, FunctionsComparisonsConditionals) {
  EXPECT_DOUBLE_EQ(Eval("max(1, 7, 3)").number, 7);
  EXPECT_DOUBLE_EQ(Eval("min(4, 2)").number, 2);
  EXPECT_DOUBLE_EQ(Eval("abs(-3)").number, 3);
  EXPECT_DOUBLE_EQ(Eval("2 if 1 < 2 else 3").number, 2);
  EXPECT_DOUBLE_EQ(Eval("2 if 1 > 2 else 3").number, 3);
  EXPECT_DOUBLE_EQ(Eval("1 if 1 < 2 and not 0 else 0").number, 1);
  EXPECT_DOUBLE_EQ(Eval("1 if 0 or 2 >= 3 else 5").number, 5);
  EXPECT_DOUBLE_EQ(Eval("1 if 2 == 2 else 0").number, 1);
}

TEST(Expression, NamesWithDotsModifiersAndHyphens) {
  const std::map<std::string, double> vars = {{"INT_MISC.RECOVERY_CYCLES:c1:e", 10},
                                              {"branch-misses", 4},
                                              {"branches", 8},
                                              {"#Aux", 2}};
  EXPECT_DOUBLE_EQ(Eval("INT_MISC.RECOVERY_CYCLES:c1:e * #Aux", vars).number, 20);
  EXPECT_DOUBLE_EQ(Eval("branch-misses / branches", vars).number, 0.5);
  EXPECT_DOUBLE_EQ(Eval("branches - branch-misses", vars).number, 4);
  auto e = Expression::Parse("a + b.c * a");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->Names(), (std::vector<std::string>{"a", "b.c"}));
}

TEST(Expression, MissingValuesPropagateUnlessOptional) {
  const Value v = Eval("1 + nope", {});
  EXPECT_FALSE(v.measured);
  EXPECT_EQ(v.missing, "nope");
  auto e = Expression::Parse("x - optional(y / 2)");
  ASSERT_TRUE(e.ok());
  std::vector<std::string> dropped;
  const Value w = e->Evaluate(
      [](const std::string& n) { return n == "x" ? Value::Of(5) : Value::Missing(n); },
      [&dropped](const std::string& term, const std::string& missing) {
        dropped.push_back(term + "|" + missing);
      });
  EXPECT_TRUE(w.measured);
  EXPECT_DOUBLE_EQ(w.number, 5);
  EXPECT_EQ(dropped, (std::vector<std::string>{"y / 2|y"}));
  // Switched off, an optional term is 0 even when measured.
  const Value off = e->Evaluate([](const std::string&) { return Value::Of(4); }, nullptr, false);
  EXPECT_DOUBLE_EQ(off.number, 4);
}

TEST(Expression, ErrorsSayWhatAndWhere) {
  auto e = Expression::Parse("1 + * 2");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "expected a number, a name or '(' at character 5 of \"1 + * 2\"");
  e = Expression::Parse("(1 + 2");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("expected ')'"), std::string::npos);
  e = Expression::Parse("foo(1)");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("not 'foo'"), std::string::npos);
  e = Expression::Parse("min(1)");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("min() takes at least 2 arguments"), std::string::npos);
  e = Expression::Parse("1 if 2");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("'else'"), std::string::npos);
  e = Expression::Parse(std::string(5000, '(') + "1" + std::string(5000, ')'));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("at most 100 nested levels"), std::string::npos);
  e = Expression::Parse(std::string(5000, '-') + "1");
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(Expression::Parse(std::string(50, '(') + "1" + std::string(50, ')')).ok());
  // A long chain nests as deep as it is long: 20,000 terms overflowed the
  // stack of the code that walks the tree (the fuzz stage's large inputs).
  const auto sum_of = [](int terms) {
    std::string text = "A";
    for (int i = 1; i < terms; ++i) text += " + A";
    return text;
  };
  EXPECT_TRUE(Expression::Parse(sum_of(2001)).ok()) << "2,000 operators";
  e = Expression::Parse(sum_of(20000));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("at most 2000 operators"), std::string::npos);
  e = Expression::Parse("1 2");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("end of formula"), std::string::npos);
}

}  // namespace
}  // namespace td

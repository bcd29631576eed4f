// The Top-Down tree as text: the Level 1 bar.
#include "runtime/report/topdown_text.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(LevelOneBar, LettersInProportion) {
  TopDownResult r;
  for (const auto& [name, v] : std::vector<std::pair<std::string, double>>{
           {"Frontend_Bound", 0.1}, {"Bad_Speculation", 0.1}, {"Retiring", 0.3}, {"Backend_Bound", 0.5}}) {
    TreeNode n;
    n.name = name;
    n.level = 1;
    n.value = v;
    r.tree.push_back(n);
  }
  EXPECT_EQ(LevelOneBar(r, 10), "FSRRRBBBBB");
  EXPECT_EQ(LevelOneBar(r, 20).size(), 20u);
}

}  // namespace
}  // namespace td

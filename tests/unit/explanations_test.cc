// What each Top-Down node and diagnosis means (`td explain`, `--explain`).
#include "runtime/report/explanations.h"

#include "gtest/gtest.h"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/uarch/definitions.h"

namespace td {
namespace {

TEST(Explanations, EveryTreeNodeOfEveryUarchIsExplained) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  for (const std::string& uarch : library->Uarchs()) {
    auto set = library->ForUarch(uarch);
    ASSERT_TRUE(set.ok());
    for (const FormulaDefinition& node : set->nodes) {
      if (node.level > 0) EXPECT_NE(ExplanationFor(node.name), nullptr) << uarch << " " << node.name;
    }
  }
  for (const char* diagnosis : {"false_sharing", "stores_bound", "memory_bandwidth"}) {
    EXPECT_NE(ExplanationFor(diagnosis), nullptr) << diagnosis;
  }
  EXPECT_EQ(ExplanationFor("No_Such_Node"), nullptr);
}

}  // namespace
}  // namespace td

// The counter models of the definition files, per family.
#include "runtime/uarch/counter_model.h"

#include "gtest/gtest.h"
#include "tests/unit/counter_models.h"

namespace td {
namespace {

using counter_models::Model;

TEST(CounterModels, DefinitionFilesDescribeEveryFamily) {
  EXPECT_EQ(Model("skl").general, 4);
  EXPECT_EQ(Model("skl").general_without_smt, 8);
  EXPECT_EQ(Model("skl").fixed.size(), 3u);
  EXPECT_EQ(Model("icl").general, 8);
  EXPECT_EQ(Model("icl").fixed.size(), 4u);
  EXPECT_EQ(Model("spr").metrics_leader, 0x400u);
  EXPECT_EQ(Model("zen4").general, 6);
  EXPECT_TRUE(Model("zen4").fixed.empty());
  EXPECT_EQ(Model("neoverse_v2").general, 6);
  EXPECT_EQ(Model("adl_grt").general, 6);
}

}  // namespace
}  // namespace td

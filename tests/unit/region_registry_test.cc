#include "runtime/regions/region_registry.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(RegionRegistryFind, FindsRegisteredNamesAndRegistersNothing) {
  RegionRegistry registry;
  const uint32_t a = registry.IdForName("a");
  ASSERT_TRUE(registry.Find("a").has_value());
  EXPECT_EQ(*registry.Find("a"), a);
  EXPECT_FALSE(registry.Find("b").has_value());
  EXPECT_FALSE(registry.Find("").has_value());
  EXPECT_EQ(registry.AllNames().size(), 1u);
  const uint32_t empty = registry.IdForName("(empty name)");
  ASSERT_TRUE(registry.Find("").has_value());
  EXPECT_EQ(*registry.Find(""), empty);
}

}  // namespace
}  // namespace td

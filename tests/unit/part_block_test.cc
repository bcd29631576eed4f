// PartBlock and PartAllocator: a merged run's lists of parts in one block,
// the heap where the block is small, full, or a list is copied.
#include "runtime/recorded/part_block.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/recorded/run_data.h"

namespace td {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(PartBlock, SmallRunsAreLeftToTheHeap) {
  EXPECT_EQ(PartBlock::Make(0), nullptr);
  EXPECT_EQ(PartBlock::Make(64 * 1024), nullptr);
  EXPECT_EQ(PartBlock::Make(SIZE_MAX), nullptr);
}

TEST(PartBlock, TakesAlignedPiecesUntilFull) {
  const std::shared_ptr<PartBlock> block = PartBlock::Make(5 * kMiB);
  ASSERT_NE(block, nullptr);
  void* first = block->Take(3, 1);
  void* second = block->Take(16, 8);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % (2 * kMiB), 0u);  // starts on a huge page
  EXPECT_EQ(static_cast<char*>(second) - static_cast<char*>(first), 8);
  EXPECT_TRUE(block->Holds(second));
  // 5 MiB rounds up to 6: what is left is taken whole, then nothing more.
  void* rest = block->Take(6 * kMiB - 24, 8);
  ASSERT_NE(rest, nullptr);
  static_cast<char*>(rest)[6 * kMiB - 25] = 1;  // the last byte is writable
  EXPECT_EQ(block->Take(1, 1), nullptr);
  int on_stack = 0;
  EXPECT_FALSE(block->Holds(&on_stack));
}

TEST(PartAllocator, ListsShareTheBlockAndGoToTheHeapWhenItIsFull) {
  const PartAllocator<RegionOnThread> allocator(PartBlock::Make(4 * kMiB));
  ASSERT_NE(allocator.block(), nullptr);
  const size_t fit = 4 * kMiB / sizeof(RegionOnThread);
  PartList big(allocator);
  big.reserve(fit);
  EXPECT_TRUE(allocator.block()->Holds(big.data()));
  PartList after(allocator);
  after.reserve(fit);  // the block has no room left: the heap
  EXPECT_FALSE(allocator.block()->Holds(after.data()));
  after.resize(fit + 1);  // grows on the heap, frees its heap block
  after[fit].calls = 7;
  EXPECT_EQ(after[fit].calls, 7u);
}

TEST(PartAllocator, ACopyIsTheHeapsAndAListKeepsItsBlockAlive) {
  PartList list;
  {
    const PartAllocator<RegionOnThread> allocator(PartBlock::Make(8 * kMiB));
    list = PartList(allocator);
    list.resize(3);
    list[2].calls = 42;
  }  // the allocator is gone; the list still holds the block
  ASSERT_NE(list.get_allocator().block(), nullptr);
  EXPECT_TRUE(list.get_allocator().block()->Holds(list.data()));
  const PartList copy = list;
  EXPECT_EQ(copy.get_allocator().block(), nullptr);
  ASSERT_EQ(copy.size(), 3u);
  EXPECT_EQ(copy[2].calls, 42u);
  PartList moved = std::move(list);
  EXPECT_EQ(moved[2].calls, 42u);
  EXPECT_TRUE(moved.get_allocator().block()->Holds(moved.data()));
  Region region;
  region.threads = moved;  // a region read from a file or copied: the heap
  EXPECT_EQ(region.threads.get_allocator().block(), nullptr);
  EXPECT_EQ(region.threads[2].calls, 42u);
}

}  // namespace
}  // namespace td

#include "runtime/recorded/part_block.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

namespace td {
namespace {

// Below this the heap serves the parts as well: a block is worth its mapping
// only where the parts fill many pages (a run of 64 x 10,000 parts is 133 MB).
constexpr size_t kSmallestBlock = size_t{4} << 20;
// A transparent huge page on x86-64 and on arm64 with 4 KB pages.
constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

std::shared_ptr<PartBlock> PartBlock::Make(size_t bytes) {
  if (bytes < kSmallestBlock || bytes > (SIZE_MAX >> 1)) return nullptr;
  const size_t size = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // One huge page more than asked for, so that the block can start on a
  // huge page's boundary; the ends are given back at once.
  void* mapped = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) munmap(mapped, aligned - start);
  if (const uintptr_t tail = start + size + kHugePage - (aligned + size); tail > 0) {
    munmap(reinterpret_cast<void*>(aligned + size), tail);
  }
  char* begin = reinterpret_cast<char*>(aligned);
#ifdef MADV_HUGEPAGE
  (void)madvise(begin, size, MADV_HUGEPAGE);  // refused where the kernel has none: 4 KB pages then
#endif
  std::shared_ptr<PartBlock> block(new (std::nothrow) PartBlock(begin, size));
  if (block == nullptr) munmap(begin, size);
  return block;
}

PartBlock::~PartBlock() { munmap(begin_, size_); }

void* PartBlock::Take(size_t bytes, size_t align) {
  const size_t at = (used_ + align - 1) / align * align;
  if (at > size_ || bytes > size_ - at) return nullptr;
  used_ = at + bytes;
  return begin_ + at;
}

}  // namespace td

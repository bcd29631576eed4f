// Where a merged run keeps its regions' parts at scale: one block of memory
// for all of them, asked for in one mapping with transparent huge pages where
// the kernel allows them for mappings that ask (madvise mode). At 64 threads x
// 10,000 regions the parts are 133 MB written once, and on a virtual machine
// the first-touch faults of their 4 KB pages took 29 % of finalize's CPU time
// (docs/performance.md, "Many threads and regions at exit").
// A region's list of parts allocates from the block while it has room and
// from the heap after that; a list copied from one goes to the heap. Lists
// keep the block alive: it is unmapped with the last of them.
#ifndef TD_RUNTIME_RECORDED_PART_BLOCK_H_
#define TD_RUNTIME_RECORDED_PART_BLOCK_H_

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace td {

class PartBlock {
 public:
  // A block of at least `bytes`, or nullptr where a mapping is refused or
  // `bytes` is below what a block is worth (the heap serves those).
  static std::shared_ptr<PartBlock> Make(size_t bytes);
  ~PartBlock();
  PartBlock(const PartBlock&) = delete;
  PartBlock& operator=(const PartBlock&) = delete;

  // `bytes` aligned to `align` from what is left, or nullptr when full.
  void* Take(size_t bytes, size_t align);
  bool Holds(const void* p) const { return p >= begin_ && p < begin_ + size_; }

 private:
  PartBlock(char* begin, size_t size) : begin_(begin), size_(size) {}
  char* begin_;
  size_t size_;
  size_t used_ = 0;
};

// The allocator of a region's list of parts: the block it was given, the
// heap without one. Memory from the block is never given back one list at a
// time (lists are made once, at their final size, and live as long as the run).
template <typename T>
class PartAllocator {
 public:
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using is_always_equal = std::false_type;

  PartAllocator() = default;
  explicit PartAllocator(std::shared_ptr<PartBlock> block) : block_(std::move(block)) {}
  template <typename U>
  PartAllocator(const PartAllocator<U>& other) : block_(other.block()) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    if (block_ != nullptr) {
      if (void* p = block_->Take(n * sizeof(T), alignof(T))) return static_cast<T*>(p);
    }
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    if (block_ != nullptr && block_->Holds(p)) return;
    std::allocator<T>().deallocate(p, n);
  }
  // A copy of a list is the heap's: it may outlive the run it came from.
  PartAllocator select_on_container_copy_construction() const { return PartAllocator(); }

  const std::shared_ptr<PartBlock>& block() const { return block_; }
  friend bool operator==(const PartAllocator& a, const PartAllocator& b) { return a.block_ == b.block_; }
  friend bool operator!=(const PartAllocator& a, const PartAllocator& b) { return !(a == b); }

 private:
  std::shared_ptr<PartBlock> block_;
};

}  // namespace td

#endif  // TD_RUNTIME_RECORDED_PART_BLOCK_H_

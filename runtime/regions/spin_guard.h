// A spin lock held for a scope, for a lock both sides hold only briefly and
// one side may not block on (ThreadState's storage lock: the owning thread
// growing its vectors, the periodic flush copying them).
#ifndef TD_RUNTIME_REGIONS_SPIN_GUARD_H_
#define TD_RUNTIME_REGIONS_SPIN_GUARD_H_

#include <sched.h>

#include <atomic>
#include <cstdint>

#include "runtime/regions/marker_clock.h"

namespace td {

class SpinGuard {
 public:
  // Waits, yielding the CPU, until `lock` is taken.
  explicit SpinGuard(std::atomic<uint32_t>& lock) : lock_(lock) {
    while (lock_.exchange(1, std::memory_order_acquire) != 0) sched_yield();
  }
  // Gives up after `wait_ns` of CLOCK_MONOTONIC (held() then says false).
  SpinGuard(std::atomic<uint32_t>& lock, int64_t wait_ns) : lock_(lock) {
    const int64_t deadline = MonotonicNs() + wait_ns;
    while (lock_.exchange(1, std::memory_order_acquire) != 0) {
      if (MonotonicNs() > deadline) {
        held_ = false;
        return;
      }
      sched_yield();
    }
  }
  ~SpinGuard() {
    if (held_) lock_.store(0, std::memory_order_release);
  }
  bool held() const { return held_; }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  std::atomic<uint32_t>& lock_;
  bool held_ = true;
};

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_SPIN_GUARD_H_

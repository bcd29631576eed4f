// Adding the difference of two counter snapshots to a node's totals: the
// markers' END does this for every measured pair, so the common sizes are
// unrolled.
#ifndef TD_RUNTIME_REGIONS_SNAPSHOT_DELTAS_H_
#define TD_RUNTIME_REGIONS_SNAPSHOT_DELTAS_H_

#include <cstddef>
#include <cstdint>

namespace td {

// to[i] += end[i] - start[i] over two counter snapshots (modulo 2^64: counters
// wrap). Snapshots are a handful of words. The restrict pointers spare the
// vectoriser the run-time alias checks that once cost more than the loop.
inline void AddDeltas(uint64_t* __restrict to, const uint64_t* __restrict start, const uint64_t* __restrict end,
                      size_t words) {
#pragma GCC unroll 2
  for (size_t i = 0; i < words; ++i) to[i] += end[i] - start[i];
}
// kWords of them, a size known when compiled: no loop, no test.
template <size_t kWords>
__attribute__((always_inline)) inline void AddFixedDeltas(uint64_t* __restrict to, const uint64_t* __restrict start,
                                                         const uint64_t* __restrict end) {
#pragma GCC unroll 16
  for (size_t i = 0; i < kWords; ++i) to[i] += end[i] - start[i];
}
// Up to 16 words without a loop (a group of 8 and a task-clock copied from
// its time); the software group's 6 (its 4 events and two times; its
// count word is left out) without even the jump.
__attribute__((always_inline)) inline void AddFewDeltas(uint64_t* __restrict to, const uint64_t* __restrict start,
                                                       const uint64_t* __restrict end, size_t words) {
  if (__builtin_expect(words == 6, 1)) {
    to[0] += end[0] - start[0];
    to[1] += end[1] - start[1];
    to[2] += end[2] - start[2];
    to[3] += end[3] - start[3];
    to[4] += end[4] - start[4];
    to[5] += end[5] - start[5];
    return;
  }
  switch (words) {
    case 16: to[15] += end[15] - start[15]; [[fallthrough]];
    case 15: to[14] += end[14] - start[14]; [[fallthrough]];
    case 14: to[13] += end[13] - start[13]; [[fallthrough]];
    case 13: to[12] += end[12] - start[12]; [[fallthrough]];
    case 12: to[11] += end[11] - start[11]; [[fallthrough]];
    case 11: to[10] += end[10] - start[10]; [[fallthrough]];
    case 10: to[9] += end[9] - start[9]; [[fallthrough]];
    case 9: to[8] += end[8] - start[8]; [[fallthrough]];
    case 8: to[7] += end[7] - start[7]; [[fallthrough]];
    case 7: to[6] += end[6] - start[6]; [[fallthrough]];
    case 6: to[5] += end[5] - start[5]; [[fallthrough]];
    case 5: to[4] += end[4] - start[4]; [[fallthrough]];
    case 4: to[3] += end[3] - start[3]; [[fallthrough]];
    case 3: to[2] += end[2] - start[2]; [[fallthrough]];
    case 2: to[1] += end[1] - start[1]; [[fallthrough]];
    case 1: to[0] += end[0] - start[0]; [[fallthrough]];
    case 0: return;
    default: AddDeltas(to, start, end, words);
  }
}

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_SNAPSHOT_DELTAS_H_

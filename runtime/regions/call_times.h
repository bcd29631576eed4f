// Per-call wall times of a region (docs/usage.md#per-call-times): a
// histogram per call-path node of how long each read call took, so that
// the reports can give min, median, p95 and max per call besides the total.
//
// A bucket is a quarter of an octave: bucket b holds the durations from
// 2^(b/4) × (1 + (b%4)/4) up to the next bucket's start, so any value is
// known to within 25 % of itself from its bucket alone. The index is the top
// bits of the duration's float, which puts it a few instructions from the
// duration on END's common path. Histograms count in the marker clock's
// ticks on the thread and in nanoseconds everywhere else (CallTimesInNs).
// Each bucket also sums its calls' times.
#ifndef TD_RUNTIME_REGIONS_CALL_TIMES_H_
#define TD_RUNTIME_REGIONS_CALL_TIMES_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace td {

// 64 octaves: every duration an int64_t holds.
inline constexpr uint32_t kCallTimeBuckets = 256;

// Where a thread's histogram counts a duration in ticks (or ns): the
// exponent and the top two mantissa bits of its float as they are, so that
// END computes it with a shift and a byte. Its bucket is 4 more (modulo
// 256), as 1.0f's bits give 127 << 2 = 508, which is 252 modulo 256.
__attribute__((always_inline)) inline uint32_t CallTimeSlot(int64_t ticks) {
  const float value = static_cast<float>(ticks);
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return static_cast<uint8_t>(bits >> 21);
}
inline constexpr uint32_t SlotOfBucket(uint32_t bucket) { return (bucket + kCallTimeBuckets - 4) % kCallTimeBuckets; }

// The bucket of a duration: bucket 0 holds [1, 1.19). A negative duration
// (a clock that ran backwards) lands in its magnitude's bucket, 0 in 2's;
// both add their exact value to the sum.
inline uint32_t CallTimeBucket(int64_t ticks) { return (CallTimeSlot(ticks) + 4) % kCallTimeBuckets; }

// Where bucket `b` starts (0 for none below it, ∞ past the last).
inline double CallTimeBucketStart(uint32_t b) {
  if (b >= kCallTimeBuckets) return INFINITY;
  return std::ldexp(1.0 + static_cast<double>(b & 3) / 4.0, static_cast<int>(b >> 2));
}
// Where bucket `b` ends: the next one's start (the last bucket's is open:
// given as twice its start).
inline double CallTimeBucketEnd(uint32_t b) {
  return b + 1 < kCallTimeBuckets ? CallTimeBucketStart(b + 1) : 2 * CallTimeBucketStart(b);
}

// One node's histogram on its thread: per bucket, its calls and their total
// time, so that the reports give each bucket's mean rather than a guess
// inside it (exact where calls cluster, as a loop's do). 32-bit counts: a
// bucket that wrapped (more than 4 billion calls in it) shows as a total
// that differs from the node's read calls, and the readers then drop the
// distribution.
struct CallTimeHistogram {
  uint32_t counts[kCallTimeBuckets];
  int64_t ticks[kCallTimeBuckets];
};

// A thread's histograms (ThreadState), each at a byte offset that a node
// keeps (NodeStats::call_times), so that END finds it with one add. The
// first is shared by the nodes past kMaxHistograms and reports nothing.
class CallTimeStore {
 public:
  static constexpr size_t kMaxHistograms = 512;  // 1.5 MB a thread

  CallTimeHistogram& At(uint32_t offset) {
    return *reinterpret_cast<CallTimeHistogram*>(reinterpret_cast<char*>(histograms_.data()) + offset);
  }
  // A new, empty histogram's offset; the shared one's (0) past the cap.
  uint32_t Add() {
    if (histograms_.empty()) {
      // Room for all at once: pages are touched only as histograms are made,
      // and the vector never moves (a copy under the storage lock) later.
      histograms_.reserve(kMaxHistograms + 1);
      histograms_.emplace_back();
    }
    if (histograms_.size() > kMaxHistograms) return 0;
    histograms_.emplace_back();
    return static_cast<uint32_t>((histograms_.size() - 1) * sizeof(CallTimeHistogram));
  }
  // The histogram at `offset` as reported: null for none (the two values
  // at the top of uint32_t), the shared one, or an offset past the end.
  const CallTimeHistogram* Reported(uint32_t offset) const {
    const size_t index = offset / sizeof(CallTimeHistogram);
    return offset == 0 || index >= histograms_.size() ? nullptr : &histograms_[index];
  }
  bool empty() const { return histograms_.empty(); }
  // All of them, for a copy of the thread (thread_copy.cc) and to free them.
  std::vector<CallTimeHistogram>& histograms() { return histograms_; }
  const std::vector<CallTimeHistogram>& histograms() const { return histograms_; }

 private:
  std::vector<CallTimeHistogram> histograms_;
};

// A bucket's calls and their total time in ns.
struct CallTimeBucketTotal {
  uint32_t bucket = 0;
  uint64_t calls = 0;
  int64_t ns = 0;
  bool operator==(const CallTimeBucketTotal&) const = default;
};
// Non-empty buckets, ascending.
using CallTimeCounts = std::vector<CallTimeBucketTotal>;

// What a reader accepts: buckets ascending and in range, each with calls and
// a time that is not negative.
inline bool CallTimeCountsValid(const CallTimeCounts& counts) {
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i].bucket >= kCallTimeBuckets || counts[i].calls == 0 || counts[i].ns < 0) return false;
    if (i > 0 && counts[i].bucket <= counts[i - 1].bucket) return false;
  }
  return true;
}

// A histogram in ticks as one in nanoseconds at `ns_per_tick`: each tick
// bucket goes to the nanosecond bucket of its calls' mean (buckets whose
// means share one are added).
CallTimeCounts CallTimesInNs(const CallTimeHistogram& ticks, double ns_per_tick);

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_CALL_TIMES_H_

// TD_TRACE's timeline of one thread: the last begin/end events with their
// counter snapshots, in a ring that starts small and doubles as events
// arrive, up to its capacity and within one bound for all threads' rings
// together (SetMemoryLimit). Where it can grow no further it keeps the most
// recent events and truncated() says why. Only the owning thread records.
#ifndef TD_RUNTIME_REGIONS_TRACE_RING_H_
#define TD_RUNTIME_REGIONS_TRACE_RING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/regions/marker_clock.h"
#include "runtime/regions/node_stats.h"

namespace td {

class TraceRing {
 public:
  TraceRing() = default;
  ~TraceRing() { Release(); }  // returns its memory to the process-wide bound
  TraceRing(const TraceRing&) = delete;
  TraceRing& operator=(const TraceRing&) = delete;

  // Bytes all threads' rings may use together; bytes one event costs.
  static void SetMemoryLimit(size_t bytes);
  static size_t BytesPerEvent(size_t words);

  // Starts afresh, keeping at most `capacity` events of `words` counter
  // words each (0: no tracing).
  void Enable(size_t capacity, size_t words);
  // Stops tracing and frees the ring.
  void Release();
  // Whether events are recorded: the ring has room for at least one.
  bool active() const { return !slots_.empty(); }

  void Record(uint32_t region, bool begin, int64_t ticks, const uint64_t* snapshot);
  // Oldest first; ticks converted with `clock`.
  std::vector<TraceEvent> Events(const TickScale& clock) const;

  uint64_t dropped() const { return recorded_ > slots_.size() ? recorded_ - slots_.size() : 0; }
  size_t kept() const { return recorded_ < slots_.size() ? recorded_ : slots_.size(); }
  size_t capacity() const { return capacity_; }  // TD_TRACE_EVENTS
  // Why the ring stopped short of its capacity; empty when it did not.
  const std::string& truncated() const { return truncated_; }

 private:
  struct Slot {
    int64_t ticks;
    uint32_t region;
    bool begin;
  };
  bool Grow();

  std::vector<Slot> slots_;      // empty when not tracing
  std::vector<uint64_t> words_;  // words_per_event_ per slot
  size_t words_per_event_ = 0;
  size_t next_ = 0;
  size_t capacity_ = 0;
  bool growing_ = false;  // not yet at its final size
  uint64_t recorded_ = 0;
  std::string truncated_;
};

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_TRACE_RING_H_

#include "runtime/regions/trace_ring.h"

#include <algorithm>
#include <atomic>
#include <new>

#include "absl/strings/str_format.h"

namespace td {
namespace {
constexpr size_t kInitialEvents = 1024;

// All threads' trace rings together stay within this many bytes.
std::atomic<size_t> g_limit{size_t{512} << 20};
std::atomic<size_t> g_bytes{0};
}  // namespace

void TraceRing::SetMemoryLimit(size_t bytes) { g_limit.store(bytes, std::memory_order_relaxed); }

size_t TraceRing::BytesPerEvent(size_t words) { return sizeof(Slot) + words * sizeof(uint64_t); }

void TraceRing::Release() {
  g_bytes.fetch_sub(slots_.size() * sizeof(Slot) + words_.size() * sizeof(uint64_t), std::memory_order_relaxed);
  std::vector<Slot>().swap(slots_);
  std::vector<uint64_t>().swap(words_);
}

void TraceRing::Enable(size_t capacity, size_t words) {
  Release();
  words_per_event_ = words;
  capacity_ = capacity;
  growing_ = capacity != 0;
  next_ = 0;
  recorded_ = 0;
  truncated_.clear();
  if (capacity != 0 && !Grow()) growing_ = false;
}

// Doubles the ring (the first call makes it kInitialEvents long). It is full
// and has not wrapped yet, so the events stay where they are. Returns false,
// and says why in truncated_, where it cannot grow.
bool TraceRing::Grow() {
  const size_t old_size = slots_.size();
  const size_t new_size = std::min(capacity_, old_size == 0 ? kInitialEvents : 2 * old_size);
  if (new_size <= old_size) {
    growing_ = false;
    return false;
  }
  const size_t added = (new_size - old_size) * BytesPerEvent(words_per_event_);
  const size_t limit = g_limit.load(std::memory_order_relaxed);
  if (g_bytes.fetch_add(added, std::memory_order_relaxed) + added > limit) {
    g_bytes.fetch_sub(added, std::memory_order_relaxed);
    truncated_ = absl::StrFormat("all threads' traces reached TD_TRACE_MEMORY=%d MiB", limit >> 20);
    growing_ = false;
    return false;
  }
  try {
    slots_.resize(new_size);
    words_.resize(new_size * words_per_event_);
  } catch (const std::bad_alloc&) {
    g_bytes.fetch_sub(added, std::memory_order_relaxed);
    slots_.resize(old_size);  // shrinking never allocates
    words_.resize(old_size * words_per_event_);
    truncated_ = absl::StrFormat("memory for more than %d events could not be allocated", old_size);
    growing_ = false;
    return false;
  }
  return true;
}

void TraceRing::Record(uint32_t region, bool begin, int64_t ticks, const uint64_t* snapshot) {
  if (next_ == slots_.size()) {
    // Full: grow while it may, then overwrite the oldest.
    if (!growing_ || !Grow()) next_ = 0;
    if (slots_.empty()) return;  // not even the first block could be had
  }
  slots_[next_] = Slot{ticks, region, begin};
  std::copy(snapshot, snapshot + words_per_event_, words_.begin() + next_ * words_per_event_);
  ++next_;
  ++recorded_;
}

std::vector<TraceEvent> TraceRing::Events(const TickScale& clock) const {
  std::vector<TraceEvent> events;
  if (slots_.empty()) return events;
  const size_t first = recorded_ > slots_.size() ? next_ : 0;
  for (size_t i = 0, n = kept(); i < n; ++i) {
    const size_t slot = (first + i) % slots_.size();
    const Slot& s = slots_[slot];
    events.push_back({clock.MonotonicNsAt(s.ticks), s.region, s.begin, words_.data() + slot * words_per_event_});
  }
  return events;
}

}  // namespace td

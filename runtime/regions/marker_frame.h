// One open region on a thread's stack (MarkerFrame), the one-word key by
// which END recognises the frame it closes, and the marker forms that key
// names: the layout the hot path of thread_state.h and marker_forms.h is
// built on.
#ifndef TD_RUNTIME_REGIONS_MARKER_FRAME_H_
#define TD_RUNTIME_REGIONS_MARKER_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "td/td.h"

namespace td {

struct MarkerFrame {
  uint32_t node;
  uint32_t parent_node;  // node of the enclosing frame; 0 (the thread) at top level
  // region and the four flags after it are one 8-byte key, so that END tells
  // an ordinary close from the rest in one comparison.
  uint32_t region;
  bool recursive;        // the region was already open: adds no inclusive values
  bool measured;         // counters and clock read at BEGIN (TD_SAMPLE skips some calls)
  bool traced = false;   // begun while tracing: its END is traced too
  uint8_t form = 0;      // FormByte of the form that began it: that form's END takes it too
  const td_site* site;
  int64_t start_ticks;
};
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
              offsetof(MarkerFrame, recursive) == offsetof(MarkerFrame, region) + 4 &&
              offsetof(MarkerFrame, measured) == offsetof(MarkerFrame, region) + 5 &&
              offsetof(MarkerFrame, traced) == offsetof(MarkerFrame, region) + 6 &&
              offsetof(MarkerFrame, form) == offsetof(MarkerFrame, region) + 7);

inline uint64_t FrameKey(const MarkerFrame& frame) {
  uint64_t key;
  std::memcpy(&key, &frame.region, sizeof key);
  return key;
}
inline void SetFrameKey(MarkerFrame* frame, uint64_t key) { std::memcpy(&frame->region, &key, sizeof key); }

// The open frames, and one more below the first: a sentinel whose key no
// form's END takes (no key has 0xff in its flag bytes), so that END at
// depth 0 finds it and misses with no test of its own for an empty stack.
class FrameStack {
 public:
  FrameStack() { assign(0); }
  FrameStack(const FrameStack&) = delete;
  FrameStack& operator=(const FrameStack&) = delete;

  MarkerFrame& operator[](size_t depth) { return first_[depth]; }
  const MarkerFrame& operator[](size_t depth) const { return first_[depth]; }
  // The innermost frame of a stack `depth` deep: the sentinel when empty.
  const MarkerFrame& Innermost(size_t depth) const { return first_[static_cast<ptrdiff_t>(depth) - 1]; }
  size_t size() const { return storage_.size() - 1; }
  MarkerFrame* data() { return first_; }
  const MarkerFrame* data() const { return first_; }
  const MarkerFrame* begin() const { return first_; }
  const MarkerFrame* end() const { return first_ + size(); }
  MarkerFrame* begin() { return first_; }
  MarkerFrame* end() { return first_ + size(); }
  // `n` frames, all cleared.
  void assign(size_t n) {
    storage_.assign(n + 1, MarkerFrame{});
    Settle();
  }
  void resize(size_t n) {
    storage_.resize(n + 1, MarkerFrame{});
    Settle();
  }

 private:
  void Settle() {
    SetFrameKey(&storage_[0], ~uint64_t{0});
    first_ = storage_.data() + 1;
  }
  MarkerFrame* first_ = nullptr;  // first: the markers load it as they loaded a vector's data
  std::vector<MarkerFrame> storage_;
};

// The forms of the common BEGIN and END, by how the counters are read
// (counters/marker_reader.h):
//  kSyscall: the thread's only counters are one group read with one read()
//    and the clock is the TSC (ThreadState's fast_). The marker makes no call
//    and needs no stack frame. Its frame limit is 0 otherwise and while
//    tracing, and such markers miss (BeginSyscallMiss, EndSyscallMiss) and
//    try kUser there, in the cold path: a test for it in the hot one would
//    cost this form, the software group's, more than kUser gains from it.
//  kUser: the thread's only counters are one group read in user space
//    (MarkerReader::sole_user, rdpmc) and the clock is the TSC; its frame
//    limit is 0 otherwise and while tracing. Out of line: the C markers reach
//    the forms made for the thread's group (BeginUserForm, EndUserForm) where
//    the gate says the process's threads read in user space; kSyscall's
//    misses reach the form for any group (BeginUser, EndUser).
//  kGeneral: the rest (BeginGeneral, EndGeneral), out of line.
// Where a form cannot open or close a frame, kGeneral does; where kGeneral
// cannot, ThreadState's *Unusual functions do.
enum class MarkerPath { kGeneral, kSyscall, kUser };
constexpr uint8_t FormByte(MarkerPath path) {
  return path == MarkerPath::kSyscall ? 1 : path == MarkerPath::kUser ? 2 : 0;
}
// Keys of frames begun by BeginImpl<…, kPath>: measured or not (TD_SAMPLE),
// never recursive or traced, with the form's byte, so that each form's END
// recognises its own frames in one comparison and the general END (which
// masks the byte) closes any.
// kSyscall's frames on a thread whose group is not the software group td
// reads without a PMU carry this byte instead: kSyscall's END is made for
// that group (its four counts), and leaves these frames to its miss path.
inline constexpr uint8_t kSyscallAnyGroupForm = 3;
inline constexpr uint32_t kAnyGroup = UINT32_MAX;  // ThreadState's kMembers for those frames
inline constexpr uint64_t kMeasuredKeyBit = uint64_t{1} << 40;
template <MarkerPath kPath>
uint64_t OrdinaryKey(uint32_t region) {
  return region | (uint64_t{1} << 40) | (uint64_t{FormByte(kPath)} << 56);
}
template <MarkerPath kPath>
uint64_t UnreadKey(uint32_t region) {
  return region | (uint64_t{FormByte(kPath)} << 56);
}
// What the frame's form byte does not change.
inline uint64_t WithoutForm(uint64_t key) { return key & ~(uint64_t{0xff} << 56); }

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_MARKER_FRAME_H_

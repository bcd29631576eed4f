// One open region on a thread's stack (MarkerFrame), the one-word key by
// which END recognises the frame it closes, and the marker forms that key
// names: the layout the hot path of thread_state.h and marker_forms.h is
// built on.
#ifndef TD_RUNTIME_REGIONS_MARKER_FRAME_H_
#define TD_RUNTIME_REGIONS_MARKER_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

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

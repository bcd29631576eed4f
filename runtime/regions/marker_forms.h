// The common BEGIN and END of ThreadState's marker forms (see MarkerPath in
// marker_frame.h): what a marker does when its region is entered from the
// same parent as last time, not recursively, with room on the stack, and the
// ways off that path. Kept apart from the class, which says what each form
// is for. Include this header, not thread_state.h, where markers run (the C
// entry points, the calibration, tests and benchmarks of the markers): the
// inline markers of thread_state.h need these definitions.
#ifndef TD_RUNTIME_REGIONS_MARKER_FORMS_H_
#define TD_RUNTIME_REGIONS_MARKER_FORMS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/regions/thread_state.h"

namespace td {

template <bool kLeave, ThreadState::Path kPath, uint32_t kMembers, bool kFake, int kGroupWord, bool kSampled>
inline void ThreadState::BeginImpl(uint32_t region, const td_site* site) {
  const size_t depth = depth_;
  bool miss;
  if constexpr (kPath == Path::kSyscall) {
    miss = region >= region_limit_ || depth >= frame_limit_;
  } else if constexpr (kPath == Path::kUser) {
    miss = region >= region_limit_ || depth >= user_frame_limit_;
  } else {
    miss = region >= regions_.size() || depth >= frames_.size() || tracing_;
  }
  if (miss) return BeginMiss<kLeave, kPath>(region, site);
  RegionSlot& slot = regions_[region];
  const uint32_t parent = top_node_;
  const uint32_t node = slot.last_node;  // 0 (parent kNone) when none yet
  NodeStats& stats = nodes_[node];
  // A slot open or sampled (RegionSlot::kSampled) reads nonzero: the common
  // form has no countdown, and a sampled slot not open has a form of its own.
  const uint32_t open = kSampled ? slot.open ^ RegionSlot::kSampled : slot.open;
  if (__builtin_expect(open != 0 || stats.parent != parent, 0)) {
    // The common form tries the sampled one, which misses where it does not
    // apply either, and gives it the slot rather than the region: neither
    // that test nor the region then holds a register in the common form.
    if constexpr (!kSampled) return BeginSampled<kLeave, kPath, kMembers, kFake, kGroupWord>(&slot, site);
    return BeginMiss<kLeave, kPath>(region, site);
  }
  slot.open = kSampled ? RegionSlot::kSampled | 1 : 1;
  ++stats.calls;
  Frame& frame = frames_[depth];
  frame.node = node;
  frame.parent_node = parent;
  frame.site = site;
  top_node_ = node;
  depth_ = depth + 1;
  // Region and flags in one store, which END loads whole: a byte stored
  // into the key after it (measured = false) would make that load wait for
  // both stores (no store forwarding), which doubled an unread pair's time.
  if constexpr (kSampled) {
    if (!TakeMeasuredCall(stats)) {  // TD_SAMPLE: counted, not read
      SetFrameKey(&frame, kPath == Path::kSyscall ? region | (syscall_key_ & ~kMeasuredKeyBit) : UnreadKey<kPath>(region));
      if constexpr (kLeave) Leave();
      return;
    }
  }
  SetFrameKey(&frame, kPath == Path::kSyscall ? region | syscall_key_ : OrdinaryKey<kPath>(region));
  // Counters first, clock last: td's own reads stay outside the region.
  if constexpr (kPath == Path::kSyscall) {
    if (__builtin_expect(!reader_.ReadSoleGroup(FrameStart(depth)), 0)) return SoleReadFailedInBegin<kLeave>();
    frame.start_ticks = TscTicks();
  } else if constexpr (kPath == Path::kUser) {
    if constexpr (kMembers == 0) {
      reader_.ReadSoleUserInline(FrameStart(depth));
    } else if (__builtin_expect(!reader_.ReadSoleUserMembersInline<kFake, kMembers, kGroupWord>(FrameStart(depth)), 0)) {
      return ReadBegunFrameAgain<kLeave>();
    }
    frame.start_ticks = TscTicks();
  } else {
    ReadCounters(FrameStart(depth));
    frame.start_ticks = Now();
  }
  if constexpr (kLeave) Leave();
}

template <bool kLeave, ThreadState::Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
inline void ThreadState::EndImpl(uint32_t region, const td_site* site) {
  const size_t depth = depth_;
  const size_t d = depth - 1;
  const Frame& frame = frames_.Innermost(depth);  // at depth 0 the sentinel, whose key misses
  const uint64_t key = kPath != Path::kGeneral ? FrameKey(frame) : WithoutForm(FrameKey(frame));
  if (__builtin_expect(key != OrdinaryKey<kPath>(region), 0)) {
    // kSyscall's tests of the frame are all out of line: here they would
    // keep the key in a register saved for them.
    if constexpr (kPath == Path::kSyscall) return EndSyscallMiss<kLeave>(region, site);
    if (key == UnreadKey<kPath>(region)) {  // TD_SAMPLE: a call counted, not read
      PopUnmeasured(d);
      if constexpr (kLeave) Leave();
      return;
    }
    return EndMiss<kLeave, kPath>(region, site);
  }
  // The common close: the deltas go to this node's inclusive values only.
  // Clock first, counters last (the time is added before the read, so that
  // nothing needs keeping across it). A node without a histogram yet (its
  // first two read calls) finishes out of line, so that the common END
  // keeps no more registers than before it had one.
  const int64_t wall = (kPath != Path::kGeneral ? TscTicks() : Now()) - frame.start_ticks;
  if (__builtin_expect(!CountCall(frame.node, wall), 0)) {
    return EndWithoutHistogram<kLeave, kPath, kMembers, kFake, kGroupWord>(region, wall);
  }
  CloseEnded<kLeave, kPath, kMembers, kFake, kGroupWord>(region, d, frame);
}

template <bool kLeave, ThreadState::Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
void ThreadState::BeginSampled(const RegionSlot* slot, const td_site* site) {
  BeginImpl<kLeave, kPath, kMembers, kFake, kGroupWord, true>(static_cast<uint32_t>(slot - regions_.data()), site);
}

template <bool kLeave, ThreadState::Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
void ThreadState::EndWithoutHistogram(uint32_t region, int64_t wall) {
  const size_t d = depth_ - 1;
  const uint32_t node = frames_[d].node;
  // The counters are read first: making the histogram (a first one reserves
  // room for all of the thread's, which a sanitizer's allocator fills in)
  // is td's own work and stays out of the region's counts. Still inside
  // the marker, as finalize expects of anything that changes the storage.
  CloseEnded<false, kPath, kMembers, kFake, kGroupWord>(region, d, frames_[d]);
  CountedWithoutHistogram(node, wall);
  if constexpr (kLeave) Leave();
}

template <bool kLeave, ThreadState::Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
inline void ThreadState::CloseEnded(uint32_t region, size_t d, const Frame& frame) {
  depth_ = d;
  top_node_ = frame.parent_node;
  regions_[region].open &= RegionSlot::kSampled;  // as cheap as a store of 0
  if constexpr (kPath == Path::kGeneral) {
    ReadCounters(scratch_.data());
    AddFewDeltas(NodeInclusive(frame.node), BegunSnapshot(d), scratch_.data(), words_);
  } else if constexpr (kPath == Path::kSyscall) {
    // Taken before the read, whose memory clobber would have them loaded again.
    uint64_t* const end = scratch_.data();
    const uint32_t node = frame.node;
    if (__builtin_expect(!reader_.ReadSoleGroup(end), 0)) return SoleReadFailedInEnd<kLeave>();
    if constexpr (kMembers == kAnyGroup) {
      // Word 0 of a snapshot of one group is a count of events, or a derived
      // task-clock's 1: its delta is always 0.
      AddFewDeltas(NodeInclusive(node) + 1, FrameStart(d) + 1, end + 1, words_ - 1);
    } else {
      // The software group: its four counts only (its times are derived:
      // DerivedWords). The strides stay the members': a multiply from
      // memory is one instruction, a multiply by 7 or 14 two or three.
      constexpr size_t kFirst = CounterLayout::kHeaderWords;
      AddFixedDeltas<kSoftwareGroupWords - kFirst>(NodeInclusive(node) + kFirst, FrameStart(d) + kFirst, end + kFirst);
    }
  } else if (__builtin_expect(!reader_.AddSoleUserDeltas<kMembers, kFake, kGroupWord>(FrameStart(d), NodeInclusive(frame.node)),
                              0)) {
    if constexpr (kMembers == 0) {
      AddSoleUserReadSlowly(BegunSnapshot(d), NodeInclusive(frame.node));
    } else {
      return AddEndedFrameSlowly<kLeave>();
    }
  }
  if constexpr (kLeave) Leave();
}

inline bool ThreadState::CountCall(uint32_t node, int64_t wall) {
  NodeStats& stats = nodes_[node];
  stats.wall_inclusive_ticks += wall;
  if (__builtin_expect(stats.call_times >= NodeStats::kNoHistogram, 0)) return false;
  CallTimeHistogram& histogram = call_times_.At(stats.call_times);
  const uint32_t bucket = CallTimeSlot(wall);
  ++histogram.counts[bucket];
  histogram.ticks[bucket] += wall;
  return true;
}

// The ways off the common path, and the cold ends of the forms made for a
// group size (declared, with what each is for, in thread_state.h).

template <bool kLeave, ThreadState::Path kPath>
inline void ThreadState::BeginMiss(uint32_t region, const td_site* site) {
  if constexpr (kPath == Path::kSyscall) {
    BeginSyscallMiss<kLeave>(region, site);
  } else {
    OffPath<kLeave, kPath == Path::kUser ? &ThreadState::BeginGeneral : &ThreadState::BeginUnusual>(region, site);
  }
}

template <bool kLeave, ThreadState::Path kPath>
inline void ThreadState::EndMiss(uint32_t region, const td_site* site) {
  if constexpr (kPath == Path::kSyscall) {
    EndSyscallMiss<kLeave>(region, site);
  } else {
    OffPath<kLeave, kPath == Path::kUser ? &ThreadState::EndGeneral : &ThreadState::EndUnusual>(region, site);
  }
}

template <bool kLeave>
inline void ThreadState::BeginSyscallMiss(uint32_t region, const td_site* site) {
  if (user_frame_limit_ != 0) return BeginUser<kLeave>(region, site);
  OffPath<kLeave, &ThreadState::BeginGeneral>(region, site);
}

template <bool kLeave>
void ThreadState::EndSyscallMiss(uint32_t region, const td_site* site) {
  if (const size_t depth = depth_; depth != 0) {
    const uint64_t key = FrameKey(frames_[depth - 1]);
    // kSyscall's frames of a group other than the software one, then calls
    // TD_SAMPLE counted and did not read (of either group).
    if (key == (region | syscall_key_)) return EndAnyGroup<kLeave>(region);
    if (key == (region | (syscall_key_ & ~kMeasuredKeyBit))) {
      PopUnmeasured(depth - 1);
      if constexpr (kLeave) Leave();
      return;
    }
  }
  if (user_frame_limit_ != 0) return EndUser<kLeave>(region, site);
  OffPath<kLeave, &ThreadState::EndGeneral>(region, site);
}

template <bool kLeave>
void ThreadState::BeginUser(uint32_t region, const td_site* site) {
  BeginImpl<kLeave, Path::kUser>(region, site);
}

template <bool kLeave>
void ThreadState::EndUser(uint32_t region, const td_site* site) {
  EndImpl<kLeave, Path::kUser>(region, site);
}

template <uint32_t kMembers, bool kFake, int kGroupWord>
void ThreadState::BeginUserForm(ThreadState* thread, uint32_t region, const td_site* site) {
  thread->BeginImpl<true, Path::kUser, kMembers, kFake, kGroupWord>(region, site);
}

template <uint32_t kMembers, bool kFake, int kGroupWord>
void ThreadState::EndUserForm(ThreadState* thread, uint32_t region, const td_site* site) {
  thread->EndImpl<true, Path::kUser, kMembers, kFake, kGroupWord>(region, site);
}

template <bool kLeave, ThreadState::MarkerForm kForm>
inline void ThreadState::OffPath(uint32_t region, const td_site* site) {
  if constexpr (kLeave) {
    ThenLeave<kForm>(region, site);
  } else {
    (this->*kForm)(region, site);
  }
}

template <ThreadState::MarkerForm kForm>
void ThreadState::ThenLeave(uint32_t region, const td_site* site) {
  struct LeaveWhenDone {
    ThreadState* thread;
    ~LeaveWhenDone() { thread->Leave(); }
  } leave{this};
  (this->*kForm)(region, site);
}

inline ThreadState::Frame& ThreadState::Push(uint32_t node, uint32_t parent, uint32_t region, bool recursive,
                                             const td_site* site, bool measured) {
  const size_t depth = depth_;
  Frame& frame = frames_[depth];
  frame.node = node;
  frame.parent_node = parent;
  frame.region = region;
  frame.recursive = recursive;
  frame.measured = measured;
  frame.traced = tracing_;
  frame.form = FormByte(Path::kGeneral);  // closed by the general END, whatever the thread's form is now
  frame.site = site;
  top_node_ = node;
  depth_ = depth + 1;
  if (measured) {
    ReadCounters(FrameStart(depth));
    frame.start_ticks = Now();
  }
  return frame;
}

template <bool kLeave>
void ThreadState::ReadBegunFrameAgain() {
  const size_t d = depth_ - 1;
  reader_.ReadSoleUserInline(FrameStart(d));
  frames_[d].start_ticks = TscTicks();
  if constexpr (kLeave) Leave();
}

template <bool kLeave>
void ThreadState::SoleReadFailedInBegin() {
  reader_.SoleReadFailed();
  frames_[depth_ - 1].start_ticks = TscTicks();
  if constexpr (kLeave) Leave();
}

template <bool kLeave>
void ThreadState::SoleReadFailedInEnd() {
  reader_.SoleReadFailed();  // the thread's counts now read as not measured: no deltas to add
  if constexpr (kLeave) Leave();
}

template <bool kLeave>
void ThreadState::EndAnyGroup(uint32_t region) {
  const size_t d = depth_ - 1;
  const Frame& frame = frames_[d];
  const int64_t wall = TscTicks() - frame.start_ticks;
  if (__builtin_expect(!CountCall(frame.node, wall), 0)) {
    return EndWithoutHistogram<kLeave, Path::kSyscall, kAnyGroup, false, -1>(region, wall);
  }
  CloseEnded<kLeave, Path::kSyscall, kAnyGroup, false, -1>(region, d, frame);
}

template <bool kLeave>
void ThreadState::AddEndedFrameSlowly() {
  const size_t d = depth_;
  AddSoleUserReadSlowly(BegunSnapshot(d), NodeInclusive(frames_[d].node));
  if constexpr (kLeave) Leave();
}

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_MARKER_FORMS_H_

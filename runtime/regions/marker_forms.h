// The common BEGIN and END of ThreadState's marker forms (see Path in
// thread_state.h): what a marker does when its region is entered from the
// same parent as last time, not recursively, with room on the stack. Kept
// apart from the class, which says what each form is for; thread_state.h
// includes it at its end, so including either gives both.
#ifndef TD_RUNTIME_REGIONS_MARKER_FORMS_H_
#define TD_RUNTIME_REGIONS_MARKER_FORMS_H_

#include <cstddef>
#include <cstdint>

#include "runtime/regions/thread_state.h"

namespace td {

template <bool kLeave, ThreadState::Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
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
  if (__builtin_expect(slot.open != 0 || stats.parent != parent, 0)) return BeginMiss<kLeave, kPath>(region, site);
  slot.open = 1;
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
  if (__builtin_expect(!TakeMeasuredCall(stats), 0)) {  // TD_SAMPLE: counted, not read
    SetFrameKey(&frame, UnreadKey<kPath>(region));
  } else {
    SetFrameKey(&frame, OrdinaryKey<kPath>(region));
    // Counters first, clock last: td's own reads stay outside the region.
    if constexpr (kPath == Path::kSyscall) {
      ReadSoleGroup(FrameStart(depth));
      frame.start_ticks = TscTicks();
    } else if constexpr (kPath == Path::kUser) {
      if constexpr (kMembers == 0) {
        ReadSoleUserInline(FrameStart(depth));
      } else if (__builtin_expect(!ReadSoleUserMembers<kFake, kMembers, kGroupWord>(*sole_user_, FrameStart(depth)), 0)) {
        return ReadBegunFrameAgain<kLeave>();
      }
      frame.start_ticks = TscTicks();
    } else {
      ReadCounters(FrameStart(depth));
      frame.start_ticks = Now();
    }
  }
  if constexpr (kLeave) Leave();
}

template <bool kLeave, ThreadState::Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
inline void ThreadState::EndImpl(uint32_t region, const td_site* site) {
  const size_t depth = depth_;
  if (__builtin_expect(depth == 0, 0)) return EndMiss<kLeave, kPath>(region, site);
  const size_t d = depth - 1;
  const Frame& frame = frames_[d];
  const uint64_t key = kPath != Path::kGeneral ? FrameKey(frame) : WithoutForm(FrameKey(frame));
  if (__builtin_expect(key != OrdinaryKey<kPath>(region), 0)) {
    if (key == UnreadKey<kPath>(region)) {  // TD_SAMPLE: a call counted, not read
      PopUnmeasured(d);
      if constexpr (kLeave) Leave();
      return;
    }
    return EndMiss<kLeave, kPath>(region, site);
  }
  // The common close: the deltas go to this node's inclusive values only.
  // Clock first, counters last (the time is added before the read, so that
  // nothing needs keeping across it).
  nodes_[frame.node].wall_inclusive_ticks += (kPath != Path::kGeneral ? TscTicks() : Now()) - frame.start_ticks;
  depth_ = d;
  top_node_ = frame.parent_node;
  regions_[region].open = 0;
  if constexpr (kPath == Path::kGeneral) {
    ReadCounters(scratch_.data());
    AddFewDeltas(NodeInclusive(frame.node), BegunSnapshot(d), scratch_.data(), words_);
  } else if constexpr (kPath == Path::kSyscall) {
    ReadSoleGroup(scratch_.data());
    // Word 0 of a snapshot of one group is a count of events, or a derived
    // task-clock's 1: its delta is always 0.
    AddFewDeltas(NodeInclusive(frame.node) + 1, FrameStart(d) + 1, scratch_.data() + 1, words_ - 1);
  } else if (__builtin_expect(!AddSoleUserDeltas<kMembers, kFake, kGroupWord>(FrameStart(d), NodeInclusive(frame.node)), 0)) {
    if constexpr (kMembers == 0) {
      AddSoleUserReadSlowly(BegunSnapshot(d), NodeInclusive(frame.node));
    } else {
      return AddEndedFrameSlowly<kLeave>();
    }
  }
  if constexpr (kLeave) Leave();
}

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_MARKER_FORMS_H_

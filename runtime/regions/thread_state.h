// Everything one thread records: a tree of call-path nodes (one per distinct
// nesting of regions) and the stack of regions open right now.
//
// Only the owning thread calls Begin/End, between MarkerEntered() and
// MarkerLeft(). Finalize touches a thread's state from outside only after
// switching markers off and seeing the thread outside any marker (see
// runtime/driver/marker_handshake.h: the marker/finalize handshake).
#ifndef TD_RUNTIME_REGIONS_THREAD_STATE_H_
#define TD_RUNTIME_REGIONS_THREAD_STATE_H_

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "runtime/counters/backend.h"
#include "runtime/counters/marker_reader.h"
#include "runtime/regions/call_times.h"
#include "runtime/regions/derived_words.h"
#include "runtime/regions/marker_clock.h"
#include "runtime/regions/marker_frame.h"
#include "runtime/regions/node_stats.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/snapshot_deltas.h"
#include "runtime/regions/thread_record.h"
#include "runtime/regions/trace_ring.h"
#include "td/td.h"

namespace td {

class ThreadState {
 public:
  // `counters` may be null (not measured on this thread); `counters_error`
  // then says why.
  ThreadState(uint32_t index, int64_t tid, std::unique_ptr<ThreadCounters> counters,
              size_t words, std::string counters_error, RegionRegistry* registry);
  ThreadState(const ThreadState&) = delete;
  ThreadState& operator=(const ThreadState&) = delete;

  // The region of a parameterised site for `parameter`: a per-thread integer
  // lookup; only a value's first use on this thread asks the registry.
  uint32_t ParameterRegion(uint32_t base, long long parameter) {
    const auto it = parameter_regions_.find({base, parameter});
    if (__builtin_expect(it != parameter_regions_.end(), 1)) return it->second;
    return AddParameterRegion(base, parameter);
  }

  // The markers. The common case (not recursive, not tracing, room on the
  // stack, END matching the innermost BEGIN) stays here, inline in the C
  // entry points; everything else goes through the *Unusual functions.
  // `region` may be kUnregistered (no id yet): the general path registers it.
  // Begin/End leave the marker handshake to the caller; the *AndLeave forms
  // (the C entry points' hot path) end it themselves, so that their uncommon
  // paths are tail calls and the common one needs no stack frame.
  __attribute__((always_inline)) void Begin(uint32_t region, const td_site* site) {
    BeginImpl<false, Path::kSyscall>(region, site);
  }
  __attribute__((always_inline)) void End(uint32_t region, const td_site* site) {
    EndImpl<false, Path::kSyscall>(region, site);
  }
  __attribute__((always_inline)) void BeginAndLeave(uint32_t region, const td_site* site) {
    BeginImpl<true, Path::kSyscall>(region, site);
  }
  __attribute__((always_inline)) void EndAndLeave(uint32_t region, const td_site* site) {
    EndImpl<true, Path::kSyscall>(region, site);
  }
  // The same for the user-read form (MarkerForm::kUserRead), out of line
  // and made for the thread's group: neither form pays for the other's tests.
  void BeginUserReadAndLeave(uint32_t region, const td_site* site) { user_begin_(this, region, site); }
  void EndUserReadAndLeave(uint32_t region, const td_site* site) { user_end_(this, region, site); }
  // What those were made for: the group's members (0: none made), the word
  // its block starts at (-1: read at each marker), the tests' fake counters.
  struct MadeForms {
    uint32_t members = 0;
    int group_word = -1;
    bool fake = false;
  };
  const MadeForms& made_forms() const { return made_forms_; }
  static constexpr uint32_t kUnregistered = UINT32_MAX;  // a site's id - 1 before it has one
  // The marker is done: what it wrote is published to a finalize that waits.
  void Leave() { in_marker_.store(0, std::memory_order_release); }

  // TD_SAMPLE=N: times and counts are read on one call in N per node (the
  // first, the N+1st, …) and scaled to all calls at the end; 1 reads all.
  // Regions given an interval of their own (td_region_sample) use theirs
  // unless `per_region` is false (TD_TRACE: every call is read).
  void set_sample_every(uint32_t n, bool per_region = true) {
    sample_every_ = n < 1 ? 1 : n;
    per_region_sampling_ = per_region;
  }
  uint32_t sample_every() const { return sample_every_; }

  // The owning thread raises this flag before it checks that markers are on
  // and lowers it (release) when the marker is done; finalize waits for it
  // to be down before reading this state.
  std::atomic<uint32_t>& in_marker() { return in_marker_; }

  // Closes every open region as unterminated and warns; `when` names the
  // moment. `own_thread` false: another thread's, read through the kernel
  // (a user-space read would give the calling CPU's counters).
  void CloseOpenRegions(const char* when, bool own_thread = true);
  // Thread exit: closes open regions and releases the counters; data stays.
  void Retire();
  // In a forked child: forget the parent's totals, keep the open regions open
  // from now on, and count with fresh counters.
  void RestartAfterFork(std::unique_ptr<ThreadCounters> counters, size_t words,
                        std::string counters_error);

  // Keeps the last `capacity` begin/end events (TraceRing; 0: stops tracing).
  void EnableTrace(size_t capacity);
  // Oldest first.
  std::vector<TraceEvent> TraceEvents() const { return trace_.Events(ClockScale()); }
  const TraceRing& trace() const { return trace_; }

  RegionRegistry& registry() { return *registry_; }
  uint32_t index() const { return index_; }
  int64_t tid() const { return tid_; }
  bool retired() const { return retired_; }
  // The thread's number in the OpenMP team it was in at its first marker; -1
  // outside a parallel region or without OpenMP.
  int openmp_thread() const { return openmp_thread_; }
  void set_openmp_thread(int number) { openmp_thread_ = number; }
  // Markers take the fast path: one read() of one group, the TSC clock.
  bool fast_path() const { return fast_; }
  // Markers take the user-read form: one group read in user space (rdpmc), the TSC clock.
  bool user_read_path() const { return user_fast_; }
  bool counters_measured() const { return words_ != 0 && reader_.failures() == 0; }
  const std::string& counters_error() const { return counters_error_; }
  uint64_t read_failures() const { return reader_.failures(); }
  size_t words() const { return words_; }
  size_t open_depth() const { return depth_; }

  // For the owning thread, between MarkerEntered() and MarkerLeft(), off the
  // marker path (likwid_markerGetRegion / ResetRegion through compat_api.h).
  // What `region` recorded on this thread over all its call paths (never
  // nested: a region entered while open is recursion and shares the node):
  // its ended activations, with their inclusive wall time added to *wall_ns
  // and their inclusive words to `words` (words() entries, may be null).
  uint64_t EndedTotals(uint32_t region, int64_t* wall_ns, uint64_t* words) const;
  // Forgets what `region` and the regions inside it recorded on this thread,
  // giving back what they took from enclosing exclusive values; activations
  // open now count from here, one call each. False: out of memory, nothing
  // changed.
  bool ResetRegion(uint32_t region);

  // libtd-mpi: one MPI call from `start_ticks` (ClockNow) to now, with
  // `bytes`, added to the innermost open region's node (0: outside all),
  // inside the marker handshake like a marker: no lock, no allocation.
  void AddMpiCall(int64_t start_ticks, uint64_t bytes) {
    NodeStats& node = nodes_[top_node_];
    node.mpi_ticks += Now() - start_ticks;
    ++node.mpi_calls;
    node.mpi_bytes += bytes;
    any_mpi_ = true;
  }
  // The marker clock's reading, in this thread's ticks.
  int64_t ClockNow() const { return Now(); }

  const std::vector<NodeStats>& nodes() const { return nodes_; }
  // Every node's reported values (NodeTotals): inclusive ones scaled to all
  // calls, exclusive ones = inclusive minus the children's, plus what recursive
  // activations moved. Exact, when every call is measured, once nothing is open.
  NodeTotals ComputeTotals() const;
  // What the recorded-run model reads of this thread; it refers to this state.
  ThreadRecord Record() const;
  // Finalize, markers off for good: before any thread is merged, what only
  // markers use (child lookup, region slots), so the merged run's memory does
  // not come on top of it; once this thread's parts are merged, the nodes.
  void ReleaseMarkerLookups();
  void ReleaseRecording();  // ThreadRecord::release
  // TD_FLUSH_INTERVAL: a copy made from another thread while this one records
  // on (thread_copy.cc), with the runtime's threads lock held; null when the
  // thread kept its vectors locked too long.
  std::unique_ptr<ThreadState> CopyWhileRecording() const;

 private:
  using Frame = MarkerFrame;  // open frames, their key and the forms: marker_frame.h
  using Path = MarkerPath;
  struct RegionSlot;  // a region's open count and last node, below

  // Each form's common BEGIN and END, and the ways off it: marker_forms.h.
  // kMembers, kFake and kGroupWord: kUser's group, where known in advance
  // (0: any; -1: its word read at each marker). kSampled: BeginSampled's.
  template <bool kLeave, Path kPath, uint32_t kMembers = 0, bool kFake = false, int kGroupWord = -1,
            bool kSampled = false>
  __attribute__((always_inline)) void BeginImpl(uint32_t region, const td_site* site);
  template <bool kLeave, Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
  __attribute__((noinline)) void BeginSampled(const RegionSlot* slot, const td_site* site);
  template <bool kLeave, Path kPath, uint32_t kMembers = 0, bool kFake = false, int kGroupWord = -1>
  __attribute__((always_inline)) void EndImpl(uint32_t region, const td_site* site);
  // END after the time is counted: the frame closed and the counters read.
  template <bool kLeave, Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
  __attribute__((always_inline)) void CloseEnded(uint32_t region, size_t d, const Frame& frame);
  template <bool kLeave, Path kPath, uint32_t kMembers, bool kFake, int kGroupWord>
  __attribute__((noinline)) void EndWithoutHistogram(uint32_t region, int64_t wall);
  template <bool kLeave, Path kPath>
  __attribute__((always_inline)) void BeginMiss(uint32_t region, const td_site* site);
  template <bool kLeave, Path kPath>
  __attribute__((always_inline)) void EndMiss(uint32_t region, const td_site* site);
  // Inline in the syscall form's cold path, so that both ways out are tail
  // calls: the general form pays a test, not a stack frame.
  template <bool kLeave>
  __attribute__((always_inline)) void BeginSyscallMiss(uint32_t region, const td_site* site);
  template <bool kLeave>
  __attribute__((noinline)) void EndSyscallMiss(uint32_t region, const td_site* site);
  template <bool kLeave>
  __attribute__((noinline)) void BeginUser(uint32_t region, const td_site* site);
  template <bool kLeave>
  __attribute__((noinline)) void EndUser(uint32_t region, const td_site* site);
  // The user-read forms the C markers call (BeginUserReadAndLeave), one per
  // group size, kind of counter and where the group's block starts, so that
  // the read has no dispatch and each keeps its registers to what its group
  // needs; UpdateLimits picks the pair. kGroupWord is -1 (read at each
  // marker) or the word of the one layout a sole user-read group comes in
  // on a PMU host: the derived task-clock's 4 words, then the group (4).
  using UserReadForm = void (*)(ThreadState* thread, uint32_t region, const td_site* site);
  template <uint32_t kMembers, bool kFake, int kGroupWord>
  __attribute__((noinline)) static void BeginUserForm(ThreadState* thread, uint32_t region, const td_site* site);
  template <uint32_t kMembers, bool kFake, int kGroupWord>
  __attribute__((noinline)) static void EndUserForm(ThreadState* thread, uint32_t region, const td_site* site);
  // A thread that does not read in user space, in a process whose gate says
  // its threads do: the syscall form, whose misses lead to the general one.
  static void BeginWithoutUserForm(ThreadState* t, uint32_t region, const td_site* site) { t->BeginAndLeave(region, site); }
  static void EndWithoutUserForm(ThreadState* t, uint32_t region, const td_site* site) { t->EndAndLeave(region, site); }
  template <bool kFake, int kGroupWord, uint32_t... kLess>
  static std::array<std::pair<UserReadForm, UserReadForm>, sizeof...(kLess)> UserReadForms(
      std::integer_sequence<uint32_t, kLess...>);
  void PickUserReadForms();
  // The general form and the *Unusual functions, with kLeave through
  // ThenLeave, out of line, so that the hot path's call is a tail call.
  using MarkerForm = void (ThreadState::*)(uint32_t region, const td_site* site);
  template <bool kLeave, MarkerForm kForm>
  void OffPath(uint32_t region, const td_site* site);
  // kForm, then the handshake's end, also when kForm throws (out of memory
  // growing a vector): a flag left up would make finalize wait for this
  // thread and drop it.
  template <MarkerForm kForm>
  __attribute__((noinline)) void ThenLeave(uint32_t region, const td_site* site);
  uint32_t Registered(uint32_t region, const td_site* site);
  void BeginGeneral(uint32_t region, const td_site* site);
  void EndGeneral(uint32_t region, const td_site* site);

  // Opens a frame; a measured one reads the counters first and the clock
  // last, and END the reverse: td's own reads fall outside the region's time.
  __attribute__((always_inline)) Frame& Push(uint32_t node, uint32_t parent, uint32_t region, bool recursive,
                                             const td_site* site, bool measured);
  // A read outermost call's close: its time to the node's inclusive time and
  // histogram; false where it has none yet (CountedWithoutHistogram makes it).
  __attribute__((always_inline)) bool CountCall(uint32_t node, int64_t wall);
  void CountedWithoutHistogram(uint32_t node, int64_t wall);
  void PopUnmeasured(size_t d) {
    depth_ = d;
    top_node_ = frames_[d].parent_node;
    --regions_[frames_[d].region].open;
  }

  // The marker clock: the TSC, or CLOCK_MONOTONIC ns (marker_clock.h).
  int64_t Now() const { return tsc_clock_ ? TscTicks() : MonotonicNs(); }
  uint64_t* FrameStart(size_t depth) { return frame_words_.data() + depth * words_; }
  // The snapshot the frame at `depth` began with, for anything but the
  // user-read END that closes it: the user-read BEGIN leaves the derived
  // task-clock's words out (ReadSoleUserMembers), and they are written here.
  const uint64_t* BegunSnapshot(size_t depth) {
    uint64_t* start = FrameStart(depth);
    if (frames_[depth].form == FormByte(Path::kUser) && reader_.sole_user() != nullptr) {
      CompleteSoleUserSnapshot(*reader_.sole_user(), start);
    }
    return start;
  }
  uint64_t* NodeInclusive(uint32_t node) { return node_words_.data() + size_t{node} * node_stride_; }
  uint64_t* NodeMoved(uint32_t node) { return NodeInclusive(node) + words_; }

  // The user-read END where the copied pages cannot serve: a snapshot read
  // (copying the pages again, or through the group reader), then its difference.
  __attribute__((noinline)) void AddSoleUserReadSlowly(const uint64_t* start, uint64_t* to) {
    reader_.ReadSoleUserInline(scratch_.data());
    AddDeltas(to, start, scratch_.data(), words_);
  }
  // The cold ends of the user-read forms made for a group size (the copied
  // pages cannot serve), tail calls that find the frame again from the depth
  // so that the forms keep nothing across a call: BEGIN's read and clock,
  // END's read and add (depth_ has moved past it; its slot is intact).
  template <bool kLeave>
  __attribute__((noinline)) void ReadBegunFrameAgain();
  template <bool kLeave>
  __attribute__((noinline)) void AddEndedFrameSlowly();
  // kSyscall's END for a group other than the software one (kMembers kAnyGroup).
  template <bool kLeave>
  __attribute__((noinline)) void EndAnyGroup(uint32_t region);
  // The software form's cold ends, the same way: its read went wrong.
  template <bool kLeave>
  __attribute__((noinline)) void SoleReadFailedInBegin();
  template <bool kLeave>
  __attribute__((noinline)) void SoleReadFailedInEnd();
  // Whichever read the counters have (MarkerReader::Read).
  void ReadCounters(uint64_t* snapshot) { reader_.Read(snapshot); }
  // Word i of a node's raw inclusive values, `raw`.
  uint64_t InclusiveWord(const uint64_t* raw, size_t i) const { return derived_.Word(raw, i); }
  // Outermost calls / read outermost calls of `node` (TD_SAMPLE), or 1.
  double Scale(const NodeStats& node) const;
  void BeginUnusual(uint32_t region, const td_site* site);
  void EndUnusual(uint32_t region, const td_site* site);
  void UseCounters(std::unique_ptr<ThreadCounters> counters);

  uint32_t AddParameterRegion(uint32_t base, long long parameter);
  // The node `region` used last is checked first: a region is nearly always
  // entered from the same parent.
  uint32_t ChildOf(uint32_t parent, uint32_t region) {
    const uint32_t last = regions_[region].last_node;  // 0 (parent kNone) when none yet
    if (__builtin_expect(nodes_[last].parent == parent, 1)) return last;
    return FindOrAddChild(parent, region);
  }
  uint32_t FindOrAddChild(uint32_t parent, uint32_t region);
  uint32_t AddNode(uint32_t parent, uint32_t region);
  uint32_t InnermostOpenNode(uint32_t region) const;
  size_t InnermostOpenDepth(uint32_t region) const;  // depth_ when not open
  void Grow(uint32_t region);
  void UpdateLimits();  // frame_limit_ and region_limit_ from the vectors and tracing_
  void CloseTop(int64_t now, const uint64_t* end_snapshot);
  void WarnOnce(const td_site* site, const std::string& message);
  // Ticks to nanoseconds: the identity unless the markers read the TSC.
  TickScale ClockScale() const { return tsc_clock_ ? CurrentTickScale() : TickScale(); }
  void ResetStorage(size_t words);

  std::atomic<uint32_t> in_marker_{0};
  // Held while the owning thread grows its vectors (never on the markers'
  // common path) and while CopyWhileRecording copies them (thread_copy.cc).
  mutable std::atomic<uint32_t> storage_lock_{0};
  bool copied_while_recording_ = false;  // a CopyWhileRecording: exclusive values stop at 0
  bool tsc_clock_ = ProcessMarkerClock() == MarkerClock::kTsc;
  uint32_t index_;
  int64_t tid_;
  MarkerReader reader_;  // the thread's counters and the form that reads them
  DerivedWords derived_;  // the words the common forms leave unwritten; kept with the nodes
  // kSyscall's ordinary key less the region: form byte 1 for the software
  // group (kSoftwareGroupWords), else kSyscallAnyGroupForm (EndAnyGroup).
  uint64_t syscall_key_ = OrdinaryKey<Path::kSyscall>(0);
  UserReadForm user_begin_ = &BeginWithoutUserForm;  // PickUserReadForms
  UserReadForm user_end_ = &EndWithoutUserForm;
  MadeForms made_forms_;
  size_t words_;
  size_t node_stride_ = 0;  // 2 * words_: END's NodeInclusive in one multiply
  std::string counters_error_;
  RegionRegistry* registry_;
  bool retired_ = false;
  int openmp_thread_ = -1;

  std::vector<NodeStats> nodes_;
  CallTimeStore call_times_;  // NodeStats::call_times
  std::vector<uint64_t> node_words_;   // per node: inclusive words, then exclusive words
  FrameStack frames_;
  std::vector<uint64_t> frame_words_;  // per depth: the snapshot taken at BEGIN
  size_t depth_ = 0;
  // fast_: one group read with one read() (MarkerReader::sole_kernel_read) and the TSC clock.
  bool fast_ = false;
  // user_fast_: one group read in user space (MarkerReader::sole_user) and the TSC clock.
  bool user_fast_ = false;
  size_t frame_limit_ = 0;     // frames_.size(), or 0 while tracing or not fast_: BEGIN's test for all
  size_t user_frame_limit_ = 0;  // the same for Path::kUser
  uint32_t region_limit_ = 0;  // regions_.size()
  uint32_t top_node_ = 0;      // the innermost open frame's node; 0 (the thread) when none
  bool tracing_ = false;       // trace_.active()
  uint32_t sample_every_ = 1;  // TD_SAMPLE
  bool per_region_sampling_ = true;  // td_region_sample's intervals apply
  bool any_sampled_ = false;         // some node reads fewer calls than it has
  bool any_mpi_ = false;             // AddMpiCall was called: ComputeTotals sums MPI values
  struct RegionSlot {
    // Activations open now, and kSampled once a node of the region reads
    // fewer calls than it has (TD_SAMPLE): the common BEGIN takes only a
    // slot of 0, so only BeginSampled's form has a countdown.
    static constexpr uint32_t kSampled = 1u << 31;
    uint32_t open = 0;
    uint32_t last_node = 0;  // the node it was entered as last; 0: not yet
    uint32_t OpenCount() const { return open & ~kSampled; }
  };
  std::vector<RegionSlot> regions_;    // per region id
  std::vector<uint64_t> scratch_;      // END's snapshot
  absl::flat_hash_map<std::pair<uint32_t, long long>, uint32_t> parameter_regions_;
  // (parent node, region) -> node, for parents with many children, where a
  // walk of the sibling list would cost more than one integer hash.
  absl::flat_hash_map<uint64_t, uint32_t> child_of_;
  TraceRing trace_;
};

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_THREAD_STATE_H_

// ThreadState::CopyWhileRecording: the periodic flush's view of a thread
// that goes on recording. No marker waits for it: the markers' common path
// writes in place, and the copy reads each word once, so a value written
// meanwhile is either its old or its new one (a call counted whose time is
// not yet added, say) but never garbage; exclusive values that this leaves
// below 0 stop at 0. Open regions are closed in the copy at this moment,
// their counts read through the kernel where the backend can, else stopping
// at their BEGIN. Only the growth of the vectors (Grow, AddNode: off the
// common path) and the copy wait for each other, on storage_lock_; the copy
// gives up after 100 ms (kCopyWaitNs: a signal handler that interrupted the thread
// there and never returns, say).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/counters/sole_user_read.h"
#include "runtime/regions/spin_guard.h"
#include "runtime/regions/thread_state.h"

namespace td {
namespace {

constexpr int64_t kCopyWaitNs = 100'000'000;

// Whole words, each loaded once: the owner stores to them meanwhile, and a
// word read whole is its old or its new value, never a mix. The may_alias
// type lets node and frame records be read as words.
using AliasedWord = uint64_t __attribute__((may_alias));

template <typename T>
__attribute__((no_sanitize("thread"))) void CopyWords(const T* from, T* to, size_t count) {
  static_assert(sizeof(T) % sizeof(uint64_t) == 0 && alignof(T) >= alignof(uint64_t));
  const auto* in = reinterpret_cast<const AliasedWord*>(from);
  auto* out = reinterpret_cast<AliasedWord*>(to);
  const size_t words = count * sizeof(T) / sizeof(uint64_t);
  for (size_t i = 0; i < words; ++i) out[i] = __atomic_load_n(&in[i], __ATOMIC_RELAXED);
}

template <typename T>
__attribute__((no_sanitize("thread"))) T LoadOnce(const T& value) {
  return __atomic_load_n(&value, __ATOMIC_RELAXED);
}

}  // namespace

__attribute__((no_sanitize("thread"))) std::unique_ptr<ThreadState> ThreadState::CopyWhileRecording() const {
  auto copy = std::make_unique<ThreadState>(index_, tid_, nullptr, 0, counters_error_, registry_);
  ThreadState& c = *copy;
  c.copied_while_recording_ = true;
  c.words_ = words_;
  c.node_stride_ = node_stride_;
  c.scratch_.assign(words_ + MarkerReader::kSlackWords, 0);
  c.derived_ = derived_;
  c.syscall_key_ = syscall_key_;
  c.retired_ = retired_;
  c.openmp_thread_ = openmp_thread_;
  c.sample_every_ = sample_every_;
  c.any_sampled_ = LoadOnce(any_sampled_);
  c.any_mpi_ = LoadOnce(any_mpi_);
  size_t depth = 0;
  {
    const SpinGuard copying(storage_lock_, kCopyWaitNs);
    if (!copying.held()) return nullptr;
    const size_t nodes = nodes_.size();
    c.nodes_.resize(nodes);
    CopyWords(nodes_.data(), c.nodes_.data(), nodes);
    const std::vector<CallTimeHistogram>& histograms = call_times_.histograms();
    c.call_times_.histograms().resize(histograms.size());
    CopyWords(histograms.data(), c.call_times_.histograms().data(), histograms.size());
    c.node_words_.resize(nodes * 2 * words_);
    CopyWords(node_words_.data(), c.node_words_.data(), c.node_words_.size());
    depth = std::min(LoadOnce(depth_), frames_.size());
    c.frames_.resize(depth);
    CopyWords(frames_.data(), c.frames_.data(), depth);
    c.frame_words_.assign(depth * words_ + MarkerReader::kSlackWords, 0);
    CopyWords(frame_words_.data(), c.frame_words_.data(), depth * words_);
  }
  // The open frames, as read: a frame pushed or popped while they were
  // copied may pair words of two frames, each a real value of its time. One
  // whose node or start is not a value a frame of this copy can hold adds
  // nothing (closed as an unread call).
  const int64_t now = Now();
  uint32_t regions = 0;
  for (Frame& frame : c.frames_) {
    const bool fits = frame.node < c.nodes_.size() && frame.parent_node < c.nodes_.size() && frame.node != 0;
    if (!fits || frame.start_ticks <= 0 || frame.start_ticks > now) {
      frame = Frame{};
      frame.measured = false;
    }
    regions = std::max(regions, frame.region + 1);
  }
  c.regions_.assign(regions, RegionSlot{});
  for (const Frame& frame : c.frames_) ++c.regions_[frame.region].open;
  c.depth_ = depth;
  c.top_node_ = depth == 0 ? 0 : c.frames_[depth - 1].node;
  // A user-read BEGIN leaves the derived task-clock's words to its END.
  const SoleUserRead* sole_user = reader_.sole_user();
  for (size_t d = 0; d < depth && sole_user != nullptr; ++d) {
    if (c.frames_[d].form == FormByte(Path::kUser)) CompleteSoleUserSnapshot(*sole_user, c.FrameStart(d));
  }
  const ThreadCounters* counters = reader_.counters();
  const bool counted = depth != 0 && words_ != 0 && counters != nullptr &&
                       counters->PeekFromAnotherThread(c.scratch_.data());
  while (c.depth_ != 0) c.CloseTop(now, counted ? c.scratch_.data() : c.FrameStart(c.depth_ - 1));
  return copy;
}

}  // namespace td

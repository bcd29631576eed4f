#include "runtime/regions/thread_state.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"
#include "runtime/base/diagnostics.h"

namespace td {
namespace {
constexpr size_t kInitialDepth = 32;
constexpr size_t kInitialTraceEvents = 1024;

// Up to this many children a parent's list is walked; beyond, the hash
// table answers (measured: benchmarks/callgrind_pairs.c with siblings).
constexpr uint32_t kWalkedChildren = 8;
uint64_t ChildKey(uint32_t parent, uint32_t region) { return (uint64_t{parent} << 32) | region; }

// "file:line" of a marker; dynamic names (td_region_begin_name) have no line.
std::string Where(const td_site* site) {
  if (site->line <= 0) return "(dynamic name)";
  return absl::StrFormat("%s:%d", site->file != nullptr ? site->file : "?", site->line);
}

// All threads' trace rings together stay within this many bytes.
std::atomic<size_t> g_trace_limit{size_t{512} << 20};
std::atomic<size_t> g_trace_bytes{0};
}  // namespace

void ThreadState::SetTraceMemoryLimit(size_t bytes) { g_trace_limit.store(bytes, std::memory_order_relaxed); }

ThreadState::ThreadState(uint32_t index, int64_t tid, std::unique_ptr<ThreadCounters> counters,
                         size_t words, std::string counters_error, RegionRegistry* registry)
    : index_(index), tid_(tid), registry_(registry) {
  counters_ = std::move(counters);
  counters_error_ = std::move(counters_error);
  ResetStorage(counters_ ? words : 0);
}

void ThreadState::ResetStorage(size_t words) {
  words_ = words;
  nodes_.assign(1, NodeStats{});  // node 0: the thread itself
  child_of_.clear();
  node_words_.assign(2 * words_, 0);
  frames_.resize(kInitialDepth);
  frame_words_.assign(kInitialDepth * words_, 0);
  scratch_.assign(words_, 0);
}

void ThreadState::Grow(uint32_t region) {
  if (region >= open_count_.size()) {
    open_count_.resize(std::max<size_t>(region + 1, 2 * open_count_.size()), 0);
  }
  if (depth_ == frames_.size()) {
    frames_.resize(2 * frames_.size());
    frame_words_.resize(frames_.size() * words_, 0);
  }
}

uint32_t ThreadState::AddNode(uint32_t parent, uint32_t region) {
  const auto id = static_cast<uint32_t>(nodes_.size());
  NodeStats node;
  node.region = region;
  node.parent = parent;
  node.next_sibling = nodes_[parent].first_child;
  nodes_[parent].first_child = id;
  const uint32_t siblings = ++nodes_[parent].child_count;
  if (siblings == kWalkedChildren + 1) {
    // From now on this parent's children are found through the table.
    for (uint32_t c = node.next_sibling; c != NodeStats::kNone; c = nodes_[c].next_sibling) {
      child_of_.emplace(ChildKey(parent, nodes_[c].region), c);
    }
  }
  if (siblings > kWalkedChildren) child_of_.emplace(ChildKey(parent, region), id);
  nodes_.push_back(node);
  node_words_.resize(nodes_.size() * 2 * words_, 0);
  return id;
}

uint32_t ThreadState::AddParameterRegion(uint32_t base, long long parameter) {
  const uint32_t id = registry_->IdForParameter(base, parameter);
  parameter_regions_.emplace(std::make_pair(base, parameter), id);
  return id;
}

uint32_t ThreadState::FindOrAddChild(uint32_t parent, uint32_t region) {
  uint32_t child = NodeStats::kNone;
  if (nodes_[parent].child_count <= kWalkedChildren) {
    for (uint32_t c = nodes_[parent].first_child; c != NodeStats::kNone; c = nodes_[c].next_sibling) {
      if (nodes_[c].region == region) {
        child = c;
        break;
      }
    }
  } else if (const auto it = child_of_.find(ChildKey(parent, region)); it != child_of_.end()) {
    child = it->second;
  }
  if (child == NodeStats::kNone) child = AddNode(parent, region);
  nodes_[parent].last_child = child;
  return child;
}

size_t ThreadState::InnermostOpenDepth(uint32_t region) const {
  for (size_t d = depth_; d-- > 0;) {
    if (frames_[d].region == region) return d;
  }
  return depth_;
}

uint32_t ThreadState::InnermostOpenNode(uint32_t region) const {
  return frames_[InnermostOpenDepth(region)].node;
}

void ThreadState::ReadCounters(uint64_t* snapshot) {
  if (words_ != 0 && !counters_->Read(snapshot)) ++read_failures_;
}

void ThreadState::Begin(uint32_t region, const td_site* site) {
  if (__builtin_expect(region >= open_count_.size() || depth_ == frames_.size(), 0)) Grow(region);
  const uint32_t parent = depth_ != 0 ? frames_[depth_ - 1].node : 0;
  // A region already open on this thread is recursion: its activations share
  // one node and only the outermost one adds inclusive values.
  const bool recursive = open_count_[region] != 0;
  const uint32_t node = recursive ? InnermostOpenNode(region) : ChildOf(parent, region);
  ++open_count_[region];
  NodeStats& stats = nodes_[node];
  ++stats.calls;
  stats.recursive_calls += recursive;

  const size_t depth = depth_++;
  Frame& frame = frames_[depth];
  frame.node = node;
  frame.parent_node = parent;
  frame.region = region;
  frame.keep_inclusive = recursive ? 0 : ~uint64_t{0};
  frame.site = site;
  // The counters first and the clock last, and the reverse at END, so that
  // td's own reads fall outside the region's wall time.
  ReadCounters(FrameStart(depth));
  frame.start_ns = MonotonicNs();
  if (__builtin_expect(!trace_.empty(), 0)) Trace(region, true, frame.start_ns, FrameStart(depth));
}

ThreadState::~ThreadState() { ReleaseTrace(); }

void ThreadState::ReleaseTrace() {
  g_trace_bytes.fetch_sub(trace_.size() * sizeof(TraceSlot) + trace_counters_.size() * sizeof(uint64_t),
                          std::memory_order_relaxed);
  std::vector<TraceSlot>().swap(trace_);
  std::vector<uint64_t>().swap(trace_counters_);
}

void ThreadState::EnableTrace(size_t capacity) {
  ReleaseTrace();
  trace_capacity_ = capacity;
  trace_growing_ = capacity != 0;
  trace_next_ = 0;
  trace_recorded_ = 0;
  trace_truncated_.clear();
  if (capacity != 0 && !GrowTrace()) trace_growing_ = false;
}

// Doubles the ring (the first call makes it kInitialTraceEvents long). It is
// full and has not wrapped yet, so the events stay where they are. Returns
// false, and says why in trace_truncated_, where it cannot grow.
bool ThreadState::GrowTrace() {
  const size_t old_size = trace_.size();
  const size_t new_size = std::min(trace_capacity_, old_size == 0 ? kInitialTraceEvents : 2 * old_size);
  if (new_size <= old_size) {
    trace_growing_ = false;
    return false;
  }
  const size_t added = (new_size - old_size) * TraceBytesPerEvent(words_);
  const size_t limit = g_trace_limit.load(std::memory_order_relaxed);
  if (g_trace_bytes.fetch_add(added, std::memory_order_relaxed) + added > limit) {
    g_trace_bytes.fetch_sub(added, std::memory_order_relaxed);
    trace_truncated_ = absl::StrFormat("all threads' traces reached TD_TRACE_MEMORY=%d MiB", limit >> 20);
    trace_growing_ = false;
    return false;
  }
  try {
    trace_.resize(new_size);
    trace_counters_.resize(new_size * words_);
  } catch (const std::bad_alloc&) {
    g_trace_bytes.fetch_sub(added, std::memory_order_relaxed);
    trace_.resize(old_size);  // shrinking never allocates
    trace_counters_.resize(old_size * words_);
    trace_truncated_ = absl::StrFormat("memory for more than %d events could not be allocated", old_size);
    trace_growing_ = false;
    return false;
  }
  return true;
}

void ThreadState::Trace(uint32_t region, bool begin, int64_t time_ns, const uint64_t* snapshot) {
  if (trace_next_ == trace_.size()) {
    // Full: grow while it may, then overwrite the oldest.
    if (!trace_growing_ || !GrowTrace()) trace_next_ = 0;
    if (trace_.empty()) return;  // not even the first block could be had
  }
  trace_[trace_next_] = TraceSlot{time_ns, region, begin};
  std::copy(snapshot, snapshot + words_, trace_counters_.begin() + trace_next_ * words_);
  ++trace_next_;
  ++trace_recorded_;
}

std::vector<TraceEvent> ThreadState::TraceEvents() const {
  std::vector<TraceEvent> events;
  if (trace_.empty()) return events;
  const size_t kept = std::min<uint64_t>(trace_recorded_, trace_.size());
  const size_t first = trace_recorded_ > trace_.size() ? trace_next_ : 0;
  for (size_t i = 0; i < kept; ++i) {
    const size_t slot = (first + i) % trace_.size();
    const TraceSlot& t = trace_[slot];
    events.push_back({t.time_ns, t.region, t.begin, trace_counters_.data() + slot * words_});
  }
  return events;
}

// Snapshots are a handful of words: GCC's vectorised loop spends more on its
// run-time alias checks than the scalar loop spends in total (callgrind: 187
// against the figures in docs/performance.md).
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
void ThreadState::CloseTop(int64_t now, const uint64_t* __restrict end) {
  const size_t d = --depth_;
  const Frame& frame = frames_[d];
  if (__builtin_expect(!trace_.empty(), 0)) Trace(frame.region, false, now, end);
  NodeStats& stats = nodes_[frame.node];
  const int64_t wall = now - frame.start_ns;
  stats.wall_inclusive_ns += wall & static_cast<int64_t>(frame.keep_inclusive);
  // Exclusive = own delta minus the children's: add here, take from the parent.
  stats.wall_exclusive_ns += wall;
  nodes_[frame.parent_node].wall_exclusive_ns -= wall;

  // Locals, because stores through uint64_t* could alias the size_t members
  // and would otherwise force a reload of each on every iteration.
  const size_t words = words_;
  const uint64_t keep = frame.keep_inclusive;
  const uint64_t* __restrict start = FrameStart(d);
  uint64_t* inclusive = NodeInclusive(frame.node);
  uint64_t* exclusive = NodeExclusive(frame.node);
  uint64_t* parent_exclusive = NodeExclusive(frame.parent_node);
  --open_count_[frame.region];
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
  for (size_t i = 0; i < words; ++i) {
    const uint64_t delta = end[i] - start[i];
    inclusive[i] += delta & keep;
    exclusive[i] += delta;
    parent_exclusive[i] -= delta;
  }
}

void ThreadState::End(uint32_t region, const td_site* site) {
  const int64_t now = MonotonicNs();
  ReadCounters(scratch_.data());
  if (__builtin_expect(depth_ != 0 && frames_[depth_ - 1].region == region, 1)) {
    CloseTop(now, scratch_.data());
    return;
  }
  // The unusual cases: warn once per call site, keep well-formed regions right.
  const std::string end_name = registry_->Name(region);
  if (depth_ == 0) {
    WarnOnce(site, absl::StrFormat("TD_REGION_END(\"%s\") at %s with no region open on "
                                   "thread %u; ignored",
                                   end_name, Where(site), index_));
    return;
  }
  const Frame& top = frames_[depth_ - 1];
  const std::string open_name = registry_->Name(top.region);
  const size_t target = InnermostOpenDepth(region);
  if (target == depth_) {
    WarnOnce(site, absl::StrFormat(
                       "TD_REGION_END(\"%s\") at %s does not match the innermost open "
                       "region \"%s\" (begun at %s), and \"%s\" is not open; END ignored",
                       end_name, Where(site), open_name, Where(top.site), end_name));
    return;
  }
  WarnOnce(site, absl::StrFormat(
                     "TD_REGION_END(\"%s\") at %s does not match the innermost open region "
                     "\"%s\" (begun at %s); the regions inside \"%s\" were closed here",
                     end_name, Where(site), open_name, Where(top.site), end_name));
  while (depth_ - 1 > target) {
    ++nodes_[frames_[depth_ - 1].node].closed_implicitly;
    CloseTop(now, scratch_.data());
  }
  CloseTop(now, scratch_.data());
}

uint64_t ThreadState::EndedTotals(uint32_t region, int64_t* wall_ns, uint64_t* words) const {
  uint64_t calls = 0;
  for (uint32_t n = 1; n < nodes_.size(); ++n) {
    const NodeStats& node = nodes_[n];
    if (node.region != region) continue;
    calls += node.calls;
    if (wall_ns != nullptr) *wall_ns += node.wall_inclusive_ns;
    if (words != nullptr) {
      const uint64_t* inclusive = node_words_.data() + n * 2 * words_;
      for (size_t i = 0; i < words_; ++i) words[i] += inclusive[i];
    }
  }
  const uint64_t open = region < open_count_.size() ? open_count_[region] : 0;
  return calls > open ? calls - open : 0;
}

bool ThreadState::ResetRegion(uint32_t region) {
  // Nodes are created after their parents, so one pass in id order marks
  // every node of `region` and everything below them.
  std::vector<uint8_t> inside;
  try {
    inside.assign(nodes_.size(), 0);
  } catch (const std::bad_alloc&) {
    return false;
  }
  bool any = false;
  for (uint32_t n = 1; n < nodes_.size(); ++n) {
    inside[n] = nodes_[n].region == region || inside[nodes_[n].parent] != 0;
    any = any || inside[n] != 0;
  }
  if (!any) return true;
  for (uint32_t n = 1; n < nodes_.size(); ++n) {
    if (inside[n] == 0) continue;
    NodeStats& node = nodes_[n];
    uint64_t* inclusive = NodeInclusive(n);
    if (inside[node.parent] == 0) {
      // The outermost activations of this node took their deltas from the
      // parent's exclusive values: they go back.
      nodes_[node.parent].wall_exclusive_ns += node.wall_inclusive_ns;
      uint64_t* parent_exclusive = NodeExclusive(node.parent);
      for (size_t i = 0; i < words_; ++i) parent_exclusive[i] += inclusive[i];
    }
    node.calls = 0;
    node.recursive_calls = 0;
    node.unterminated = 0;
    node.closed_implicitly = 0;
    node.wall_inclusive_ns = 0;
    node.wall_exclusive_ns = 0;
    std::fill(inclusive, inclusive + 2 * words_, uint64_t{0});
  }
  // Open activations inside restart now, all from the same reading, so the
  // exclusive values among them stay exact.
  bool restarted = false;
  int64_t now = 0;
  for (size_t d = 0; d < depth_; ++d) {
    Frame& frame = frames_[d];
    if (inside[frame.node] == 0) continue;
    if (!restarted) {
      ReadCounters(scratch_.data());
      now = MonotonicNs();
      restarted = true;
    }
    std::copy(scratch_.begin(), scratch_.end(), FrameStart(d));
    frame.start_ns = now;
    ++nodes_[frame.node].calls;
    nodes_[frame.node].recursive_calls += frame.keep_inclusive == 0 ? 1 : 0;
  }
  return true;
}

void ThreadState::WarnOnce(const td_site* site, const std::string& message) {
  auto* mutable_site = const_cast<td_site*>(site);
  if (__atomic_exchange_n(&mutable_site->warned, 1, __ATOMIC_RELAXED) != 0) return;
  ReportProblem(Severity::kWarning, message);
}

void ThreadState::CloseOpenRegions(const char* when, bool own_thread) {
  if (depth_ == 0) return;
  // From another thread only the kernel can read this thread's counters;
  // where the backend cannot, each region's counts stop at its BEGIN.
  bool counted = true;
  if (own_thread) {
    ReadCounters(scratch_.data());
  } else if (words_ != 0) {
    counted = counters_ != nullptr && counters_->ReadFromAnotherThread(scratch_.data());
  }
  const int64_t now = MonotonicNs();
  std::string names;
  while (depth_ != 0) {
    const Frame& top = frames_[depth_ - 1];
    absl::StrAppendFormat(&names, "%s\"%s\" (%s)", names.empty() ? "" : ", ", registry_->Name(top.region),
                          Where(top.site));
    ++nodes_[top.node].unterminated;
    CloseTop(now, counted ? scratch_.data() : FrameStart(depth_ - 1));
  }
  ReportProblem(Severity::kWarning,
                absl::StrFormat("thread %u: regions still open at %s, reported as unterminated and "
                                "closed then: %s",
                                index_, when, names));
}

void ThreadState::Retire() {
  CloseOpenRegions("thread exit");
  counters_.reset();
  retired_ = true;
}

void ThreadState::RestartAfterFork(std::unique_ptr<ThreadCounters> counters, size_t words,
                                   std::string counters_error) {
  std::vector<Frame> open(frames_.begin(), frames_.begin() + static_cast<long>(depth_));
  counters_ = std::move(counters);
  counters_error_ = std::move(counters_error);
  read_failures_ = 0;
  const size_t trace_capacity = trace_capacity_;
  ResetStorage(counters_ ? words : 0);
  if (trace_capacity != 0) EnableTrace(trace_capacity);  // the child's own timeline
  std::fill(open_count_.begin(), open_count_.end(), 0);
  depth_ = 0;
  for (const Frame& frame : open) Begin(frame.region, frame.site);
}

}  // namespace td

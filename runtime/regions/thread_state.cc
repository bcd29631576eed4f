#include "runtime/regions/thread_state.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_format.h"
#include "runtime/base/diagnostics.h"
#include "runtime/regions/marker_forms.h"
#include "runtime/regions/spin_guard.h"

namespace td {
namespace {
constexpr size_t kInitialDepth = 32;

// Up to this many children a parent's list is walked; beyond, the hash
// table answers (measured: benchmarks/callgrind_pairs.c with siblings).
constexpr uint32_t kWalkedChildren = 8;
uint64_t ChildKey(uint32_t parent, uint32_t region) { return (uint64_t{parent} << 32) | region; }

// "file:line" of a marker; dynamic names (td_region_begin_name) have no line.
std::string Where(const td_site* site) {
  if (site->line <= 0) return "(dynamic name)";
  return absl::StrFormat("%s:%d", site->file != nullptr ? site->file : "?", site->line);
}
}  // namespace

ThreadState::ThreadState(uint32_t index, int64_t tid, std::unique_ptr<ThreadCounters> counters,
                         size_t words, std::string counters_error, RegionRegistry* registry)
    : index_(index), tid_(tid), registry_(registry) {
  UseCounters(std::move(counters));
  counters_error_ = std::move(counters_error);
  ResetStorage(reader_.has_counters() ? words : 0);
}

void ThreadState::UseCounters(std::unique_ptr<ThreadCounters> counters) {
  reader_.Use(std::move(counters));
  const SoleUserRead* sole_user = reader_.sole_user();
  // New counters come with fresh nodes (the constructor, RestartAfterFork).
  derived_ = DerivedWords{};
  if (sole_user != nullptr && sole_user->time_copy_word != SoleUserRead::kNoTimeCopy) {
    derived_.time_copy_word = sole_user->time_copy_word;
    derived_.time_copy_source = size_t{sole_user->group_word} + 1;
  }
  const size_t task_clock = reader_.sole_kernel_read() ? reader_.counters()->SoleSoftwareTaskClockWord() : SIZE_MAX;
  if (task_clock != SIZE_MAX) {
    derived_.group_times = 2;
    derived_.group_time_source = task_clock;
  }
}

void ThreadState::ResetStorage(size_t words) {
  words_ = words;
  node_stride_ = 2 * words;
  if (words_ == 0) reader_.Forget();
  nodes_.assign(1, NodeStats{});  // node 0: the thread itself
  call_times_.histograms().clear();
  child_of_.clear();
  node_words_.assign(2 * words_, 0);
  frames_.assign(kInitialDepth);  // no flag of an earlier frame survives
  UpdateLimits();
  // The reader's slack word: the deepest frame's start and the scratch may
  // each take one word more than a snapshot.
  frame_words_.assign(kInitialDepth * words_ + MarkerReader::kSlackWords, 0);
  scratch_.assign(words_ + MarkerReader::kSlackWords, 0);
  top_node_ = 0;
}

void ThreadState::Grow(uint32_t region) {
  const SpinGuard growing(storage_lock_);
  if (region >= regions_.size()) regions_.resize(std::max<size_t>(size_t{region} + 1, 2 * regions_.size()));
  if (depth_ == frames_.size()) {
    frames_.resize(2 * frames_.size());
    frame_words_.resize(frames_.size() * words_ + MarkerReader::kSlackWords, 0);
  }
  UpdateLimits();
}

void ThreadState::UpdateLimits() {
  fast_ = tsc_clock_ && reader_.sole_kernel_read() && words_ >= 1 && reader_.has_counters();
  user_fast_ = tsc_clock_ && reader_.sole_user() != nullptr && words_ >= 1 && reader_.has_counters();
  frame_limit_ = tracing_ || !fast_ ? 0 : frames_.size();
  syscall_key_ = derived_.group_times != 0 && words_ == kSoftwareGroupWords
                     ? OrdinaryKey<Path::kSyscall>(0)
                     : OrdinaryKey<Path::kSyscall>(0) ^ (uint64_t{FormByte(Path::kSyscall) ^ kSyscallAnyGroupForm} << 56);
  user_frame_limit_ = tracing_ || !user_fast_ ? 0 : frames_.size();
  region_limit_ = static_cast<uint32_t>(std::min<size_t>(regions_.size(), UINT32_MAX));
  PickUserReadForms();
}

template <bool kFake, int kGroupWord, uint32_t... kLess>
std::array<std::pair<ThreadState::UserReadForm, ThreadState::UserReadForm>, sizeof...(kLess)> ThreadState::UserReadForms(
    std::integer_sequence<uint32_t, kLess...>) {
  return {{{&BeginUserForm<kLess + 1, kFake, kGroupWord>, &EndUserForm<kLess + 1, kFake, kGroupWord>}...}};
}

void ThreadState::PickUserReadForms() {
  using Members = std::make_integer_sequence<uint32_t, SoleUserRead::kMaxMembers>;
  static const auto kReal = UserReadForms<false, -1>(Members{});
  static const auto kFake = UserReadForms<true, -1>(Members{});
  static const auto kRealAfterTime = UserReadForms<false, 4>(Members{});
  static const auto kFakeAfterTime = UserReadForms<true, 4>(Members{});
  user_begin_ = &BeginWithoutUserForm;
  user_end_ = &EndWithoutUserForm;
  made_forms_ = MadeForms{};
  const SoleUserRead* sole_user = reader_.sole_user();
  const uint32_t members = sole_user != nullptr ? sole_user->members : 0;
  if (!user_fast_ || members < 1 || members > SoleUserRead::kMaxMembers) return;
  const bool fake = sole_user->fake_pmc != nullptr;
  const bool after_time = sole_user->group_word == 4 && sole_user->time_copy_word == 0;
  const auto& forms = after_time ? (fake ? kFakeAfterTime : kRealAfterTime) : (fake ? kFake : kReal);
  user_begin_ = forms[members - 1].first;
  user_end_ = forms[members - 1].second;
  made_forms_ = MadeForms{members, after_time ? 4 : -1, fake};
}

uint32_t ThreadState::AddNode(uint32_t parent, uint32_t region) {
  const SpinGuard growing(storage_lock_);
  const auto id = static_cast<uint32_t>(nodes_.size());
  NodeStats node;
  node.region = region;
  node.parent = parent;
  const uint32_t own =
      per_region_sampling_ && registry_->AnyOwnInterval() ? registry_->SampleEveryOfNewNode(region) : 0;
  node.sample_every = per_region_sampling_ && own != 0 ? own : sample_every_;
  any_sampled_ = any_sampled_ || node.sample_every > 1;
  if (node.sample_every > 1) regions_[region].open |= RegionSlot::kSampled;
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

void ThreadState::CountedWithoutHistogram(uint32_t node, int64_t wall) {
  NodeStats& stats = nodes_[node];
  if (stats.call_times == NodeStats::kNone) {  // its first read call
    stats.call_times = NodeStats::kOneTimed;
    return;
  }
  if (stats.call_times == NodeStats::kNoHistogram) return;
  const SpinGuard growing(storage_lock_);
  try {
    stats.call_times = call_times_.Add();
  } catch (const std::bad_alloc&) {  // no exception leaves a marker
    stats.call_times = NodeStats::kNoHistogram;
    return;
  }
  CallTimeHistogram& histogram = call_times_.At(stats.call_times);
  for (const int64_t call : {stats.wall_inclusive_ticks - wall, wall}) {
    ++histogram.counts[CallTimeSlot(call)];
    histogram.ticks[CallTimeSlot(call)] += call;
  }
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
  regions_[region].last_node = child;
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

// Begin's uncommon cases: growing the stack or the open counts, recursion,
// tracing.
void ThreadState::BeginUnusual(uint32_t region, const td_site* site) {
  if (region >= regions_.size() || depth_ == frames_.size()) Grow(region);
  const uint32_t parent = top_node_;
  // A region already open on this thread is recursion: its activations share
  // one node and only the outermost one adds inclusive values.
  const bool recursive = regions_[region].OpenCount() != 0;
  const uint32_t node = recursive ? InnermostOpenNode(region) : ChildOf(parent, region);
  ++regions_[region].open;
  NodeStats& stats = nodes_[node];
  ++stats.calls;
  stats.recursive_calls += recursive;
  // Recursive activations are always read: the time they move from the
  // region they were entered in to this one is then a total, not a sample,
  // and only outermost calls (the ones that add inclusive values) are
  // sampled. (The runtime turns sampling off while tracing: a timeline
  // needs every snapshot.)
  const bool measured = recursive || TakeMeasuredCall(stats);
  const Frame& frame = Push(node, parent, region, recursive, site, measured);
  if (tracing_ && measured) trace_.Record(region, true, frame.start_ticks, FrameStart(depth_ - 1));
}

// The fast path's way out. A site's first use arrives here as kUnregistered
// (its id is still 0): it is registered now.
uint32_t ThreadState::Registered(uint32_t region, const td_site* site) {
  if (__builtin_expect(region != kUnregistered, 1) || site == nullptr) return region;
  return registry_->IdForSite(const_cast<td_site*>(site));
}

void ThreadState::BeginGeneral(uint32_t region, const td_site* site) {
  region = Registered(region, site);
  if (region != kUnregistered) BeginImpl<false, Path::kGeneral>(region, site);
}
void ThreadState::EndGeneral(uint32_t region, const td_site* site) {
  region = Registered(region, site);
  if (region != kUnregistered) EndImpl<false, Path::kGeneral>(region, site);
}
ThreadRecord ThreadState::Record() const {
  ThreadRecord record;
  record.index = index_;
  record.tid = tid_;
  record.retired = retired_;
  record.openmp_thread = openmp_thread_;
  record.counters_measured = counters_measured();
  record.counters_error = counters_error_;
  if (reader_.counters() != nullptr) record.counters_lost = reader_.counters()->Lost();
  record.read_failures = read_failures();
  record.words = words_;
  record.nodes = &nodes_;
  record.totals = [this] { return ComputeTotals(); };
  return record;
}

void ThreadState::ReleaseRecording() {
  const SpinGuard releasing(storage_lock_);  // a periodic flush still copying sees all or nothing
  std::vector<NodeStats>(1).swap(nodes_);
  std::vector<uint64_t>(2 * words_, 0).swap(node_words_);
  std::vector<CallTimeHistogram>().swap(call_times_.histograms());
  absl::flat_hash_map<uint64_t, uint32_t>().swap(child_of_);
  std::vector<RegionSlot>().swap(regions_);  // their last nodes are gone
  depth_ = 0;
  top_node_ = 0;
  UpdateLimits();
}

void ThreadState::ReleaseMarkerLookups() {
  const SpinGuard releasing(storage_lock_);
  absl::flat_hash_map<uint64_t, uint32_t>().swap(child_of_);
  std::vector<RegionSlot>().swap(regions_);
  UpdateLimits();  // a marker now takes the general way, which the gate keeps closed
}

void ThreadState::EnableTrace(size_t capacity) {
  trace_.Enable(capacity, words_);
  tracing_ = trace_.active();
  UpdateLimits();
}

// Every close but End's common one: recursive activations move their deltas
// from the node they were entered in to their own (see NodeStats).
void ThreadState::CloseTop(int64_t now, const uint64_t* end) {
  const size_t d = depth_ - 1;
  const Frame& frame = frames_[d];
  if (!frame.measured) {
    PopUnmeasured(d);
    return;
  }
  depth_ = d;
  if (tracing_) trace_.Record(frame.region, false, now, end);
  top_node_ = frame.parent_node;
  --regions_[frame.region].open;
  NodeStats& stats = nodes_[frame.node];
  const int64_t wall = now - frame.start_ticks;
  if (!frame.recursive) {
    if (!CountCall(frame.node, wall)) CountedWithoutHistogram(frame.node, wall);
    AddDeltas(NodeInclusive(frame.node), BegunSnapshot(d), end, words_);
    return;
  }
  stats.wall_moved_ticks += wall;
  nodes_[frame.parent_node].wall_moved_ticks -= wall;
  const uint64_t* start = BegunSnapshot(d);
  uint64_t* moved = NodeMoved(frame.node);
  uint64_t* parent_moved = NodeMoved(frame.parent_node);
  for (size_t i = 0; i < words_; ++i) {
    const uint64_t delta = end[i] - start[i];
    moved[i] += delta;
    parent_moved[i] -= delta;
  }
}

// End's uncommon cases (the counters and the clock are read): tracing or
// recursion, and ENDs that do not match the innermost BEGIN.
void ThreadState::EndUnusual(uint32_t region, const td_site* site) {
  const int64_t now = Now();
  ReadCounters(scratch_.data());
  if (depth_ != 0 && frames_[depth_ - 1].region == region) {
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
                       end_name, Where(site), open_name, registry_->SiteLocation(top.site), end_name));
    return;
  }
  WarnOnce(site, absl::StrFormat(
                     "TD_REGION_END(\"%s\") at %s does not match the innermost open region "
                     "\"%s\" (begun at %s); the regions inside \"%s\" were closed here",
                     end_name, Where(site), open_name, registry_->SiteLocation(top.site), end_name));
  while (depth_ - 1 > target) {
    ++nodes_[frames_[depth_ - 1].node].closed_implicitly;
    CloseTop(now, scratch_.data());
  }
  CloseTop(now, scratch_.data());
}

uint64_t ThreadState::EndedTotals(uint32_t region, int64_t* wall_ns, uint64_t* words) const {
  uint64_t calls = 0;
  int64_t wall_ticks = 0;
  for (uint32_t n = 1; n < nodes_.size(); ++n) {
    const NodeStats& node = nodes_[n];
    if (node.region != region) continue;
    calls += node.calls;
    const double scale = Scale(node);
    wall_ticks += ScaledWall(node.wall_inclusive_ticks, scale);
    if (words != nullptr) {
      const uint64_t* inclusive = node_words_.data() + n * 2 * words_;
      for (size_t i = 0; i < words_; ++i) words[i] += ScaledCount(InclusiveWord(inclusive, i), scale);
    }
  }
  if (wall_ns != nullptr) *wall_ns += ClockScale().Ns(wall_ticks);
  const uint64_t open = region < regions_.size() ? regions_[region].OpenCount() : 0;
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
  // The enclosing nodes' exclusive values are worked out from their
  // children's inclusive ones, so zeroing these gives those back.
  for (uint32_t n = 1; n < nodes_.size(); ++n) {
    if (inside[n] == 0) continue;
    NodeStats& node = nodes_[n];
    uint64_t* inclusive = NodeInclusive(n);
    node.calls = 0;
    node.until_measured = 1;
    node.recursive_calls = 0;
    node.unterminated = 0;
    node.closed_implicitly = 0;
    node.wall_inclusive_ticks = 0;
    node.wall_moved_ticks = 0;
    node.mpi_ticks = 0;
    node.mpi_calls = 0;
    node.mpi_bytes = 0;
    if (node.call_times < NodeStats::kNoHistogram) call_times_.At(node.call_times) = CallTimeHistogram{};
    if (node.call_times == NodeStats::kOneTimed) node.call_times = NodeStats::kNone;
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
      now = Now();
      restarted = true;
    }
    std::copy_n(scratch_.begin(), words_, FrameStart(d));
    frame.start_ticks = now;
    frame.measured = true;  // its first call from here: measured, as a first call is
    NodeStats& stats = nodes_[frame.node];
    if (stats.calls++ == 0) stats.until_measured = stats.sample_every;
    stats.recursive_calls += frame.recursive ? 1 : 0;
  }
  return true;
}

double ThreadState::Scale(const NodeStats& node) const {
  const uint64_t outermost = node.calls - std::min(node.recursive_calls, node.calls);
  const uint64_t measured = MeasuredOutermostCalls(outermost, node.sample_every);
  return measured == 0 || measured == outermost ? 1.0
                                                : static_cast<double>(outermost) / static_cast<double>(measured);
}

NodeTotals ThreadState::ComputeTotals() const {
  NodeTotals out;
  const size_t n_nodes = nodes_.size();
  const TickScale clock = ClockScale();
  out.wall_inclusive_ns.resize(n_nodes);
  out.wall_exclusive_ns.resize(n_nodes);
  out.inclusive_words.resize(n_nodes * words_);
  out.exclusive_words.resize(n_nodes * words_);
  for (uint32_t n = 0; n < n_nodes; ++n) {
    const NodeStats& node = nodes_[n];
    const double scale = Scale(node);
    const uint64_t* raw = node_words_.data() + n * 2 * words_;
    const uint64_t* moved = raw + words_;
    uint64_t* inclusive = out.inclusive_words.data() + n * words_;
    uint64_t* exclusive = out.exclusive_words.data() + n * words_;
    out.wall_inclusive_ns[n] = clock.Ns(ScaledWall(node.wall_inclusive_ticks, scale));
    out.wall_exclusive_ns[n] += out.wall_inclusive_ns[n] + clock.Ns(node.wall_moved_ticks);
    for (size_t i = 0; i < words_; ++i) {
      inclusive[i] = ScaledCount(InclusiveWord(raw, i), scale);
      exclusive[i] += inclusive[i] + moved[i];
    }
    // Parents come before their children, so the parent's slot exists.
    if (n == 0) continue;
    const uint32_t parent = node.parent;
    out.wall_exclusive_ns[parent] -= out.wall_inclusive_ns[n];
    uint64_t* parent_exclusive = out.exclusive_words.data() + parent * words_;
    for (size_t i = 0; i < words_; ++i) parent_exclusive[i] -= inclusive[i];
  }
  if (!call_times_.empty()) {
    out.call_times_ns.resize(n_nodes);
    for (uint32_t n = 0; n < n_nodes; ++n) {
      const CallTimeHistogram* histogram = call_times_.Reported(nodes_[n].call_times);
      if (histogram != nullptr) out.call_times_ns[n] = CallTimesInNs(*histogram, clock.ns_per_tick());
    }
  }
  if (any_mpi_) {
    out.mpi_inclusive_ns.resize(n_nodes);
    out.mpi_inclusive_calls.resize(n_nodes);
    out.mpi_inclusive_bytes.resize(n_nodes);
    for (uint32_t n = 0; n < n_nodes; ++n) {
      out.mpi_inclusive_ns[n] = clock.Ns(nodes_[n].mpi_ticks);
      out.mpi_inclusive_calls[n] = nodes_[n].mpi_calls;
      out.mpi_inclusive_bytes[n] = nodes_[n].mpi_bytes;
    }
    // Children come after their parents: from the last node back, each adds
    // its (complete) sums to its parent's. Node 0 keeps its own: the time
    // outside every region.
    for (uint32_t n = static_cast<uint32_t>(n_nodes); n-- > 1;) {
      const uint32_t parent = nodes_[n].parent;
      if (parent == 0) continue;
      out.mpi_inclusive_ns[parent] += out.mpi_inclusive_ns[n];
      out.mpi_inclusive_calls[parent] += out.mpi_inclusive_calls[n];
      out.mpi_inclusive_bytes[parent] += out.mpi_inclusive_bytes[n];
    }
  }
  if (any_sampled_ || copied_while_recording_) {
    // A copy made while the thread recorded may hold a child's time added
    // and its parent's not yet.
    // Scaled estimates of a parent and its children can cross: a parent
    // whose read calls were short shows less than its children's estimate.
    // Exclusive values stop at 0 rather than wrap.
    for (int64_t& ns : out.wall_exclusive_ns) ns = std::max<int64_t>(ns, 0);
    for (uint64_t& word : out.exclusive_words) {
      if (static_cast<int64_t>(word) < 0) word = 0;
    }
  }
  return out;
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
    counted = reader_.ReadFromAnotherThread(scratch_.data());
  }
  const int64_t now = Now();
  std::string names;
  while (depth_ != 0) {
    const Frame& top = frames_[depth_ - 1];
    absl::StrAppendFormat(&names, "%s\"%s\" (%s)", names.empty() ? "" : ", ", registry_->Name(top.region),
                          registry_->SiteLocation(top.site));
    ++nodes_[top.node].unterminated;
    CloseTop(now, counted ? scratch_.data() : BegunSnapshot(depth_ - 1));
  }
  ReportProblem(Severity::kWarning,
                absl::StrFormat("thread %u: regions still open at %s, reported as unterminated and "
                                "closed then: %s",
                                index_, when, names));
}

void ThreadState::Retire() {
  CloseOpenRegions("thread exit");
  reader_.Release();
  UpdateLimits();
  retired_ = true;
}

void ThreadState::RestartAfterFork(std::unique_ptr<ThreadCounters> counters, size_t words,
                                   std::string counters_error) {
  std::vector<Frame> open(frames_.begin(), frames_.begin() + static_cast<long>(depth_));
  UseCounters(std::move(counters));
  counters_error_ = std::move(counters_error);
  reader_.ResetFailures();
  const size_t trace_capacity = trace_.capacity();
  ResetStorage(reader_.has_counters() ? words : 0);
  if (trace_capacity != 0) EnableTrace(trace_capacity);  // the child's own timeline
  std::fill(regions_.begin(), regions_.end(), RegionSlot{});
  depth_ = 0;
  for (const Frame& frame : open) Begin(frame.region, frame.site);
}

}  // namespace td

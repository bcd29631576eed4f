#include "runtime/driver/runtime.h"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/base/diagnostics.h"
#include "runtime/driver/marker_calibration.h"
#include "runtime/driver/marker_handshake.h"
#include "runtime/driver/no_cancellation.h"
#include "runtime/driver/periodic_flush.h"
#include "runtime/driver/signal_flush.h"
#include "runtime/machine/bandwidth_calibration.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/event_selection.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/recorded/merge_threads.h"
#include "runtime/regions/marker_clock.h"
#include "runtime/base/byte_strings.h"
#include "runtime/recorded/run_file.h"
#include "runtime/base/output_files.h"
#include "runtime/regions/thread_state.h"
#include "runtime/report/text_report.h"
#include "runtime/report/trace_export.h"

#ifndef TD_VERSION_STRING
#define TD_VERSION_STRING "0.0.0"
#endif

namespace td {

}  // namespace td

namespace td {
constinit thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec"))) = nullptr;
constinit thread_local bool t_in_slow_path __attribute__((tls_model("initial-exec"))) = false;


namespace {

// OpenMP's own answers where the program runs on GCC's OpenMP runtime,
// without td linking one: weak references are null in a program without
// OpenMP. LLVM's libomp (told apart by its own entry point) is not asked: it
// initialises itself on the first call, allocating and registering fork
// handlers, which td must not do to a program that has not started OpenMP;
// libgomp's two answers only read the calling thread's state.
extern "C" int omp_get_thread_num(void) __attribute__((weak));
extern "C" int omp_get_level(void) __attribute__((weak));
extern "C" int __kmpc_global_thread_num(void*) __attribute__((weak));

// This thread's number in its OpenMP team, or -1 outside a parallel region
// (where every thread, OpenMP's or not, would answer 0), without OpenMP, or
// on libomp.
int OpenMpThreadNumber() {
  if (omp_get_thread_num == nullptr || omp_get_level == nullptr || __kmpc_global_thread_num != nullptr) return -1;
  if (omp_get_level() < 1) return -1;
  return omp_get_thread_num();
}

pthread_key_t g_exit_key;

int64_t UnixNowNs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::vector<std::string> ReadArgv() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> argv;
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

void FinalizeAtExit() { Runtime::Get().Finalize(); }


// How long finalize waits for threads to leave their markers (a marker
// takes microseconds; one blocked on a full stderr pipe may take longer).
constexpr int64_t kMarkerWaitNs = 1000000000;

}  // namespace

Runtime& Runtime::Get() {
  static Runtime* runtime = new Runtime;  // never destroyed: threads may outlive exit()
  return *runtime;
}

void Runtime::SetProgramName(const char* name) {
  std::lock_guard<std::mutex> lock(program_name_mu_);
  program_name_ = name != nullptr ? name : "";
}

bool Runtime::EnsureStarted() {
  if (LoadState() == RuntimeState::kUninitialized) {
    const NoCancellation not_here;
    const InSlowPath marked;
    std::lock_guard<std::mutex> lock(start_mu_);
    if (LoadState() == RuntimeState::kUninitialized) Start();
  }
  return LoadState() == RuntimeState::kRunning;
}

void Runtime::UseBackend(std::unique_ptr<CounterBackend> backend) {
  std::lock_guard<std::mutex> lock(start_mu_);
  if (LoadState() == RuntimeState::kUninitialized) chosen_backend_ = std::move(backend);
}

void Runtime::Start() {
  ConfigReading reading = ReadConfigFromEnvironment();
  config_ = std::move(reading.config);
  // In an MPI job only the ranks that print reports print notices: a
  // thousand ranks saying the same thing bury the one line that matters.
  // Warnings and errors still come from every rank.
  SetQuiet(config_.quiet || !PrintsReports(config_));
  for (auto& e : reading.problems) ReportProblem(Severity::kError, std::move(e));
  // A misspelled setting does nothing: said once, at start, where reports are
  // printed (one rank of an MPI job, not each; the first of td run's passes).
  if (PrintsReports(config_) && config_.pass == 1) {
    for (auto& u : reading.unknown) ReportProblem(Severity::kWarning, std::move(u));
  }
  if (config_.disabled) {
    SetState(RuntimeState::kOff);
    return;
  }
  CheckDefinitionSettings();
  TraceRing::SetMemoryLimit(config_.trace_memory_mb << 20);
  regions_.SetMaxNames(config_.max_names);
  if (config_.backend == BackendChoice::kReplay && StartReplay()) return;
  Availability availability;
  if (config_.backend == BackendChoice::kNone) {
    availability.software_reason = "TD_BACKEND=none";
    availability.hardware_reason = "TD_BACKEND=none";
    availability.measured = "wall time and calls only";
  } else {
    availability = DescribeAvailability(ProbeMachine(&RealPerfEventOpen));
  }
  if (chosen_backend_ != nullptr) {
    backend_ = std::move(chosen_backend_);
    availability = backend_->availability();
  } else if (config_.backend == BackendChoice::kPapi && StartPapi(availability)) {
    // PAPI counts; availability now says so.
  } else if (config_.backend == BackendChoice::kSimulate && StartSimulated(&availability)) {
    // tdsim counts; availability names its models.
  } else if (availability.software_counters) {
    CounterLayout layout = SoftwareLayout();
    AddSelectedGroups(&availability, &layout);
    backend_ = MakePerfEventBackend(std::move(layout), availability, &RealPerfEventOpen,
                                    config_.rdpmc ? UserReads::kAuto : UserReads::kOff);
  } else {
    backend_ = MakeNullBackend(availability);
  }
  if (!availability.hardware_counters) {
    ReportProblem(Severity::kNotice,
                  absl::StrFormat("hardware counters unavailable: %s; measuring %s",
                                  availability.hardware_reason, availability.measured));
  }
  start_unix_ns_ = UnixNowNs();
  std::string why_not_tsc;
  if (ChooseMarkerClock(config_.tsc_clock, &why_not_tsc) != MarkerClock::kTsc && config_.tsc_clock_asked) {
    ReportProblem(Severity::kWarning, "TD_CLOCK=tsc: " + why_not_tsc + "; markers use CLOCK_MONOTONIC");
  }
  ChooseMarkerBarrier();
  pthread_key_create(&g_exit_key, &Runtime::OnThreadExit);
  pthread_atfork(&Runtime::BeforeFork, &Runtime::AfterForkInParent, &Runtime::AfterForkInChild);
  std::atexit(&FinalizeAtExit);
  if (config_.signals) {
    ReportProblem(Severity::kNotice, InstallSignalFlush(&FinalizeAtExit, config_.mpi ? kMpiSignalLingerMs : 0));
  }
  // td_finalize() on another thread while this one started td comes first:
  // markers stay off from then on, as td.h says.
  if (!SwitchMarkersOn()) {
    ReportProblem(Severity::kNotice, "td_finalize() was called while td was starting: markers stay off");
    return;
  }
  if (config_.flush_interval_s > 0 && config_.write_json) {  // TD_JSON=0: no file to flush to
    const std::string refused =
        StartPeriodicFlush(&Runtime::FlushAtInterval, static_cast<int64_t>(config_.flush_interval_s));
    if (!refused.empty()) ReportProblem(Severity::kWarning, refused);
  }
}

// TD_METRICS_DIR and TD_UARCH are otherwise only used once there are
// hardware counts to analyse: a mistake in them is said now, on any machine.
// Markers record nothing: at exit the recording goes through the same
// analysis and reports as a live run would.
bool Runtime::StartReplay() {
  absl::StatusOr<RunData> recording = absl::ResourceExhaustedError("out of memory");
  try {  // inside a marker: nothing may escape into the program
    recording = ReadRunFile(config_.replay_file);
  } catch (const std::bad_alloc&) {
  }
  if (!recording.ok()) {
    ReportProblem(Severity::kError, absl::StrFormat("TD_BACKEND=replay:%s: %s; measuring this run instead",
                                             config_.replay_file, recording.status().message()));
    return false;
  }
  replay_ = std::make_unique<RunData>(*std::move(recording));
  ReportProblem(Severity::kNotice, absl::StrFormat("replaying %s (recorded from %s, pid %d); markers of "
                                            "this run are not measured",
                                            config_.replay_file, replay_->program.name,
                                            replay_->program.pid));
  std::atexit(&FinalizeAtExit);
  SetState(RuntimeState::kOff);
  return true;
}

ThreadState* Runtime::ThisThreadSlow() {
  const NoCancellation not_here;
  const InSlowPath marked;
  if (!EnsureStarted()) return nullptr;
  ThreadState* state = t_thread_state;
  return state != nullptr ? state : AttachThisThread();
}

namespace {
// The gate's form follows the last thread attached that has one of the two
// forms; a thread that takes the general path (no counters, another clock)
// leaves it as it is, so that it never slows the threads that have one.
void VoteForMarkerForm(const ThreadState& thread) {
  if (thread.user_read_path()) {
    PreferMarkerForm(MarkerForm::kUserRead);
  } else if (thread.fast_path()) {
    PreferMarkerForm(MarkerForm::kSyscallRead);
  }
}
}  // namespace

ThreadState* Runtime::AttachThisThread() {
  if (!EnsureStarted()) return nullptr;
  auto [counters, error] = OpenCountersOfThisThread(*backend_);
  const auto tid = static_cast<int64_t>(syscall(SYS_gettid));
  std::lock_guard<std::mutex> lock(threads_mu_);
  if (LoadState() != RuntimeState::kRunning) return nullptr;
  const auto index = static_cast<uint32_t>(threads_.size());
  // Threads usually fail alike (same limit, same missing PMU): one line for
  // the first thread of each cause, and finalize says how many it hit; each
  // thread's JSON entry keeps its own error.
  if (!error.empty()) {
    const size_t at = error.find(" failed with ");
    const std::string cause = at == std::string::npos ? error : error.substr(at + 13);
    if (++thread_error_causes_[cause] == 1) {
      ReportProblem(Severity::kWarning,
                    absl::StrFormat("thread %d: counters not measured: %s; later threads failing with %s are not "
                                    "listed again (finalize says how many)",
                                    index, error, cause));
    }
  }
  threads_.push_back(std::make_unique<ThreadState>(index, tid, std::move(counters),
                                                   backend_->layout().words, error, &regions_));
  if (config_.trace) threads_.back()->EnableTrace(config_.trace_events);
  threads_.back()->set_sample_every(SampleEvery(), !config_.trace);
  threads_.back()->set_openmp_thread(OpenMpThreadNumber());
  t_thread_state = threads_.back().get();
  pthread_setspecific(g_exit_key, t_thread_state);
  VoteForMarkerForm(*t_thread_state);
  return t_thread_state;
}

void Runtime::OnThreadExit(void* state) {
  Runtime& runtime = Get();
  const InSlowPath marked;
  std::lock_guard<std::mutex> lock(runtime.threads_mu_);
  auto* thread = static_cast<ThreadState*>(state);
  // Up while the thread's regions close: a signal handler's marker returns
  // at once instead of running on a state half closed.
  thread->in_marker().store(1, std::memory_order_relaxed);
  if (LoadState() == RuntimeState::kRunning) thread->Retire();
  t_thread_state = nullptr;
  thread->Leave();
}

void Runtime::BeforeFork() {
  // Same order as everywhere else: threads, then names, then diagnostics.
  Runtime& runtime = Get();
  runtime.partial_mu_.lock();  // a partial file being written is finished first
  runtime.threads_mu_.lock();
  runtime.regions_.LockForFork();
  LockDiagnosticsForFork();
  LockMarkerGateForFork();
}

void Runtime::AfterForkInParent() {
  Runtime& runtime = Get();
  UnlockMarkerGateAfterFork();
  UnlockDiagnosticsAfterFork();
  runtime.regions_.UnlockAfterFork();
  runtime.threads_mu_.unlock();
  runtime.partial_mu_.unlock();
}

void Runtime::AfterForkInChild() {
  Runtime& runtime = Get();
  UnlockMarkerGateAfterFork();
  UnlockDiagnosticsAfterFork();
  runtime.regions_.UnlockAfterFork();
  runtime.threads_mu_.unlock();
  runtime.partial_file_ = OwnFile{};  // the parent's: the child writes its own
  runtime.partial_failure_said_ = false;
  runtime.partial_mu_.unlock();
  if (LoadState() != RuntimeState::kRunning) return;
  ChooseMarkerBarrier();
  if (runtime.config_.signals) RestartSignalFlushInChild();
  if (runtime.config_.flush_interval_s > 0 && runtime.config_.write_json) RestartPeriodicFlushInChild();
  std::lock_guard<std::mutex> lock(runtime.threads_mu_);
  // The child has only the forking thread. The parent writes its own data;
  // the child keeps only what happens from now on, with counters of its own.
  // The other threads' states stay as fork() found them, never touched again:
  // a thread may have been inside a marker, its vectors half grown, and
  // freeing them here is what crashed children. What they hold is the
  // parent's copy-on-write memory and close-on-exec counter descriptors.
  std::unique_ptr<ThreadState> self;
  for (auto& thread : runtime.threads_) {
    if (thread.get() == t_thread_state) {
      self = std::move(thread);
    } else {
      runtime.left_by_fork_.push_back(thread.release());
    }
  }
  runtime.threads_.clear();
  ClearDiagnostics();
  runtime.thread_error_causes_.clear();  // the child's report says its own
  runtime.start_unix_ns_ = UnixNowNs();
  if (self == nullptr) return;
  auto [counters, error] = OpenCountersOfThisThread(*runtime.backend_);
  self->RestartAfterFork(std::move(counters), runtime.backend_->layout().words, error);
  VoteForMarkerForm(*self);
  runtime.threads_.push_back(std::move(self));
}

void Runtime::SampleRegion(const char* name, unsigned every) {
  const std::string shown = Printable(name);
  if (every < 1 || every > (1u << 20)) {
    ReportProblem(Severity::kWarning, absl::StrFormat("td_region_sample(\"%s\", %u): the interval is 1 to 1048576; "
                                                      "the region stays as TD_SAMPLE says",
                                                      shown, every));
    return;
  }
  if (config_.trace) {
    ReportProblem(Severity::kNotice, absl::StrFormat("td_region_sample(\"%s\", %u) ignored: TD_TRACE reads every call",
                                                     shown, every));
    return;
  }
  if (!regions_.SetSampleEvery(name, every)) {
    ReportProblem(Severity::kWarning,
                  absl::StrFormat("td_region_sample(\"%s\", %u) after the region's first BEGIN: ignored (call it "
                                  "before the region is first entered, e.g. at the start of main)",
                                  shown, every));
  }
}

void Runtime::Finalize() {
  const NoCancellation not_here;
  const bool was_running = SwitchMarkersOffFromAny() == RuntimeState::kRunning;
  __atomic_store_n(&td_markers_off, 1, __ATOMIC_RELAXED);
  // The complete file comes last: no partial one is begun from now on.
  StopPeriodicFlush();
  // A replay is set up under the start-up lock: a start-up still running on
  // another thread finishes first (bounded, as finalize waits for markers).
  std::unique_lock<std::mutex> start(start_mu_, std::defer_lock);
  for (int attempt = 0; attempt < 10000 && !start.try_lock(); ++attempt) usleep(100);
  std::unique_ptr<RunData> recording = start.owns_lock() ? std::move(replay_) : nullptr;
  if (start.owns_lock()) start.unlock();
  if (recording != nullptr) {
    try {
      WriteTextReport(*recording);
    } catch (const std::exception& e) {
      Announce(Severity::kError, absl::StrCat("the report could not be written: ", e.what()));
    } catch (...) {
      Announce(Severity::kError, "the report could not be written");
    }
    return;
  }
  if (!was_running) return;  // never started, disabled, or already finalized
  // Finalize runs inside the program's exit(): nothing may escape into it.
  try {
    CollectAndWrite();
  } catch (const std::exception& e) {
    Announce(Severity::kError, absl::StrCat("the reports could not be written: ", e.what()));
  } catch (...) {
    Announce(Severity::kError, "the reports could not be written");
  }
}

std::vector<ThreadState*> Runtime::QuiescentThreads() {
  FullBarrierOnEveryThread();
  std::vector<ThreadState*> threads;
  {
    // No thread attaches from now on: AttachThisThread checks the state
    // under this lock. The wait happens outside it, since a thread inside a
    // marker's slow path may be about to take it.
    std::lock_guard<std::mutex> lock(threads_mu_);
    for (const auto& thread : threads_) threads.push_back(thread.get());
  }
  std::vector<ThreadState*> quiet;
  std::vector<uint32_t> busy;
  const int64_t deadline = MonotonicNs() + kMarkerWaitNs;
  for (ThreadState* thread : threads) {
    // Finalize called from inside a marker of this thread (a signal handler)
    // would find its state half-written: that thread is left out too.
    bool waiting = thread->in_marker().load(std::memory_order_seq_cst) != 0;
    while (waiting && thread != t_thread_state && MonotonicNs() < deadline) {
      sched_yield();
      waiting = thread->in_marker().load(std::memory_order_seq_cst) != 0;
    }
    if (waiting) {
      busy.push_back(thread->index());
    } else {
      quiet.push_back(thread);
    }
  }
  if (!busy.empty()) {
    ReportProblem(Severity::kWarning,
                  absl::StrFormat("%d thread%s (%s) stayed inside a td marker while the run ended; their regions "
                                  "are left out of this report",
                                  busy.size(), busy.size() == 1 ? "" : "s", absl::StrJoin(busy, ", ")));
  }
  return quiet;
}

void Runtime::CollectAndWrite() {
  std::vector<ThreadTrace> traces;
  RunData data = CollectQuiet(&traces);
  // The trace is by far the largest output: running out of memory for it
  // must not cost the counts. It is given up in one line, and what it held
  // is returned before the reports are formatted.
  if (config_.trace && !traces.empty()) WriteTrace(data, traces);
  std::vector<ThreadTrace>().swap(traces);
  WriteReports(data);
}

RunData Runtime::CollectQuiet(std::vector<ThreadTrace>* traces_out) {
  RunData data;
  std::vector<ThreadTrace>& traces = *traces_out;
  bool trace_lost = false;
  const std::vector<ThreadState*> threads = QuiescentThreads();
  {
    std::lock_guard<std::mutex> lock(threads_mu_);
    for (ThreadState* thread : threads) {
      if (!thread->retired()) thread->CloseOpenRegions("finalize", thread == t_thread_state);
      if (!config_.trace || trace_lost) continue;
      try {
        traces.push_back({thread->index(), thread->tid(), thread->TraceEvents(), thread->trace().dropped()});
      } catch (const std::bad_alloc&) {
        std::vector<ThreadTrace>().swap(traces);
        trace_lost = true;
        Announce(Severity::kError, "trace: out of memory while collecting it; not written (the reports follow)");
        continue;
      }
      if (!thread->trace().truncated().empty()) {
        ReportProblem(Severity::kWarning,
                      absl::StrFormat("TD_TRACE: trace truncated: thread %d keeps its %d most recent events of %d, "
                                      "because %s",
                                      thread->index(), thread->trace().kept(),
                                      thread->trace().kept() + thread->trace().dropped(), thread->trace().truncated()));
      } else if (thread->trace().dropped() != 0) {
        ReportProblem(Severity::kWarning,
                      absl::StrFormat("TD_TRACE: thread %d overwrote its %d oldest events (ring of %d); "
                                      "the trace keeps the most recent ones, raise TD_TRACE_EVENTS for more",
                                      thread->index(), thread->trace().dropped(), config_.trace_events));
      }
    }
    for (const auto& [cause, threads_hit] : thread_error_causes_) {
      if (threads_hit > 1) {
        ReportProblem(Severity::kWarning,
                      absl::StrFormat("counters not measured on %d threads: %s", threads_hit, cause));
      }
    }
    data = Collect(threads);
  }
  return data;
}

void Runtime::DescribeRun(RunData* data) {
  data->td_version = TD_VERSION_STRING;
  {
    std::lock_guard<std::mutex> lock(program_name_mu_);
    data->program.name = program_name_.empty() ? program_invocation_short_name : program_name_;
  }
  data->program.pid = getpid();
  data->program.argv = ReadArgv();
  data->program.start_unix_ns = start_unix_ns_;
  data->program.end_unix_ns = UnixNowNs();
  data->machine = DescribeThisMachine();
  if (config_.mpi) {
    data->mpi = MpiRank{config_.mpi->rank, config_.mpi->size, config_.mpi->job, data->machine.hostname,
                        config_.mpi->launcher, config_.mpi->aborted, FlushingSignal()};
  }
  data->backend = std::string(backend_->name());
  data->marker_clock = MarkerClockName(ProcessMarkerClock());
  data->layout = backend_->layout();
  data->availability = backend_->availability();
  data->sample_every = SampleEvery();  // before merging: regions record where theirs differs
}

std::vector<ThreadRecord> Runtime::CopyThreads(std::vector<std::unique_ptr<ThreadState>>* copies,
                                               std::vector<ThreadInfo>* left_out) {
  std::vector<ThreadRecord> records;
  for (const auto& thread : threads_) {
    std::unique_ptr<ThreadState> copy = thread->CopyWhileRecording();
    if (copy == nullptr) {
      ThreadInfo info;
      info.index = thread->index();
      info.tid = thread->tid();
      info.counters_error = "its recording could not be copied at this flush: its regions are left out";
      left_out->push_back(info);
      continue;
    }
    ThreadRecord record = copy->Record();
    record.counters_measured = thread->counters_measured();
    record.read_failures = thread->read_failures();
    records.push_back(std::move(record));
    copies->push_back(std::move(copy));
  }
  return records;
}

RunData Runtime::Collect(const std::vector<ThreadState*>& quiet_threads) {
  RunData data;
  DescribeRun(&data);
  std::vector<ThreadRecord> records;
  records.reserve(quiet_threads.size());
  for (ThreadState* thread : quiet_threads) {
    thread->ReleaseMarkerLookups();  // markers are off for good
    records.push_back(thread->Record());
    records.back().release = [thread] { thread->ReleaseRecording(); };
  }
  if (regions_.bound_reached()) {
    ReportProblem(Severity::kWarning,
                  absl::StrFormat("more than %d distinct region names: the later ones are recorded together as "
                                  "\"%s\" (TD_MAX_NAMES raises the bound)",
                                  config_.max_names, RegionRegistry::kOverflowName));
  }
  // Said once per run: the first thread whose descriptor the program took.
  for (const ThreadRecord& record : records) {
    if (record.counters_lost.empty()) continue;
    ReportProblem(Severity::kWarning, absl::StrFormat("thread %d: %s", record.index, record.counters_lost));
    break;
  }
  MergeThreads(records, regions_.AllNames(), &data, regions_.AllParameters());
  // A thread left out (still inside a marker) keeps its entry, so thread
  // indices stay 0..n-1; only what never changes after it attached is read.
  for (const auto& thread : threads_) {
    if (std::find(quiet_threads.begin(), quiet_threads.end(), thread.get()) != quiet_threads.end()) continue;
    ThreadInfo info;
    info.index = thread->index();
    info.tid = thread->tid();
    info.counters_error = "inside a td marker when the run ended: its regions are left out";
    data.threads.push_back(info);
  }
  std::sort(data.threads.begin(), data.threads.end(),
            [](const ThreadInfo& a, const ThreadInfo& b) { return a.index < b.index; });
  // Replayed counts were not measured here: no cost of this process' markers is in them.
  if (replay_ == nullptr) data.marker_cost = MeasureMarkerCost(*backend_);  // a replayed run has its own
  data.diagnostics = AllDiagnostics();
  return data;
}

}  // namespace td

// The process-wide runtime: settings, counter backend, every thread's state,
// and the moment reports are written.
#ifndef TD_RUNTIME_CORE_RUNTIME_H_
#define TD_RUNTIME_CORE_RUNTIME_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/config.h"
#include "runtime/counters/backend.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/thread_state.h"
#include "runtime/model/run_data.h"
#include "runtime/report/trace_export.h"

namespace td {

enum class RuntimeState : int { kUninitialized = 0, kRunning = 1, kOff = 2 };

// Outside the class so that the disabled check needs no object: one relaxed
// load is the whole cost of a marker when td is disabled.
extern std::atomic<int> g_runtime_state;

// The calling thread's state once it has used a marker, else null.
// constinit: no dynamic initialisation, so no TLS wrapper call on each access.
extern constinit thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec")));

inline bool RuntimeRunning() {
  return g_runtime_state.load(std::memory_order_relaxed) ==
         static_cast<int>(RuntimeState::kRunning);
}

// The marker/finalize handshake. A marker raises its thread's in_marker flag,
// then checks that markers are still on; finalize switches them off, then
// waits for every flag to be down. Each side stores, then loads the other's
// variable, which needs a full barrier on both sides. Where the kernel offers
// membarrier(PRIVATE_EXPEDITED), finalize issues it for both (it makes every
// running thread of the process execute one), and the marker side costs a
// plain store; elsewhere the marker's store is a sequentially consistent
// exchange.
extern std::atomic<bool> g_marker_needs_fence;

// True when the calling thread may record into `thread` until MarkerLeft.
inline bool MarkerEntered(ThreadState* thread) {
  std::atomic<uint32_t>& flag = thread->in_marker();
  if (__builtin_expect(g_marker_needs_fence.load(std::memory_order_relaxed), 0)) {
    flag.exchange(1, std::memory_order_seq_cst);
  } else {
    flag.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the order
  }
  if (__builtin_expect(g_runtime_state.load(std::memory_order_seq_cst) ==
                           static_cast<int>(RuntimeState::kRunning),
                       1)) {
    return true;
  }
  flag.store(0, std::memory_order_release);
  return false;
}

// 1 while markers are on and the plain store of MarkerEntered suffices (no
// fence needed), else 0; finalize lowers it before its barrier. It folds the
// two loads of MarkerEntered's common case into one.
extern std::atomic<int> g_marker_gate;
// Sets g_marker_gate from the state and g_marker_needs_fence; called after
// the fence flag changes (the state changes through SetState and this).
void UpdateMarkerGate();
// Compare-and-swap of the state from `from` to kOff, the gate closed first;
// false when the state was not `from`.
bool SwitchMarkersOff(RuntimeState from);

// MarkerEntered's common case for the C markers: raises the flag and checks
// the gate. False leaves the flag up: the caller then takes MarkerEntered.
inline bool MarkerEnteredFast(ThreadState* thread) {
  thread->in_marker().store(1, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the order
  return g_marker_gate.load(std::memory_order_seq_cst) == 1;
}

// Publishes what the marker wrote to a finalize that waits for the flag.
inline void MarkerLeft(ThreadState* thread) { thread->in_marker().store(0, std::memory_order_release); }

class Runtime {
 public:
  static Runtime& Get();

  // Initialises on first use; returns whether markers should record.
  bool EnsureStarted();
  // Counts with `backend` instead of what the machine offers, when called
  // before the runtime starts (benchmarks/user_read_pairs.cc runs the C
  // markers on fake rdpmc pages with it); ignored after.
  void UseBackend(std::unique_ptr<CounterBackend> backend);
  void Finalize();

  RegionRegistry& regions() { return regions_; }
  // td_region_sample: region `name` read on one call in `every`, said in one
  // line where it cannot be (a bad interval, TD_TRACE, a region already entered).
  void SampleRegion(const char* name, unsigned every);
  // The counters every thread opens; only once started (a thread has state).
  const CounterLayout& layout() const { return backend_->layout(); }
  // Starts the runtime if needed and returns the calling thread's state,
  // creating it on first use; null when td is off. The markers' slow path.
  ThreadState* ThisThreadSlow();

  // libtd-mpi's job file (runtime/core/mpi_api.h, mpi_job.cc): the steps of
  // the reduction at MPI_Finalize, on the rank that calls them.
  int MpiBegin(int rank, int size);
  int MpiAdd(const char* bytes, size_t length);
  int MpiTake(char** bytes, size_t* length);
  int MpiWriteJob();
  void MpiEnd(int in_job_file);
  void MpiSay(const char* line);

 private:
  struct MpiJob;  // mpi_job.cc
  Runtime() = default;
  void Start();
  ThreadState* AttachThisThread();
  static void OnThreadExit(void* state);
  static void BeforeFork();
  static void AfterForkInParent();
  static void AfterForkInChild();
  // After markers are off: waits until no thread is inside a marker and
  // returns the threads whose state may be read; says which may not.
  std::vector<ThreadState*> QuiescentThreads();
  RunData Collect(const std::vector<ThreadState*>& threads);  // with threads_mu_ held
  void CollectAndWrite();  // Finalize's work once the markers are off
  // CollectAndWrite's first half: every thread's data, with the traces.
  RunData CollectQuiet(std::vector<ThreadTrace>* traces);
  // The report text where TD_OUTPUT says.
  void EmitText(const std::string& text);
  // The JSON with raw values, then the text report with td's marker cost taken
  // out of `data` (TD_COMPENSATE).
  void WriteReports(RunData& data);
  void WriteTextReport(const RunData& data);
  void WriteTrace(const RunData& data, const std::vector<ThreadTrace>& traces);
  bool StartReplay();
  void CheckDefinitionSettings();
  bool StartPapi(const Availability& availability);
  void AddSelectedGroups(Availability* availability, CounterLayout* layout);
  // TD_SAMPLE, or 1 while tracing (a timeline needs every snapshot).
  uint32_t SampleEvery() const { return config_.trace ? 1 : static_cast<uint32_t>(config_.sample_every); }

  std::mutex start_mu_;
  Config config_;
  std::unique_ptr<CounterBackend> backend_;
  std::unique_ptr<CounterBackend> chosen_backend_;  // UseBackend, before Start
  std::unique_ptr<RunData> replay_;  // TD_BACKEND=replay:FILE: the recording to report
  RegionRegistry regions_;
  std::mutex threads_mu_;  // guards threads_; std::mutex so that TSan sees it
  std::vector<std::unique_ptr<ThreadState>> threads_;
  // Under threads_mu_: per cause of a thread's counters failing to open (the
  // errno part, whichever event hit it first), how many threads it hit.
  std::map<std::string, int> thread_error_causes_;
  int64_t start_unix_ns_ = 0;
  MpiJob* mpi_job_ = nullptr;  // between MpiBegin and MpiEnd; leaked like the runtime
};

}  // namespace td

#endif  // TD_RUNTIME_CORE_RUNTIME_H_

// The process-wide runtime: settings, counter backend, every thread's state,
// and the moment reports are written.
#ifndef TD_RUNTIME_CORE_RUNTIME_H_
#define TD_RUNTIME_CORE_RUNTIME_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime/core/config.h"
#include "runtime/counters/backend.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/thread_state.h"
#include "runtime/report/run_data.h"
#include "runtime/report/trace_export.h"

namespace td {

enum class RuntimeState : int { kUninitialized = 0, kRunning = 1, kOff = 2 };

// Outside the class so that the disabled check needs no object: one relaxed
// load is the whole cost of a marker when td is disabled.
extern std::atomic<int> g_runtime_state;

// The calling thread's state once it has used a marker, else null.
extern thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec")));

inline bool RuntimeRunning() {
  return g_runtime_state.load(std::memory_order_relaxed) ==
         static_cast<int>(RuntimeState::kRunning);
}

class Runtime {
 public:
  static Runtime& Get();

  // Initialises on first use; returns whether markers should record.
  bool EnsureStarted();
  void Finalize();

  RegionRegistry& regions() { return regions_; }
  // Starts the runtime if needed and returns the calling thread's state,
  // creating it on first use; null when td is off. The markers' slow path.
  ThreadState* ThisThreadSlow();

 private:
  Runtime() = default;
  void Start();
  ThreadState* AttachThisThread();
  static void OnThreadExit(void* state);
  static void BeforeFork();
  static void AfterForkInParent();
  static void AfterForkInChild();
  RunData Collect();  // with threads_mu_ held
  void CollectAndWrite();  // Finalize's work once the markers are off
  void WriteReports(const RunData& data);
  void WriteTextReport(const RunData& data);
  void WriteTrace(const RunData& data, const std::vector<ThreadTrace>& traces);
  bool StartReplay();
  bool StartPapi(const Availability& availability);
  void AddSelectedGroups(Availability* availability, CounterLayout* layout);

  std::mutex start_mu_;
  Config config_;
  std::unique_ptr<CounterBackend> backend_;
  std::unique_ptr<RunData> replay_;  // TD_BACKEND=replay:FILE: the recording to report
  RegionRegistry regions_;
  std::mutex threads_mu_;  // guards threads_; std::mutex so that TSan sees it
  std::vector<std::unique_ptr<ThreadState>> threads_;
  std::set<std::string> thread_errors_said_;  // under threads_mu_: counter errors already reported
  int64_t start_unix_ns_ = 0;
};

}  // namespace td

#endif  // TD_RUNTIME_CORE_RUNTIME_H_

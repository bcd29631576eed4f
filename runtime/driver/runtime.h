// The process-wide runtime: settings, counter backend, every thread's state,
// and the moment reports are written.
#ifndef TD_RUNTIME_DRIVER_RUNTIME_H_
#define TD_RUNTIME_DRIVER_RUNTIME_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/base/output_files.h"
#include "runtime/driver/config.h"
#include "runtime/counters/backend.h"
#include "runtime/regions/region_registry.h"
#include "runtime/regions/thread_record.h"
#include "runtime/recorded/run_data.h"
#include "runtime/report/trace_export.h"

namespace td {

class ThreadState;  // runtime/regions/thread_state.h: only the marker entry points include it

// The calling thread's state once it has used a marker, else null.
// constinit: no dynamic initialisation, so no TLS wrapper call on each access.
extern constinit thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec")));
// Set while the calling thread is in td's slow paths (start-up, its first
// marker, its exit): a marker of a signal handler that interrupted it there
// returns at once, instead of waiting for a lock its own thread holds or
// touching half-made state.
extern constinit thread_local bool t_in_slow_path __attribute__((tls_model("initial-exec")));

// Marks the calling thread as in td's slow path while alive; nested marks
// leave it marked until the outermost ends. Set before anything of td's is
// first made (Runtime::Get's instance included): a handler's marker that
// re-entered such a function-local initialisation would abort.
class InSlowPath {
 public:
  InSlowPath() : outermost_(!t_in_slow_path) { t_in_slow_path = true; }
  ~InSlowPath() {
    if (outermost_) t_in_slow_path = false;
  }
  InSlowPath(const InSlowPath&) = delete;
  InSlowPath& operator=(const InSlowPath&) = delete;

 private:
  bool outermost_;
};

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
  // td_set_program_name: the name the reports and the JSON file give this
  // program in place of the process's; "" goes back to the process's.
  void SetProgramName(const char* name);

  RegionRegistry& regions() { return regions_; }
  // td_region_sample: region `name` read on one call in `every`, said in one
  // line where it cannot be (a bad interval, TD_TRACE, a region already entered).
  void SampleRegion(const char* name, unsigned every);
  // The counters every thread opens; only once started (a thread has state).
  const CounterLayout& layout() const { return backend_->layout(); }
  // Starts the runtime if needed and returns the calling thread's state,
  // creating it on first use; null when td is off. The markers' slow path.
  ThreadState* ThisThreadSlow();

  // libtd-mpi's job file (runtime/driver/mpi_api.h, mpi_job.cc): the steps of
  // the reduction at MPI_Finalize, on the rank that calls them.
  int MpiBegin(int rank, int size);
  int MpiAdd(const char* bytes, size_t length);
  int MpiTake(char** bytes, size_t* length);
  int MpiWriteJob();
  void MpiEnd(int in_job_file);
  void MpiSay(const char* line);
  // MPI_Abort: this rank's own files, now, marked aborted.
  void MpiAbort(int rank, int size);

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
  // What Collect and FlushPartial both say of the run: the program, the
  // machine, the MPI rank, the backend and its counters.
  void DescribeRun(RunData* data);
  // TD_FLUSH_INTERVAL's thread (runtime/driver/periodic_flush.h): the run so
  // far, copied while the threads record, over td's previous partial file.
  static void FlushAtInterval();
  void FlushPartial();
  // The partial file's records: one per thread, copied (or, where a thread's
  // copy could not be made, its entry only in *left_out). With threads_mu_.
  std::vector<ThreadRecord> CopyThreads(std::vector<std::unique_ptr<ThreadState>>* copies,
                                        std::vector<ThreadInfo>* left_out);
  // The run file of `data`: over td's own partial file where one was written
  // with this name, else a new file in `dir` (WriteNewFile).
  absl::StatusOr<std::string> WriteRunJson(const std::string& dir, const RunData& data, ContentProducer body);
  void CollectAndWrite();  // Finalize's work once the markers are off
  // CollectAndWrite's first half: every thread's data, with the traces.
  RunData CollectQuiet(std::vector<ThreadTrace>* traces);
  // The report text where TD_OUTPUT says.
  void EmitText(const std::string& text);
  // The JSON with raw values, then (unless `text_report` is false: an MPI
  // job's table stood in for it) the text report with td's marker cost taken
  // out of `data` (TD_COMPENSATE).
  void WriteReports(RunData& data, bool text_report = true);
  void WriteTextReport(const RunData& data);
  void WriteTrace(const RunData& data, const std::vector<ThreadTrace>& traces);
  bool StartReplay();
  void CheckDefinitionSettings();
  bool StartPapi(const Availability& availability);
  // TD_BACKEND=simulate: true when tdsim answers; otherwise one line says why.
  bool StartSimulated(Availability* availability);
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
  // In a forked child: the parent's other threads' states, kept as fork()
  // copied them and never touched (AfterForkInChild). Held here so that a
  // leak checker in the host program sees them reachable, not leaked.
  std::vector<ThreadState*> left_by_fork_;
  // Under threads_mu_: per cause of a thread's counters failing to open (the
  // errno part, whichever event hit it first), how many threads it hit.
  std::map<std::string, int> thread_error_causes_;
  int64_t start_unix_ns_ = 0;
  std::mutex program_name_mu_;  // guards program_name_: set from any thread, read at finalize
  std::string program_name_;    // td_set_program_name's; "" = program_invocation_short_name
  MpiJob* mpi_job_ = nullptr;  // between MpiBegin and MpiEnd; leaked like the runtime
  // The periodic flush's file, which each flush and then the final write
  // replace; guarded by partial_mu_, which the flush thread holds while it
  // writes (taken before threads_mu_ where both are).
  std::mutex partial_mu_;
  OwnFile partial_file_;
  bool partial_failure_said_ = false;
};

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_RUNTIME_H_

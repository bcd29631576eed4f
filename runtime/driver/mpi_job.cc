// libtd-mpi's half inside libtd: at MPI_Finalize each rank stops recording,
// turns its data into its table of the job, merges its children's tables
// into it, and rank 0 writes the one file of the job (runtime/driver/mpi_api.h;
// docs/hpc.md#one-file-per-job). Until rank 0 says the job file is written,
// every rank keeps its own data, so that any failure ends in per-rank files.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/diagnostics.h"
#include "runtime/base/output_files.h"
#include "runtime/driver/marker_handshake.h"
#include "runtime/driver/mpi_api.h"
#include "runtime/driver/periodic_flush.h"
#include "runtime/driver/runtime.h"
#include "runtime/job/job_file.h"
#include "runtime/job/rank_reduction.h"
#include "runtime/report/report_pipeline.h"

namespace td {

struct Runtime::MpiJob {
  MpiJob(int rank, int size) : reduction(rank, size, MonotonicNs()) {}
  RunData data;
  bool has_data = false;      // this rank's data, not yet in a file of its own
  bool text_printed = false;  // its text report went out at begin (TD_REPORT_RANKS=all)
  RankReduction reduction;    // the job's tables, merged on their way to rank 0
};

namespace {

constexpr const char* kFallback = "every rank writes its own files";

}  // namespace

int Runtime::MpiBegin(int rank, int size) {
  if (mpi_job_ != nullptr) return 1;
  mpi_job_ = new MpiJob(rank, size);
  MpiJob& job = *mpi_job_;
  EnsureStarted();  // reads the settings where no marker or MPI_Init started td
  StopPeriodicFlush();  // before the settings change: the flush thread reads them
  if (!SwitchMarkersOff(RuntimeState::kRunning)) {
    return 1;  // disabled, replaying, or finalized already (its files are written)
  }
  __atomic_store_n(&td_markers_off, 1, __ATOMIC_RELAXED);
  // The rank as MPI says it, also where no launcher variable did.
  if (!config_.mpi) {
    config_.mpi = MpiIdentity{rank, size, "", "MPI"};
  } else {
    config_.mpi->rank = rank;
    config_.mpi->size = size;
  }
  SetQuiet(config_.quiet || !PrintsReports(config_));
  try {
    std::vector<ThreadTrace> traces;
    job.data = CollectQuiet(&traces);
    job.has_data = true;
    if (config_.trace && !traces.empty()) WriteTrace(job.data, traces);
    if (config_.rank_reports == RankReports::kAll) {
      WriteTextReport(job.data);
      job.text_printed = true;
    }
    // The job table holds what the rank's report shows: td's marker cost out
    // (TD_COMPENSATE); job.data keeps raw values for the rank's own files.
    RunData shown = job.data;
    if (config_.compensate) TakeOutMarkerCost(&shown);
    std::optional<RunAnalysis> analysis;
    if (HasHardwareCounts(shown)) {
      ReportPipeline pipeline({config_.metrics_dir, config_.uarch, config_.calibration_file, config_.compensate});
      if (auto analyzed = pipeline.Analyze(shown); analyzed.ok()) analysis = *std::move(analyzed);
    }
    const bool per_rank = config_.mpi_rank_rows == MpiRankRows::kKeep ||
                          (config_.mpi_rank_rows == MpiRankRows::kAuto && size <= kMpiRankRowsAutoLimit);
    const absl::Status started = job.reduction.Start(shown, analysis ? &*analysis : nullptr, per_rank);
    if (!started.ok()) {
      Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: %s; writing this rank's own files", rank,
                                                 started.message()));
      MpiEnd(0);
      return -1;
    }
    return 0;
  } catch (const std::exception& e) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: %s; writing this rank's own files", rank,
                                               e.what()));
  } catch (...) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d failed; writing this rank's own files", rank));
  }
  job.reduction.Abandon();
  MpiEnd(0);
  return -1;
}

int Runtime::MpiAdd(const char* bytes, size_t length) {
  if (mpi_job_ == nullptr) return -1;
  RankReduction& reduction = mpi_job_->reduction;
  try {
    // No bytes: the child failed and said why on its own stderr.
    const absl::Status merged = reduction.AddChild(bytes, length);
    if (merged.ok()) return 0;
    Announce(Severity::kError, absl::StrFormat("MPI job file: %s; %s", merged.message(), kFallback));
    return -1;
  } catch (const std::exception& e) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: %s; %s", reduction.rank(), e.what(), kFallback));
  } catch (...) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d failed; %s", reduction.rank(), kFallback));
  }
  reduction.MarkFailed();
  return -1;
}

int Runtime::MpiTake(char** bytes, size_t* length) {
  *bytes = nullptr;
  *length = 0;
  if (mpi_job_ == nullptr || mpi_job_->reduction.failed()) return -1;
  RankReduction& reduction = mpi_job_->reduction;
  try {
    const absl::StatusOr<std::string> text = reduction.TakeForParent();
    char* buffer = text.ok() ? static_cast<char*>(std::malloc(text->size())) : nullptr;
    if (buffer == nullptr) {
      Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: out of memory; %s", reduction.rank(), kFallback));
      return -1;
    }
    std::memcpy(buffer, text->data(), text->size());
    *bytes = buffer;
    *length = text->size();
    return 0;
  } catch (...) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: out of memory; %s", reduction.rank(), kFallback));
    return -1;
  }
}

int Runtime::MpiWriteJob() {
  if (mpi_job_ == nullptr) return -1;
  MpiJob& job = *mpi_job_;
  if (job.reduction.failed()) {
    Announce(Severity::kError, absl::StrFormat("the MPI job file is not written: a part of the job did not arrive "
                                               "(the rank's own td: line says why); %s",
                                               kFallback));
    return -1;
  }
  if (job.reduction.table().view.present.empty()) return 1;
  try {
    JobTable& table = job.reduction.Settle(MonotonicNs());
    if (config_.write_json) {
      const std::string body = JobTableText(table, 1);
      const std::string stem = JobFileStem(table.view.program, table.view.job);
      absl::StatusOr<std::string> path = body.empty() ? absl::ResourceExhaustedError("out of memory while formatting it")
                                                      : WriteNewFile(config_.json_dir, stem, ".json", body);
      if (!path.ok() && !body.empty()) {
        Announce(Severity::kError, absl::StrFormat("TD_OUTPUT_DIR=%s: %s; writing the job file in %s instead",
                                                   config_.json_dir, path.status().message(), config_.tmpdir));
        path = WriteNewFile(config_.tmpdir, stem, ".json", body);
      }
      if (!path.ok()) {
        Announce(Severity::kError, absl::StrFormat("the MPI job file: %s; %s", path.status().message(), kFallback));
        return -1;
      }
      if (!absl::EndsWith(*path, "/" + stem + ".json")) {
        Announce(Severity::kNotice, absl::StrFormat("%s.json already exists and is not this job's: left as it is, "
                                                    "writing %s instead",
                                                    stem, *path));
      }
      if (!config_.quiet && PrintsReports(config_)) {
        Announce(Severity::kNotice, absl::StrFormat("wrote %s (the job: %d rank%s)", *path, table.view.present.size(),
                                                    table.view.present.size() == 1 ? "" : "s"));
      }
    }
    if (config_.text_output.kind != TextOutput::Kind::kNone && config_.rank_reports != RankReports::kNone) {
      EmitText(FormatJobTableText(table));
    }
    return 0;
  } catch (const std::exception& e) {
    Announce(Severity::kError, absl::StrFormat("the MPI job file: %s; %s", e.what(), kFallback));
  } catch (...) {
    Announce(Severity::kError, absl::StrFormat("the MPI job file could not be written; %s", kFallback));
  }
  return -1;
}

void Runtime::MpiEnd(int in_job_file) {
  if (mpi_job_ == nullptr) return;
  MpiJob& job = *mpi_job_;
  if (in_job_file == 0 && job.has_data) {
    job.has_data = false;
    try {
      WriteReports(job.data, /*text_report=*/!job.text_printed);  // the job table stood in for it
    } catch (...) {
      Announce(Severity::kError, "the reports could not be written");
    }
  }
  if (in_job_file != 0) {
    // The job file holds this rank's data: a partial file of it would only
    // add a second, older copy to the directory.
    std::lock_guard<std::mutex> lock(partial_mu_);
    RemoveOwnFile(&partial_file_);
  }
  job.has_data = false;
  job.data = RunData{};
  job.reduction.Abandon();
}

void Runtime::MpiSay(const char* line) { ReportProblem(Severity::kWarning, line); }

void Runtime::MpiAbort(int rank, int size) {
  // PMPI_Abort ends this process without running exit handlers, and mpirun
  // then kills the other ranks: the recording is written here or never.
  // Finalize is what exit would have run (it waits for other threads to
  // leave their markers, bounded); after a job-file reduction began it is a
  // no-op, as the rank's data is in the reduction already.
  if (mpi_job_ != nullptr) return;
  EnsureStarted();
  StopPeriodicFlush();  // before the settings change: the flush thread reads them
  if (!config_.mpi) config_.mpi = MpiIdentity{rank, size, "", "MPI"};
  config_.mpi->rank = rank;
  config_.mpi->size = size;
  config_.mpi->aborted = true;
  Announce(Severity::kWarning, absl::StrFormat("rank %d called MPI_Abort: writing its recording now", rank));
  Finalize();
}

}  // namespace td

extern "C" {

int td_mpi_begin(int rank, int size) {
  try {
    return td::Runtime::Get().MpiBegin(rank, size);
  } catch (...) {
    return -1;
  }
}

int td_mpi_add(const char* bytes, size_t length) {
  try {
    return td::Runtime::Get().MpiAdd(bytes, length);
  } catch (...) {
    return -1;
  }
}

int td_mpi_take(char** bytes, size_t* length) {
  try {
    return td::Runtime::Get().MpiTake(bytes, length);
  } catch (...) {
    return -1;
  }
}

int td_mpi_write_job(void) {
  try {
    return td::Runtime::Get().MpiWriteJob();
  } catch (...) {
    return -1;
  }
}

void td_mpi_end(int in_job_file) {
  try {
    td::Runtime::Get().MpiEnd(in_job_file);
  } catch (...) {
  }
}

void td_mpi_abort(int rank, int size) {
  try {
    td::Runtime::Get().MpiAbort(rank, size);
  } catch (...) {
  }
}

void td_mpi_say(const char* line) {
  try {
    if (line != nullptr) td::Runtime::Get().MpiSay(line);
  } catch (...) {
  }
}

}  // extern "C"

// libtd-mpi's half inside libtd: at MPI_Finalize each rank stops recording,
// turns its data into its table of the job, merges its children's tables
// into it, and rank 0 writes the one file of the job (runtime/core/mpi_api.h;
// docs/hpc.md#one-file-per-job). Until rank 0 says the job file is written,
// every rank keeps its own data, so that any failure ends in per-rank files.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/diagnostics.h"
#include "runtime/base/output_files.h"
#include "runtime/core/mpi_api.h"
#include "runtime/core/runtime.h"
#include "runtime/report/job_file.h"
#include "runtime/report/report_pipeline.h"

namespace td {

struct Runtime::MpiJob {
  int rank = 0;
  int size = 0;
  int64_t start_ns = 0;
  RunData data;
  bool has_data = false;      // this rank's data, not yet in a file of its own
  bool text_printed = false;  // its text report went out at begin (TD_REPORT_RANKS=all)
  JobTable table = EmptyJobTable();
  bool failed = false;        // a part of this subtree's table is missing
};

namespace {

constexpr const char* kFallback = "every rank writes its own files";

}  // namespace

int Runtime::MpiBegin(int rank, int size) {
  if (mpi_job_ != nullptr) return 1;
  mpi_job_ = new MpiJob;
  MpiJob& job = *mpi_job_;
  job.rank = rank;
  job.size = size;
  job.start_ns = MonotonicNs();
  EnsureStarted();  // reads the settings where no marker or MPI_Init started td
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
    if (config_.trace) WriteTrace(job.data, traces);
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
    absl::StatusOr<JobTable> table = RankJobTable(shown, analysis ? &*analysis : nullptr, per_rank);
    if (!table.ok()) {
      Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: %s; writing this rank's own files", rank,
                                                 table.status().message()));
      MpiEnd(0);
      return -1;
    }
    job.table = *std::move(table);
    return 0;
  } catch (const std::exception& e) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: %s; writing this rank's own files", rank,
                                               e.what()));
  } catch (...) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d failed; writing this rank's own files", rank));
  }
  job.table = EmptyJobTable();
  MpiEnd(0);
  return -1;
}

int Runtime::MpiAdd(const char* bytes, size_t length) {
  if (mpi_job_ == nullptr) return -1;
  MpiJob& job = *mpi_job_;
  job.table.reduction.messages += 1;
  job.table.reduction.bytes += length;
  job.table.reduction.largest = std::max<uint64_t>(job.table.reduction.largest, length);
  if (job.rank == 0) job.table.reduction.root_bytes += length;
  if (length == 0 || bytes == nullptr) {
    job.failed = true;  // the child said why on its own stderr
    return 0;
  }
  try {
    absl::StatusOr<JobTable> child =
        ParseJobTable(std::string(bytes, length), absl::StrCat("the table rank ", job.rank, " received"));
    absl::Status merged = child.ok() ? MergeJobTables(&job.table, *std::move(child)) : child.status();
    if (merged.ok()) return 0;
    Announce(Severity::kError, absl::StrFormat("MPI job file: %s; %s", merged.message(), kFallback));
  } catch (const std::exception& e) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: %s; %s", job.rank, e.what(), kFallback));
  } catch (...) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d failed; %s", job.rank, kFallback));
  }
  job.failed = true;
  return -1;
}

int Runtime::MpiTake(char** bytes, size_t* length) {
  *bytes = nullptr;
  *length = 0;
  if (mpi_job_ == nullptr || mpi_job_->failed) return -1;
  try {
    const std::string text = JobTableText(mpi_job_->table, -1);
    char* buffer = static_cast<char*>(std::malloc(text.size()));
    if (buffer == nullptr || text.empty()) {
      std::free(buffer);
      Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: out of memory; %s", mpi_job_->rank, kFallback));
      return -1;
    }
    std::memcpy(buffer, text.data(), text.size());
    *bytes = buffer;
    *length = text.size();
    // What the parent has now no longer needs to be held here.
    mpi_job_->table = EmptyJobTable();
    return 0;
  } catch (...) {
    Announce(Severity::kError, absl::StrFormat("MPI job file: rank %d: out of memory; %s", mpi_job_->rank, kFallback));
    return -1;
  }
}

int Runtime::MpiWriteJob() {
  if (mpi_job_ == nullptr) return -1;
  MpiJob& job = *mpi_job_;
  if (job.failed) {
    Announce(Severity::kError, absl::StrFormat("the MPI job file is not written: a part of the job did not arrive "
                                               "(the rank's own td: line says why); %s",
                                               kFallback));
    return -1;
  }
  JobTable& table = job.table;
  if (table.view.present.empty()) return 1;
  try {
    table.reduction.levels = job.size > 1 ? static_cast<int>(std::ceil(std::log2(job.size))) : 0;
    table.reduction.root_seconds = static_cast<double>(MonotonicNs() - job.start_ns) / 1e9;
    SettleJobTable(&table);
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
    if (config_.text_output != "none" && config_.rank_reports != RankReports::kNone) {
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
    const std::string text_output = config_.text_output;
    if (job.text_printed) config_.text_output = "none";
    try {
      WriteReports(job.data);
    } catch (...) {
      Announce(Severity::kError, "the reports could not be written");
    }
    config_.text_output = text_output;
  }
  job.has_data = false;
  job.data = RunData{};
  job.table = EmptyJobTable();
}

void Runtime::MpiSay(const char* line) { ReportProblem(Severity::kWarning, line); }

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

void td_mpi_say(const char* line) {
  try {
    if (line != nullptr) td::Runtime::Get().MpiSay(line);
  } catch (...) {
  }
}

}  // extern "C"

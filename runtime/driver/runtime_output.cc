// Where a run's results go at finalize: the JSON and trace files (never
// replacing a file td did not create) and the text report (analysed when the
// run has hardware counts); and the periodic flush's partial file, which the
// JSON file at finalize replaces.
#include <unistd.h>

#include <mutex>
#include <algorithm>
#include <new>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/driver/marker_handshake.h"
#include "runtime/driver/runtime.h"
#include "runtime/job/rank_summary_file.h"
#include "runtime/recorded/merge_threads.h"
#include "runtime/regions/thread_state.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/diagnostics.h"
#include "runtime/recorded/run_file.h"
#include "runtime/base/output_files.h"
#include "runtime/report/report_pipeline.h"
#include "runtime/report/text_report.h"
#include "runtime/report/trace_export.h"

namespace td {

namespace {

std::string RunFileStem(const RunData& data) {
  if (data.mpi) return RankFileStem(data.program.name, data.mpi->job, data.mpi->rank, data.mpi->size);
  return JsonFileStem(data.program.name, static_cast<long>(data.program.pid));
}

// A file of this run in `dir`, never replacing one: when PREFERRED is taken
// (a process with the same pid in another pid namespace or on another host
// sharing the directory, or an earlier run whose pid was reused), the next
// free numbered name, and one line that says so.
absl::StatusOr<std::string> WriteRunFile(const std::string& dir, const std::string& stem, const std::string& suffix,
                                         ContentProducer body) {
  absl::StatusOr<std::string> path = WriteNewFile(dir, stem, suffix, body);
  const std::string preferred = stem + suffix;
  if (path.ok() && !(path->size() > preferred.size() && absl::EndsWith(*path, "/" + preferred))) {
    Announce(Severity::kNotice, absl::StrFormat("%s already exists in %s and is not this run's: left as it is, "
                                                "writing %s instead",
                                                preferred, dir, *path));
  }
  return path;
}

// The run file's text as WriteNewFile takes it: written as it is formatted,
// a piece at a time (at 640,000 parts the whole text was 94 MB held at
// once). Remembers whether its last production stopped because formatting
// ran out of memory, rather than because a write failed (a full disk, no
// descriptor left): only then is a fallback directory not worth trying.
struct RunFileBody {
  const RunData& data;
  std::string rank_summary = {};  // a rank's job-view summary line (rank_summary_file.h), or ""
  mutable bool out_of_memory = false;
  bool operator()(PieceWriter write) const {
    bool write_failed = false;
    const bool complete = WriteRunFileText(
        data,
        [&](std::string_view piece) {
          write_failed = !write(piece);
          return !write_failed;
        },
        rank_summary);
    out_of_memory = !complete && !write_failed;
    return complete;
  }
};

}  // namespace

absl::StatusOr<std::string> Runtime::WriteRunJson(const std::string& dir, const RunData& data,
                                                  ContentProducer body) {
  const std::string stem = RunFileStem(data);
  // At exit the flush thread is stopped: a flush that did not end within
  // kFlushStopWaitMs may still hold the lock, and its file is then left to it.
  std::unique_lock<std::mutex> lock(partial_mu_, std::defer_lock);
  for (int attempt = 0; attempt < 100 && !lock.try_lock(); ++attempt) usleep(1000);
  if (lock.owns_lock() && !partial_file_.path.empty()) {
    // The partial file's name is the run's own (not an MPI rank's named only
    // at MPI_Finalize) and in `dir`: replaced, or given up where it is not td's any more.
    const std::string name = partial_file_.path.substr(partial_file_.path.rfind('/') + 1);
    const bool same_run = absl::StartsWith(partial_file_.path, dir) &&
                          (name == stem + ".json" || absl::StartsWith(name, stem + "."));
    if (same_run && ReplaceOwnFile(&partial_file_, body).ok()) return partial_file_.path;
    RemoveOwnFile(&partial_file_);
  }
  return WriteRunFile(dir, stem, ".json", body);
}

void Runtime::FlushAtInterval() { Get().FlushPartial(); }

void Runtime::FlushPartial() {
  if (LoadState() != RuntimeState::kRunning || !config_.write_json) return;
  try {
    RunData data;
    DescribeRun(&data);
    std::vector<std::unique_ptr<ThreadState>> copies;
    std::vector<ThreadRecord> records;
    std::vector<ThreadInfo> left_out;
    {
      std::lock_guard<std::mutex> lock(threads_mu_);
      records = CopyThreads(&copies, &left_out);
    }
    data.partial = PartialFlush{data.program.end_unix_ns, "periodic flush"};
    MergeThreads(records, regions_.AllNames(), &data, regions_.AllParameters());
    data.threads.insert(data.threads.end(), left_out.begin(), left_out.end());
    std::sort(data.threads.begin(), data.threads.end(),
              [](const ThreadInfo& a, const ThreadInfo& b) { return a.index < b.index; });
    data.diagnostics = AllDiagnostics();
    copies.clear();
    std::lock_guard<std::mutex> lock(partial_mu_);
    if (LoadState() != RuntimeState::kRunning) return;  // finalize's file comes instead
    const RunFileBody body{data};
    absl::Status written;
    if (partial_file_.path.empty()) {
      const absl::StatusOr<std::string> path = WriteRunFile(config_.json_dir, RunFileStem(data), ".json", body);
      written = path.status();
      if (path.ok()) RememberOwnFile(*path, &partial_file_);
    } else {
      written = ReplaceOwnFile(&partial_file_, body);
      if (!written.ok()) partial_file_ = OwnFile{};  // the next flush writes a new file of td's own
    }
    if (!written.ok() && !partial_failure_said_) {
      partial_failure_said_ = true;
      Announce(Severity::kWarning, absl::StrFormat("TD_FLUSH_INTERVAL: the partial file: %s; the flushes go on, and "
                                                   "the run's file is written at its end",
                                                   written.message()));
    }
  } catch (...) {
    // Out of memory while copying or formatting: this flush is skipped, the next one tries again.
  }
}

void Runtime::WriteTrace(const RunData& data, const std::vector<ThreadTrace>& traces) {
  std::string body;
  try {
    body = DumpJson(TraceToChromeJson(traces, regions_.AllNames(), data.layout, data.program.pid, data.program.name));
  } catch (const std::bad_alloc&) {
    // The trace is by far the largest output: without memory for it, it is
    // given up in one line, and the reports that follow still come.
    Announce(Severity::kError, "trace: out of memory while formatting it; not written");
    return;
  }
  const absl::StatusOr<std::string> path =
      body.empty() ? absl::ResourceExhaustedError("out of memory while formatting it")
                   : WriteRunFile(config_.json_dir, RunFileStem(data), ".trace.json", [&body](PieceWriter write) {
                       return write(body) && write("\n");
                     });
  if (!path.ok()) {
    Announce(Severity::kError, absl::StrCat("trace: ", path.status().message()));
  } else if (!config_.quiet && PrintsReports(config_)) {
    Announce(Severity::kNotice, absl::StrFormat("wrote %s (open in Perfetto or chrome://tracing)", *path));
  }
}

void Runtime::WriteReports(RunData& data, bool text_report) {
  if (config_.write_json) {
    const std::string stem = RunFileStem(data);
    // A rank's file carries its job-view rows, so that `td report DIR` need
    // not read its parts (made as the loader makes them, with these settings).
    const RunFileBody body{
        data, data.mpi ? RankSummaryLineOf(data, {config_.metrics_dir, config_.uarch, config_.calibration_file,
                                                  config_.compensate})
                       : ""};
    absl::StatusOr<std::string> path = WriteRunJson(config_.json_dir, data, body);
    if (!path.ok() && !body.out_of_memory) {
      const std::string& fallback_dir = config_.tmpdir;
      Announce(Severity::kError, absl::StrFormat("TD_OUTPUT_DIR=%s: %s; writing %s/%s.json instead", config_.json_dir,
                                                 path.status().message(), fallback_dir, stem));
      path = WriteRunFile(fallback_dir, stem, ".json", body);
    }
    if (!path.ok() && body.out_of_memory) {
      Announce(Severity::kError, "the JSON report: out of memory while formatting it; not written");
    } else if (!path.ok()) {
      Announce(Severity::kError, absl::StrCat(path.status().message(), "; the JSON report follows on stderr"));
      if (!body([](std::string_view piece) {
            WriteToStderr(piece);
            return true;
          })) {
        Announce(Severity::kError, "the JSON report on stderr above is incomplete: out of memory while formatting it");
      }
    } else if (!config_.quiet && PrintsReports(config_)) {
      Announce(Severity::kNotice, absl::StrCat("wrote ", *path));
    }
  }
  // Nothing to print (TD_OUTPUT=none, TD_QUIET): no cost to take out either.
  if (!text_report || config_.text_output.kind == TextOutput::Kind::kNone || !PrintsReports(config_)) return;
  if (config_.compensate) TakeOutMarkerCost(&data);  // in place: at scale a copy would double the memory
  WriteTextReport(data);
}

void Runtime::WriteTextReport(const RunData& data) {
  const TextOutput& target = config_.text_output;
  if (target.kind == TextOutput::Kind::kNone || !PrintsReports(config_)) return;
  // Top-Down trees need hardware counts; without them the header line
  // already says why, and no tree is drawn.
  ReportPipeline pipeline({config_.metrics_dir, config_.uarch, config_.calibration_file, config_.compensate});
  TextReportOptions options;
  options.max_regions = config_.report_regions;
  const bool to_terminal = target.kind == TextOutput::Kind::kStderr && isatty(2);
  options.color = to_terminal && !config_.no_color;
  std::string problem;
  const std::string text = pipeline.Text(data, options, &problem);
  if (!problem.empty()) Announce(Severity::kError, problem);
  EmitText(text);
}

void Runtime::EmitText(const std::string& text) {
  const TextOutput& target = config_.text_output;
  if (target.kind == TextOutput::Kind::kNone) return;
  if (target.kind == TextOutput::Kind::kStderr) {
    WriteToStderr(text);
  } else if (target.kind == TextOutput::Kind::kStdout) {
    // Through stdio, after whatever the program itself left in stdout's buffer.
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
  } else {
    // A regular file is replaced atomically; a device, FIFO or terminal is
    // written into (WriteFileAtomically says which and how).
    const absl::Status written = WriteFileAtomically(target.path, text);
    if (!written.ok()) {
      Announce(Severity::kError,
               absl::StrFormat("TD_OUTPUT=%s: %s; the report follows on stderr", target.path, written.message()));
      WriteToStderr(text);
    }
  }
}

}  // namespace td

#include "runtime/job/job_loader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "runtime/base/json_file.h"
#include "runtime/recorded/run_file.h"
#include "runtime/job/job_view.h"
#include "runtime/job/rank_summary_file.h"

namespace td {
namespace {

// One file: a job file's table, or a rank file reduced to its summary.
struct Loaded {
  absl::Status status;
  std::exception_ptr exception;  // rethrown in file order, as reading one by one would have thrown
  bool job_file = false;
  JobTable table;
  RankSummary rank;
};

// What one thread keeps from file to file: the text read and the scan's
// working memory, asked for once rather than once per file.
struct ThreadBuffers {
  std::string text;
  std::string tail;  // a file's last bytes, where only its head was read
  RunScanBuffers scan;
};

// One pipeline for all the threads: its definitions, a fifth of a second of
// CPU to load, are loaded once, by the first thread that needs them;
// Analyze only reads them after that.
struct SharedPipeline {
  explicit SharedPipeline(const AnalysisSettings& settings) : pipeline(settings) {}
  AnalysisPipeline pipeline;
  std::once_flag loaded;
};

// How much of a file's head is read first: a rank's summary of 200 regions
// ends about 19 KB into its file (rank_summary_file.h).
constexpr size_t kHeadBytes = size_t{64} << 10;

void LoadOne(const std::string& file, SharedPipeline* shared, ThreadBuffers* buffers, Loaded* out) {
  AnalysisPipeline* pipeline = &shared->pipeline;
  std::string* text = &buffers->text;
  // A rank's file with its summary made as this loader would make it: its
  // head is all there is to read.
  bool whole = false;
  if (absl::Status read = ReadTextFilePrefixInto(file, kHeadBytes, text, &whole, &buffers->tail); !read.ok()) {
    out->status = read;
    return;
  }
  FoundRankSummary found = FindRankSummary(*text, pipeline->settings(), file);
  // A file cut short (a full disk) does not end as td ends one: read whole,
  // it is refused with the reader's message.
  if (found.summary && absl::EndsWith(whole ? *text : buffers->tail, "\n}\n")) {
    out->rank = *std::move(found.summary);
    return;
  }
  if (!whole) {
    if (absl::Status read = ReadTextFileInto(file, text); !read.ok()) {
      out->status = read;
      return;
    }
    if (found.need_more) {  // a summary longer than the head read
      found = FindRankSummary(*text, pipeline->settings(), file);
      if (found.summary && absl::EndsWith(*text, "\n}\n")) {
        out->rank = *std::move(found.summary);
        return;
      }
    }
  }
  std::optional<RunData> run = ScanRunText(*text, &buffers->scan);
  if (!run) {
    // The full way: a job file, or a run file ScanRunText leaves to the
    // full reader (its error then).
    absl::StatusOr<nlohmann::json> json = ParseJsonText(*text, file);
    if (!json.ok()) {
      out->status = json.status();
      return;
    }
    if (IsJobTableJson(*json)) {
      absl::StatusOr<JobTable> table = JobTableFromJson(*json, file);
      if (!table.ok()) {
        out->status = table.status();
        return;
      }
      out->job_file = true;
      out->table = *std::move(table);
      return;
    }
    absl::StatusOr<RunData> decoded = RunFromJson(*json);
    if (!decoded.ok()) {
      out->status = absl::Status(decoded.status().code(), file + ": " + std::string(decoded.status().message()));
      return;
    }
    run = *std::move(decoded);
  }
  // The rank's times and counts as its own report shows them: td's marker cost out.
  if (pipeline->settings().compensate) TakeOutMarkerCost(&*run);
  std::call_once(shared->loaded, [pipeline] { (void)pipeline->Definitions(); });  // its error: Analyze's
  absl::StatusOr<RunAnalysis> analysis = pipeline->Analyze(*run);
  if (!analysis.ok()) {
    out->status = analysis.status();
    return;
  }
  out->rank = SummarizeRank(*run, &*analysis, file);
  buffers->scan.Recycle(&*run);
}

}  // namespace

absl::StatusOr<JobTable> LoadJobFiles(const std::vector<std::string>& files, const AnalysisSettings& settings,
                                      unsigned threads) {
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(files.size(), 1)));
  std::vector<Loaded> loaded(files.size());
  std::atomic<size_t> next{0};
  std::atomic<size_t> first_failed{files.size()};
  SharedPipeline pipeline(settings);
  const auto work = [&] {
    ThreadBuffers buffers;
    for (size_t i = next++; i < files.size(); i = next++) {
      if (i > first_failed.load()) continue;  // an earlier file failed: this one is never reported
      Loaded& one = loaded[i];
      try {
        LoadOne(files[i], &pipeline, &buffers, &one);
      } catch (...) {
        one.exception = std::current_exception();
      }
      if (!one.status.ok() || one.exception) {
        size_t failed = first_failed.load();
        while (i < failed && !first_failed.compare_exchange_weak(failed, i)) {
        }
      }
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: fewer do the work
    }
  }
  work();
  for (std::thread& helper : helpers) helper.join();

  std::vector<JobTable> tables;
  std::vector<std::string> sources;
  std::vector<RankSummary> ranks;
  std::vector<std::string> rank_files;
  for (size_t i = 0; i < files.size(); ++i) {
    Loaded& one = loaded[i];
    if (one.exception) std::rethrow_exception(one.exception);
    if (!one.status.ok()) return one.status;
    if (one.job_file) {
      tables.push_back(std::move(one.table));
      sources.push_back(files[i]);
    } else {
      ranks.push_back(std::move(one.rank));
      rank_files.push_back(files[i]);
    }
  }
  loaded.clear();
  if (!ranks.empty()) {
    absl::StatusOr<JobView> view = BuildJobView(std::move(ranks));
    if (!view.ok()) return view.status();
    tables.push_back(TableOfView(*std::move(view)));
    sources.push_back(rank_files.size() == 1 ? rank_files[0] : "the rank files");
  }
  return CombineJobTables(std::move(tables), sources);
}

}  // namespace td

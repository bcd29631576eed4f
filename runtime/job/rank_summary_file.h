// A rank's job-view summary (RankSummary) inside its own run file, so that
// `td report DIR` reads a few kilobytes at the head of each rank's file
// rather than all of its threads' parts (docs/hpc.md, "Scale").
//
// The rank writes it at exit as one line of compact JSON under the run
// file's "rank_summary" key, which sorts just before "regions": made as the
// job loader makes it (td's marker cost out, then analysed, then
// summarised), with the settings and td version it was made with. The
// loader takes it only where those are its own; otherwise, and where the
// line is missing or malformed, it reads the whole file as before. A
// summary is derived data: the file's regions stay its record.
#ifndef TD_RUNTIME_JOB_RANK_SUMMARY_FILE_H_
#define TD_RUNTIME_JOB_RANK_SUMMARY_FILE_H_

#include <optional>
#include <string>
#include <string_view>

#include "runtime/analysis/analysis_pipeline.h"
#include "runtime/job/job_view.h"
#include "runtime/recorded/run_data.h"

namespace td {

// The rank's summary line for its run file: `run` holds raw values (it is
// copied, not changed). "" where there is none to write: not a rank's run,
// definitions from a folder (settings.metrics_dir), one of more than
// kMostSummarizedParts (thread, region) parts, a name that is not UTF-8, or
// memory ran out.
std::string RankSummaryLineOf(const RunData& run, const AnalysisSettings& settings);
// Making it costs the rank about 1 µs of CPU a part at exit (the copy,
// mostly; on the development VM 0.10-0.17 s at 16 threads × 10,000 regions,
// 0.85 s at 64 × 10,000): above this the file has no summary, and the job
// view reads it whole.
inline constexpr size_t kMostSummarizedParts = 200'000;

// What a search of a file's head found.
struct FoundRankSummary {
  std::optional<RankSummary> summary;  // usable: made with these settings by this td
  bool need_more = false;  // the key is there but its line runs past `head`: read more of the file
};
// The summary in `head` (the start of a run file's text, or all of it) when
// the file has one made with `settings` by this td version (never with a
// metrics_dir). `file` names it. Whether the file is whole is the caller's
// to check: only its head is looked at.
FoundRankSummary FindRankSummary(std::string_view head, const AnalysisSettings& settings, const std::string& file);

}  // namespace td

#endif  // TD_RUNTIME_JOB_RANK_SUMMARY_FILE_H_

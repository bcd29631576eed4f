// RunData <-> the td JSON file (schema in docs/json-schema.md).
#ifndef TD_RUNTIME_RECORDED_RUN_FILE_H_
#define TD_RUNTIME_RECORDED_RUN_FILE_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/recorded/run_data.h"

namespace td {

nlohmann::json RunToJson(const RunData& data);

// The run file's text: the same bytes as DumpJson(RunToJson(data), 1) + "\n",
// built one region at a time, so a run with 640,000 (thread, region) parts
// never holds them all as one JSON tree. "" when memory runs out.
std::string RunFileText(const RunData& data);
// The same bytes passed to `write` in pieces of about kRunFilePieceBytes as
// they are formatted, so that the text is never held whole either. False
// when memory runs out or `write` returns false (nothing more is written).
inline constexpr size_t kRunFilePieceBytes = size_t{1} << 20;
// `rank_summary`, when not empty, is one line of JSON written as the member
// kRankSummaryKey, just before "regions" (runtime/job/rank_summary_file.h).
bool WriteRunFileText(const RunData& data, absl::FunctionRef<bool(std::string_view piece)> write,
                      std::string_view rank_summary = {});
inline constexpr std::string_view kRankSummaryKey = "rank_summary";
// Checks the schema version and every field it reads; errors name the field.
// The key of event `index` in a thread's "counters": its name, or
// "name@gN" for a copy of an event the planner put in several groups.
std::string CounterKey(const CounterLayout& layout, size_t index);

absl::StatusOr<RunData> RunFromJson(const nlohmann::json& json);
// The run file's "mpi" object, written and read (checked) the same way
// wherever it appears (a rank's summary too: runtime/job/rank_summary_file.h).
nlohmann::json MpiRankToJson(const MpiRank& mpi);
absl::StatusOr<MpiRank> MpiRankFromJson(const nlohmann::json& mpi);
// The file's text read, parsed and checked: ScanRunText, else the full way
// (ParseJsonText, RunFromJson), whose errors it returns, prefixed by `path`.
absl::StatusOr<RunData> ReadRunFile(const std::string& path);
absl::StatusOr<RunData> RunFromText(const std::string& text, const std::string& path);

// A run file's text decoded without building its JSON tree
// (run_file_scan.cc): the same RunData as RunFromJson of the parsed text, or
// nullopt when the text is anything but the plain shape td writes, or not a
// valid run (RunFromText then reads it the full way, which says why).
// `buffers`: where a caller that reads many files (td report DIR, one per
// thread) lets the scan keep its working memory from one file to the next.
class RunScanBuffers {
 public:
  RunScanBuffers();
  ~RunScanBuffers();
  RunScanBuffers(const RunScanBuffers&) = delete;
  RunScanBuffers& operator=(const RunScanBuffers&) = delete;
  struct Vectors;  // run_file_scan.cc
  Vectors& vectors() { return *vectors_; }
  // Takes the lists of a run the caller is done with, for the next scan's
  // parts (the run keeps its regions, with their counts emptied).
  void Recycle(RunData* run);

 private:
  std::unique_ptr<Vectors> vectors_;
};
std::optional<RunData> ScanRunText(std::string_view text, RunScanBuffers* buffers = nullptr);

// The regions' tree: parents before children, each child listed once by its
// parent, paths extending their parent's by one name, no path twice.
absl::Status CheckRegionTree(const std::vector<Region>& regions);

}  // namespace td

#endif  // TD_RUNTIME_RECORDED_RUN_FILE_H_

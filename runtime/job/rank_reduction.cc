#include "runtime/job/rank_reduction.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/base/status_macros.h"

namespace td {

absl::Status RankReduction::Start(const RunData& shown, const RunAnalysis* analysis, bool per_rank) {
  TD_ASSIGN_OR_RETURN(table_, RankJobTable(shown, analysis, per_rank));
  return absl::OkStatus();
}

absl::Status RankReduction::AddChild(const char* bytes, size_t length) {
  ReductionStats& cost = table_.reduction;
  cost.messages += 1;
  cost.bytes += length;
  cost.largest = std::max<uint64_t>(cost.largest, length);
  if (rank_ == 0) cost.root_bytes += length;
  if (length == 0 || bytes == nullptr) {
    failed_ = true;
    return absl::OkStatus();
  }
  absl::StatusOr<JobTable> child =
      ParseJobTable(std::string(bytes, length), absl::StrCat("the table rank ", rank_, " received"));
  absl::Status merged = child.ok() ? MergeJobTables(&table_, *std::move(child)) : child.status();
  if (!merged.ok()) failed_ = true;
  return merged;
}

absl::StatusOr<std::string> RankReduction::TakeForParent() {
  if (failed_) return absl::FailedPreconditionError("a part of this rank's subtree did not arrive");
  std::string text = JobTableText(table_, -1);
  if (text.empty()) return absl::ResourceExhaustedError("out of memory");
  table_ = EmptyJobTable();  // what the parent has now no longer needs to be held here
  return text;
}

JobTable& RankReduction::Settle(int64_t now_ns) {
  table_.reduction.levels = size_ > 1 ? static_cast<int>(std::ceil(std::log2(size_))) : 0;
  table_.reduction.root_seconds = static_cast<double>(now_ns - start_ns_) / 1e9;
  SettleJobTable(&table_);
  return table_;
}

}  // namespace td

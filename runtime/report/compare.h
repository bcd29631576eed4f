// Several runs or regions side by side, laid out like the paper's Tables 4–6:
// rows Speedup, IPC and the Top-Down nodes, one column each, speedup
// relative to the first column; then wall time, calls and the software
// metrics (task-clock, CPUs, page faults, …) with their ratios to the first
// column, which are there with or without a Top-Down tree.
#ifndef TD_RUNTIME_REPORT_COMPARE_H_
#define TD_RUNTIME_REPORT_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/analysis/run_analysis.h"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/recorded/run_data.h"
#include "runtime/analysis/software_metrics.h"

namespace td {

struct CompareColumn {
  std::string label;                    // region path, or file name
  int64_t wall_ns = 0;                  // the region's wall time (longest thread)
  const TopDownResult* tree = nullptr;  // null when the run has no Top-Down tree
  uint64_t calls = 0;
  std::vector<SoftwareMetric> software;  // inclusive; empty when the run holds none
  std::string region;                    // the region's path
  std::string run;                       // the run, e.g. "td_matmul (pid 4242)"
};

// Region `region` of `run` as a column; the tree is `analysis`'s when it has
// trees (it must outlive the column).
CompareColumn MakeCompareColumn(const RunData& run, size_t region, const RunAnalysis& analysis,
                                std::string label);

// Rows: Speedup, IPC, every Level 1 and 2 node, and deeper nodes flagged in
// some column; then Wall time, Calls, each software metric and its ratio to
// the first column. Not measured is "—" (never 0). Text and HTML name each
// column's region and run above the table; CSV in rows "region" and "run"
// at the end, with times in ns and counts unformatted.
enum class CompareFormat { kText, kCsv, kHtml };
std::string FormatComparison(const std::vector<CompareColumn>& columns, CompareFormat format);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_COMPARE_H_

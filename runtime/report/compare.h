// Several runs or regions side by side, laid out like the paper's Tables 4–6:
// rows Speedup, IPC and the Top-Down nodes, one column each, speedup
// relative to the first column.
#ifndef TD_RUNTIME_REPORT_COMPARE_H_
#define TD_RUNTIME_REPORT_COMPARE_H_

#include <string>
#include <vector>

#include "runtime/analysis/topdown_tree.h"

namespace td {

struct CompareColumn {
  std::string label;          // region path, or file name
  int64_t wall_ns = 0;        // the region's wall time (longest thread)
  const TopDownResult* tree;  // null when the run has no Top-Down tree
};

// Rows: Speedup, IPC, every Level 1 and 2 node, and deeper nodes flagged in
// some column. Not measured is "—" (never 0).
enum class CompareFormat { kText, kCsv, kHtml };
std::string FormatComparison(const std::vector<CompareColumn>& columns, CompareFormat format);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_COMPARE_H_

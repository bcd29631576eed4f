// The report printed at exit: regions as a tree with their times and counts.
#ifndef TD_RUNTIME_REPORT_TEXT_REPORT_H_
#define TD_RUNTIME_REPORT_TEXT_REPORT_H_

#include <cstdint>
#include <string>

#include "runtime/analysis/run_analysis.h"
#include "runtime/analysis/thread_spread.h"
#include "runtime/recorded/run_data.h"

namespace td {

struct TextReportOptions {
  int max_level = 0;      // deepest Top-Down level shown on the flagged path; 0 = all
  std::string region;     // only this region (path or unique name) and what it contains
  bool per_thread = true; // a row per thread under each region (when more than one)
  bool color = false;     // ANSI colour: flagged values red, the flagged path bold
  // Folding for people: 0 shows every region; N shows the N regions with the
  // longest inclusive wall time (and the regions containing them), one line
  // for the rest, and per-thread rows only up to kFoldedThreadRows threads.
  size_t max_regions = 0;
};

// Per-thread rows are left out of a folded report beyond this many threads.
inline constexpr size_t kFoldedThreadRows = 8;

// Whether a region passes the --region filter: its path or name, or inside it.
bool RegionSelected(const RunData& data, size_t index, const std::string& filter);

// Which regions a report shows: those the filter selects, folded to
// options.max_regions (the longest by inclusive wall time, with the regions
// that contain them so the tree stays whole).
std::vector<bool> ShownRegions(const RunData& data, const TextReportOptions& options);

// A thread's name in a report: its index, and its OpenMP number where known.
std::string ThreadLabel(const RunData& data, uint32_t thread);

// `analysis` adds the Top-Down section; null leaves it out.
std::string FormatTextReport(const RunData& data, const RunAnalysis* analysis = nullptr,
                             const TextReportOptions& options = {});

}  // namespace td

#endif  // TD_RUNTIME_REPORT_TEXT_REPORT_H_

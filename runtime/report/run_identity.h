// What a run was, in a report's header: the command line, when and where it
// ran, the td that recorded it and the definitions that analysed it, so that
// two runs of one program with other arguments are told apart.
#ifndef TD_RUNTIME_REPORT_RUN_IDENTITY_H_
#define TD_RUNTIME_REPORT_RUN_IDENTITY_H_

#include <string>
#include <vector>

#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"

namespace td {

// The command line as a shell would take it back ('quoted' where a word
// needs it), as Printable text, cut to `max_columns` with "…".
std::string CommandLine(const std::vector<std::string>& argv, size_t max_columns = 160);

// "2026-11-27 10:19:59 UTC" for a time in ns since the epoch; "" for 0.
std::string UtcTime(int64_t unix_ns);

// Two lines, each ending in '\n':
//   command: ./matmul 1000
//   started 2026-11-27 10:19:59 UTC on HOST; td 0.1.0; key skl (TMA 5.2)
// What the recording does not hold is left out; the key only with an
// analysis that chose one. Printable text, for the text report and the page.
std::string RunIdentityLines(const RunData& data, const RunAnalysis* analysis);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_RUN_IDENTITY_H_

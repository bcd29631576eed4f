// What td's subcommands share: td's settings as this environment has them,
// the definitions and the analysis pipeline made from them, a run read for a
// report, a case's values printed, and the files of an MPI job found and
// loaded. The subcommands live in this namespace too.
#ifndef TD_TOOLS_TD_COMMAND_CONTEXT_H_
#define TD_TOOLS_TD_COMMAND_CONTEXT_H_

#include <string>

#include "absl/status/statusor.h"
#include "runtime/analysis/perf_case.h"
#include "runtime/driver/config.h"
#include "runtime/job/job_file.h"
#include "runtime/job/job_view.h"
#include "runtime/recorded/run_data.h"
#include "runtime/report/report_pipeline.h"
#include "runtime/uarch/definitions.h"
#include "tools/td/cli.h"

namespace td::tool {

// The flag parser's words, which every subcommand speaks.
using cli::Args;
using cli::Command;
using cli::DidYouMean;
using cli::Fail;
using cli::Flags;
using cli::Misuse;
using cli::WrongOperands;

// The TD_* settings, read once; mistakes in them are the runtime's to report.
const Config& Environment();
absl::StatusOr<DefinitionLibrary> LoadDefinitions();
// td's analysis settings; a --uarch flag wins over TD_UARCH.
AnalysisSettings Settings(const std::string& uarch_flag = "");
// A run file with td's marker cost taken out unless TD_COMPENSATE=0.
absl::StatusOr<RunData> ReadRunForReport(const std::string& file);
// The report pipeline with td's settings.
ReportPipeline Pipeline(const std::string& uarch_flag = "");
// A case's Top-Down values as JSON on stdout; the exit status.
int PrintAnswers(const PerfCase& c, const DefinitionLibrary& library);
// Whether `path` is a directory; false where it cannot be told (a symlink
// loop, say), so that reading it says why in one line.
bool IsDirectory(const std::string& path);
// The recordings in DIR (td-*.json, traces left out), sorted; DIR itself when none.
cli::Args RunFilesIn(const std::string& dir);
// One MPI job from its ranks' files and libtd-mpi's job files, merged.
absl::StatusOr<JobTable> LoadJobTable(const cli::Args& files, const std::string& uarch);
absl::StatusOr<JobView> LoadJob(const cli::Args& files, const std::string& uarch);

}  // namespace td::tool

#endif  // TD_TOOLS_TD_COMMAND_CONTEXT_H_

// The subcommands of td, one file each (tools/td/*_command.cc): each is a
// table entry (name, synopsis, help, handler) that parses its own flags with
// cli::Flags. main.cc lists them in `td help` order.
#ifndef TD_TOOLS_TD_COMMANDS_H_
#define TD_TOOLS_TD_COMMANDS_H_

#include "tools/td/cli.h"

namespace td::tool {

extern const cli::Command kRunCommand;            // run_command.cc
extern const cli::Command kReportCommand;         // report_command.cc
extern const cli::Command kCompareCommand;        // compare_command.cc
extern const cli::Command kExplainCommand;        // explain_command.cc
extern const cli::Command kRecomputeCommand;      // recompute_command.cc
extern const cli::Command kImportPerfCommand;     // import_perf_command.cc
extern const cli::Command kImportMetricsCommand;  // import_metrics_command.cc
extern const cli::Command kEventsCommand;         // events_command.cc
extern const cli::Command kUarchsCommand;         // uarchs_command.cc
extern const cli::Command kCalibrateCommand;      // calibrate_command.cc
extern const cli::Command kConfigCommand;         // config_command.cc
extern const cli::Command kDoctorCommand;         // doctor_command.cc

}  // namespace td::tool

#endif  // TD_TOOLS_TD_COMMANDS_H_

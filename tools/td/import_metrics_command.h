// td import-metrics --uarch KEY [--cpu V:F:M] [--pmu PMU] [--kernel VERSION]
//                   [--libpfm-pmu NAME] [--out FILE] DIR_OR_FILE…
#ifndef TD_TOOLS_TD_IMPORT_METRICS_COMMAND_H_
#define TD_TOOLS_TD_IMPORT_METRICS_COMMAND_H_

#include "tools/td/cli.h"

namespace td {

// The command's entry in td's command table (name, synopsis, help, handler).
extern const cli::Command kImportMetricsCommand;

}  // namespace td

#endif  // TD_TOOLS_TD_IMPORT_METRICS_COMMAND_H_

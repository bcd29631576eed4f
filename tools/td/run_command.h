// td run [--passes auto|N] [--out FILE] [--] PROGRAM ARGS…
#ifndef TD_TOOLS_TD_RUN_COMMAND_H_
#define TD_TOOLS_TD_RUN_COMMAND_H_

#include "tools/td/cli.h"

namespace td {

// `args` follow "run"; `self` is run's entry in td's command table. Returns
// the exit status for td.
int RunCommand(const cli::Command& self, const cli::Args& args);

}  // namespace td

#endif  // TD_TOOLS_TD_RUN_COMMAND_H_

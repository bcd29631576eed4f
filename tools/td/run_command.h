// td run [--passes auto|N] [--out FILE] -- PROGRAM ARGS…
#ifndef TD_TOOLS_TD_RUN_COMMAND_H_
#define TD_TOOLS_TD_RUN_COMMAND_H_

#include <string>
#include <vector>

namespace td {

// `args` follow "run". Returns the exit status for td.
int RunCommand(const std::vector<std::string>& args);

}  // namespace td

#endif  // TD_TOOLS_TD_RUN_COMMAND_H_

// A shell command's exit status and standard output, for the tests that run
// the built td as a user's shell would (quoting, redirections and all).
#ifndef TD_TESTS_COMMON_SHELL_COMMAND_H_
#define TD_TESTS_COMMON_SHELL_COMMAND_H_

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace td::testing {

struct CommandOutput {
  int status = -1;  // the exit status; -1 when it did not exit (a signal) or did not start
  std::string out;
};

inline CommandOutput RunShellCommand(const std::string& command) {
  CommandOutput r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buffer;
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), p)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace td::testing

#endif  // TD_TESTS_COMMON_SHELL_COMMAND_H_

// td run between its user and the program it runs: a signal sent to td run
// (`kill -INT`, a batch system's SIGTERM at the time limit, SIGHUP when the
// session ends) goes on to the program, so that it is not left running; td
// run then removes its scratch folder and ends with the program's status.
// A terminal's Ctrl-C already reaches both (one process group) and is not
// sent a second time.
#ifndef TD_TOOLS_TD_PROGRAM_SIGNALS_H_
#define TD_TOOLS_TD_PROGRAM_SIGNALS_H_

#include <signal.h>
#include <sys/types.h>

namespace td::tool {

class ForwardSignalsToProgram {
 public:
  // SIGINT, SIGTERM, SIGHUP and SIGQUIT, until destroyed.
  ForwardSignalsToProgram();
  ~ForwardSignalsToProgram();
  ForwardSignalsToProgram(const ForwardSignalsToProgram&) = delete;
  ForwardSignalsToProgram& operator=(const ForwardSignalsToProgram&) = delete;

  // The process that gets them from now on; 0: none (between passes).
  static void SetProgram(pid_t program);
  // The last of those signals td run received, 0 if none: no further pass.
  static int Received();

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  struct sigaction saved_[4] = {};
};

}  // namespace td::tool

#endif  // TD_TOOLS_TD_PROGRAM_SIGNALS_H_

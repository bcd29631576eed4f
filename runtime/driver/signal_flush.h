// TD_SIGNALS=1: SIGTERM, SIGINT, SIGHUP and SIGQUIT write td's reports before
// the signal ends the program the way it would have without td.
//
// A handler may only call async-signal-safe functions, and writing reports
// allocates and takes locks. So the handler only wakes a thread of td's own
// (started here, all signals blocked) through a pipe, waits on a second pipe
// for at most kSignalFlushWaitMs while that thread writes the reports, then
// restores the default action and raises the signal again: the exit status
// is the signal's. If the reports cannot be written in time (the signal
// interrupted a thread holding a lock they need), the program still ends.
#ifndef TD_RUNTIME_DRIVER_SIGNAL_FLUSH_H_
#define TD_RUNTIME_DRIVER_SIGNAL_FLUSH_H_

#include <string>

namespace td {

inline constexpr int kSignalFlushWaitMs = 5000;
// In an MPI job the launcher kills every rank once one of them ends (Open
// MPI 4.1: SIGTERM, then SIGKILL as soon as a rank exits): a rank ended by a
// signal stays this long, so that the others finish writing before it
// exits (docs/hpc.md#when-a-rank-fails).
inline constexpr int kMpiSignalLingerMs = 1500;

// Installs the handlers for those of the four signals whose action is still
// the default (a program's own handler or SIG_IGN is left alone) and starts
// the writer thread, which calls `write_reports` once. Returns one line for
// the diagnostics: what was installed, and what was left alone and why.
// `linger_ms`: the handler returns no sooner than this after the signal
// came (MPI jobs: kMpiSignalLingerMs), the reports written or not.
std::string InstallSignalFlush(void (*write_reports)(), int linger_ms = 0);

// The signal whose reports are being written (0: none): the run's file says
// a rank ended by it (docs/hpc.md#when-a-rank-fails).
int FlushingSignal();

// In a forked child: the writer thread did not survive fork(); start one.
void RestartSignalFlushInChild();

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_SIGNAL_FLUSH_H_

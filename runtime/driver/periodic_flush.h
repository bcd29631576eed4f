// TD_FLUSH_INTERVAL: a thread of td's own that, every interval, writes the
// run so far as a partial file (Runtime::FlushPartial), so that a process
// killed outright (SIGKILL, the OOM killer, a crash) leaves its data up to
// its last flush (docs/usage.md#lifecycle, docs/hpc.md#when-a-rank-fails).
//
// The thread is detached and blocks every signal: it never keeps the
// process alive, never runs a handler, and exit() ends it wherever it is.
// Finalize stops it first, so that the complete file is written last.
#ifndef TD_RUNTIME_DRIVER_PERIODIC_FLUSH_H_
#define TD_RUNTIME_DRIVER_PERIODIC_FLUSH_H_

#include <cstdint>
#include <string>

namespace td {

// How long StopPeriodicFlush waits for a flush in progress: a flush takes
// milliseconds (docs/usage.md#lifecycle); one stuck on a file system that no
// longer answers must not hold the program's exit.
inline constexpr int kFlushStopWaitMs = 2000;

// Starts the thread, which calls `flush` every `interval_s` seconds until
// stopped. Returns "" or one line saying why no thread could be started.
std::string StartPeriodicFlush(void (*flush)(), int64_t interval_s);

// No flush starts from now on; waits up to `wait_ms` for one in progress.
// True when none is in progress on return (also when none was started).
bool StopPeriodicFlush(int wait_ms = kFlushStopWaitMs);

// Whether the thread was started (and not stopped) in this process.
bool PeriodicFlushRunning();

// In a forked child: the thread did not survive fork(); start one, unless
// the parent's was stopped.
void RestartPeriodicFlushInChild();

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_PERIODIC_FLUSH_H_

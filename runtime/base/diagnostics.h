// Problems found while running (bad markers, bad settings, failed opens).
// Each is printed once to stderr when it happens and kept for the JSON.
#ifndef TD_RUNTIME_BASE_DIAGNOSTICS_H_
#define TD_RUNTIME_BASE_DIAGNOSTICS_H_

#include <string>
#include <vector>

namespace td {

enum class Severity { kNotice, kWarning, kError };

struct Diagnostic {
  Severity severity;
  std::string message;
};

// Thread-safe; takes a lock, so never call it on the hot path's normal case.
void Report(Severity severity, std::string message);
std::vector<Diagnostic> AllDiagnostics();
void ClearDiagnostics();
// Every problem reported, including those past the kept limit.
size_t DiagnosticsSeen();
// Notices are not printed when quiet; warnings and errors always are.
void SetQuiet(bool quiet);
// fork() must not leave the lock held in the child.
void LockDiagnosticsForFork();
void UnlockDiagnosticsAfterFork();
const char* SeverityName(Severity severity);

}  // namespace td

#endif  // TD_RUNTIME_BASE_DIAGNOSTICS_H_

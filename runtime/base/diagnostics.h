// Problems found while running (bad markers, bad settings, failed opens).
// Each is printed once to stderr when it happens and kept for the JSON.
#ifndef TD_RUNTIME_BASE_DIAGNOSTICS_H_
#define TD_RUNTIME_BASE_DIAGNOSTICS_H_

#include <string>
#include <string_view>
#include <vector>

namespace td {

enum class Severity { kNotice, kWarning, kError };

struct Diagnostic {
  Severity severity;
  std::string message;
};

// Thread-safe; takes a lock, so never call it on the hot path's normal case.
void ReportProblem(Severity severity, std::string message);
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

// The library's other way to stderr, for lines about td's own outputs at exit
// (where a file went, why one could not be written): "td: [severity: ]message",
// always printed, never counted against the limit above and not kept, since
// the recording they would be kept in is already written.
void Announce(Severity severity, const std::string& message);
// Text that is no problem at all (the report itself, the recording when no
// file would take it), written whole with write(2) like every line above.
void WriteToStderr(std::string_view text);

}  // namespace td

#endif  // TD_RUNTIME_BASE_DIAGNOSTICS_H_

#include "runtime/base/diagnostics.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <mutex>

#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"

namespace td {
namespace {

std::mutex& Mu() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
std::vector<Diagnostic>& Store() {
  static auto* store = new std::vector<Diagnostic>;
  return *store;
}
bool g_quiet = false;
// A marker bug inside a loop must not flood stderr or memory.
constexpr size_t kMaxPrinted = 100;
constexpr size_t kMaxKept = 1000;
size_t g_seen = 0;

}  // namespace

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kNotice: return "notice";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "?";
}

// The line is written outside the lock and with write(2), not stdio: a thread
// blocked writing to a full stderr pipe then holds neither td's lock nor
// stderr's stream lock, and finalize can still leave it out and report.
void ReportProblem(Severity severity, std::string message) {
  std::string line;
  {
    std::lock_guard<std::mutex> lock(Mu());
    const size_t seen = ++g_seen;
    if (seen == kMaxPrinted + 1) {
      line = absl::StrFormat("td: more than %zu problems; further ones are counted, not printed\n", kMaxPrinted);
    }
    if (seen <= kMaxPrinted && (severity != Severity::kNotice || !g_quiet)) {
      // Messages quote region names and settings: control bytes (ESC…) and
      // invalid UTF-8 reach the terminal as \xHH, never raw.
      const std::string shown = Printable(message);
      line = severity == Severity::kNotice ? absl::StrFormat("td: %s\n", shown)
                                           : absl::StrFormat("td: %s: %s\n", SeverityName(severity), shown);
    }
    if (seen <= kMaxKept) Store().push_back({severity, std::move(message)});
  }
  WriteToStderr(line);
}

void WriteToStderr(std::string_view text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0 && errno == EINTR) continue;
    if (n <= 0) break;  // stderr closed or broken: the line is kept in the JSON anyway
    done += static_cast<size_t>(n);
  }
}

void Announce(Severity severity, const std::string& message) {
  const std::string shown = Printable(message);
  WriteToStderr(severity == Severity::kNotice ? absl::StrFormat("td: %s\n", shown)
                                              : absl::StrFormat("td: %s: %s\n", SeverityName(severity), shown));
}

size_t DiagnosticsSeen() {
  std::lock_guard<std::mutex> lock(Mu());
  return g_seen;
}

std::vector<Diagnostic> AllDiagnostics() {
  std::lock_guard<std::mutex> lock(Mu());
  return Store();
}

void ClearDiagnostics() {
  std::lock_guard<std::mutex> lock(Mu());
  Store().clear();
  g_seen = 0;
}

void LockDiagnosticsForFork() { Mu().lock(); }
void UnlockDiagnosticsAfterFork() { Mu().unlock(); }

void SetQuiet(bool quiet) {
  std::lock_guard<std::mutex> lock(Mu());
  g_quiet = quiet;
}

}  // namespace td

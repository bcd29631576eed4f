#include "runtime/core/diagnostics.h"

#include <cstdio>

#include <mutex>

#include "runtime/report/byte_strings.h"

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

void Report(Severity severity, std::string message) {
  std::lock_guard<std::mutex> lock(Mu());
  const size_t seen = ++g_seen;
  if (seen == kMaxPrinted + 1) {
    std::fprintf(stderr, "td: more than %zu problems; further ones are counted, not printed\n",
                 kMaxPrinted);
  }
  if (seen <= kMaxPrinted && (severity != Severity::kNotice || !g_quiet)) {
    // Messages quote region names and settings: control bytes (ESC…) and
    // invalid UTF-8 reach the terminal as \xHH, never raw.
    const std::string shown = Printable(message);
    if (severity == Severity::kNotice) {
      std::fprintf(stderr, "td: %s\n", shown.c_str());
    } else {
      std::fprintf(stderr, "td: %s: %s\n", SeverityName(severity), shown.c_str());
    }
  }
  if (seen <= kMaxKept) Store().push_back({severity, std::move(message)});
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

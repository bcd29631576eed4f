#include "runtime/report/run_identity.h"

#include <ctime>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/base/byte_strings.h"

namespace td {
namespace {

// A word as a shell reads it back: as it is when it holds only characters
// no shell treats specially, else in single quotes ('\'' for a quote).
std::string ShellWord(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                              "_-./=:,+@%") == std::string::npos) {
    return word;
  }
  std::string quoted = "'";
  for (const char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Code points, not bytes: "…" must not split a character.
size_t CutAtColumns(const std::string& text, size_t columns) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == columns) return i;
  }
  return text.size();
}

}  // namespace

std::string CommandLine(const std::vector<std::string>& argv, size_t max_columns) {
  std::vector<std::string> words;
  for (const std::string& a : argv) words.push_back(ShellWord(Printable(a)));
  std::string line = absl::StrJoin(words, " ");
  const size_t cut = CutAtColumns(line, max_columns);
  if (cut < line.size()) line = line.substr(0, CutAtColumns(line, max_columns - 1)) + "…";
  return line;
}

std::string UtcTime(int64_t unix_ns) {
  if (unix_ns <= 0) return "";
  const std::time_t seconds = static_cast<std::time_t>(unix_ns / 1000000000);
  std::tm utc {};
  if (gmtime_r(&seconds, &utc) == nullptr) return "";
  char text[32];
  if (std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &utc) == 0) return "";
  return text;
}

std::string RunIdentityLines(const RunData& data, const RunAnalysis* analysis) {
  std::string out;
  if (!data.program.argv.empty()) absl::StrAppendFormat(&out, "command: %s\n", CommandLine(data.program.argv));
  std::vector<std::string> parts;
  std::string when = UtcTime(data.program.start_unix_ns);
  if (!when.empty()) when = "started " + when;
  if (!data.machine.hostname.empty()) {
    when += (when.empty() ? "on " : " on ") + Printable(data.machine.hostname);
  }
  if (!when.empty()) parts.push_back(when);
  if (!data.td_version.empty()) parts.push_back("td " + Printable(data.td_version));
  if (analysis != nullptr && !analysis->uarch.empty()) {
    parts.push_back("key " + analysis->uarch +
                    (analysis->tma_version.empty() ? "" : ", TMA " + analysis->tma_version));
  }
  if (!parts.empty()) absl::StrAppendFormat(&out, "%s\n", absl::StrJoin(parts, "; "));
  return out;
}

}  // namespace td

// One CSV field, quoted when it holds a comma, quote or newline (RFC 4180).
// Text is shown as Printable() (control bytes and invalid UTF-8 as \xHH), and
// a text cell that a spreadsheet would take for a formula (one starting with
// =, +, -, @, tab or carriage return) gets a leading single quote, as OWASP
// advises against CSV injection; numbers such as -0.5 stay numbers.
#ifndef TD_RUNTIME_REPORT_CSV_FIELD_H_
#define TD_RUNTIME_REPORT_CSV_FIELD_H_

#include <string>

#include "absl/strings/numbers.h"
#include "runtime/base/byte_strings.h"

namespace td {

inline std::string CsvField(const std::string& raw) {
  std::string s = Printable(raw);
  double number = 0;
  if (!s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos && !absl::SimpleAtod(s, &number)) {
    s.insert(0, 1, '\'');
  }
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace td

#endif  // TD_RUNTIME_REPORT_CSV_FIELD_H_

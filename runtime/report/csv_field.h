// One CSV field, quoted when it holds a comma, quote or newline (RFC 4180).
#ifndef TD_RUNTIME_REPORT_CSV_FIELD_H_
#define TD_RUNTIME_REPORT_CSV_FIELD_H_

#include <string>

namespace td {

inline std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace td

#endif  // TD_RUNTIME_REPORT_CSV_FIELD_H_

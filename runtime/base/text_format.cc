#include "runtime/base/text_format.h"

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"

namespace td {

std::string HumanDuration(int64_t ns) {
  const double v = static_cast<double>(ns);
  if (ns < 1000) return absl::StrFormat("%d ns", ns);
  if (ns < 1000000) return absl::StrFormat("%.1f µs", v / 1e3);
  if (ns < 1000000000) return absl::StrFormat("%.2f ms", v / 1e6);
  return absl::StrFormat("%.3f s", v / 1e9);
}

std::string WithThousands(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string PercentText(double fraction) { return absl::StrFormat("%.1f%%", 100 * fraction); }

std::string CsvField(const std::string& raw) {
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

std::string HtmlEscape(const std::string& text) {
  std::string out;
  // Names are byte strings: invalid UTF-8 and control bytes shown as \xHH.
  for (char c : Printable(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Counted(size_t n, const std::string& noun) {
  return absl::StrFormat("%zu %s%s", n, noun, n == 1 ? "" : "s");
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

size_t DisplayColumns(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string PadLeft(const std::string& text, size_t columns) {
  const size_t used = DisplayColumns(text);
  return used >= columns ? text : std::string(columns - used, ' ') + text;
}

std::string PadRight(const std::string& text, size_t columns) {
  const size_t used = DisplayColumns(text);
  return used >= columns ? text : text + std::string(columns - used, ' ');
}

}  // namespace td

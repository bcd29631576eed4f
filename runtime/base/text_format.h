// Text for people, shared by every report and message: durations, counts,
// percentages, CSV fields, HTML text, and how far apart two names are (for
// "closest:" hints).
#ifndef TD_RUNTIME_BASE_TEXT_FORMAT_H_
#define TD_RUNTIME_BASE_TEXT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace td {

// "850 ns", "12.3 µs", "4.56 ms", "1.234 s".
std::string HumanDuration(int64_t ns);

// 1234567 -> "1,234,567".
std::string WithThousands(uint64_t value);

// A fraction as a percentage with one decimal: 0.2531 -> "25.3%".
std::string PercentText(double fraction);

// One CSV field, quoted when it holds a comma, quote or newline (RFC 4180).
// Text is shown as Printable() (control bytes and invalid UTF-8 as \xHH), and
// a text cell that a spreadsheet would take for a formula (one starting with
// =, +, -, @, tab or carriage return) gets a leading single quote, as OWASP
// advises against CSV injection; numbers such as -0.5 stay numbers.
std::string CsvField(const std::string& raw);

// &, <, > and " as entities; invalid UTF-8 and control bytes as \xHH (Printable).
std::string HtmlEscape(const std::string& text);

// "1 region", "2 regions": `n` and the noun (singular), plural unless n is 1.
std::string Counted(size_t n, const std::string& noun);

// Levenshtein distance, for "closest names" in error messages.
size_t EditDistance(const std::string& a, const std::string& b);

// Terminal columns of UTF-8 text: every code point one column ("—" and "µ"
// are one column and more bytes).
size_t DisplayColumns(const std::string& text);
// `text` padded with spaces to `columns` display columns: on the left
// (right-aligned) or on the right (left-aligned); never cut.
std::string PadLeft(const std::string& text, size_t columns);
std::string PadRight(const std::string& text, size_t columns);

}  // namespace td

#endif  // TD_RUNTIME_BASE_TEXT_FORMAT_H_

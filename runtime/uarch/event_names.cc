#include "runtime/uarch/event_names.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace td {
namespace {

// perf's event modifiers (tools/perf: u k h I G H p P S D W e b R) — any
// segment made only of these letters is a privilege/precision filter.
bool IsPerfModifier(std::string_view segment) {
  if (segment.empty() || segment.size() > 6) return false;
  return std::all_of(segment.begin(), segment.end(),
                     [](char c) { return std::string_view("ukhIGHpPSDW").find(c) != std::string_view::npos; });
}

// A umask as td writes it: "u0x" and lower-case hex without leading zeros
// ("umask=1", "umask=0x01", ":u0x01" -> "u0x1"); the text as it is when it
// is not a number.
std::string UmaskModifier(const std::string& value) {
  char* end = nullptr;
  const unsigned long long umask = std::strtoull(value.c_str(), &end, 0);
  if (value.empty() || end == nullptr || *end != '\0') return "u" + value;
  return absl::StrCat("u0x", absl::Hex(umask));
}

// "cmask=0x6" -> "c6", "edge" -> "e", "inv" -> "i", "any" -> "t",
// "umask=0xc" -> "u0xc"; others kept.
std::string TermToModifier(std::string term) {
  term = absl::AsciiStrToLower(term);
  const size_t eq = term.find('=');
  const std::string key = term.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : term.substr(eq + 1);
  if (key == "umask") return UmaskModifier(value);
  if (eq == std::string::npos && key.size() > 3 && key.compare(0, 3, "u0x") == 0) return UmaskModifier(key.substr(1));
  if (key == "cmask" || key == "c") return absl::StrCat("c", std::strtol(value.c_str(), nullptr, 0));
  if (key == "edge" || key == "e") return "e";
  if (key == "inv" || key == "i") return "i";
  if (key == "any" || key == "t") return "t";
  return eq == std::string::npos ? key : key + value;
}

int ModifierRank(const std::string& m) {
  if (m.empty()) return 9;
  switch (m[0]) {
    case 'u': return 0;  // umask override
    case 'c': return 1;
    case 'e': return 2;
    case 'i': return 3;
    case 't': return 4;
    default: return 5;
  }
}

}  // namespace

std::string NormalizeEventName(std::string_view printed) {
  std::string text(absl::StripAsciiWhitespace(absl::string_view(printed.data(), printed.size())));
  // pmu/inner/mods: keep the inner part, drop the pmu and trailing modifiers.
  const size_t first = text.find('/');
  const size_t last = text.rfind('/');
  if (first != std::string::npos && last != first) text = text.substr(first + 1, last - first - 1);
  std::vector<std::string> terms = absl::StrSplit(text, ',');
  std::vector<std::string> parts = absl::StrSplit(terms[0], ':');
  std::string base = absl::AsciiStrToLower(parts[0]);
  std::vector<std::string> modifiers;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (IsPerfModifier(parts[i])) continue;
    modifiers.push_back(TermToModifier(parts[i]));
  }
  for (size_t i = 1; i < terms.size(); ++i) modifiers.push_back(TermToModifier(terms[i]));
  std::stable_sort(modifiers.begin(), modifiers.end(), [](const std::string& a, const std::string& b) {
    return ModifierRank(a) < ModifierRank(b);
  });
  std::replace(base.begin(), base.end(), ' ', '_');
  if (base == "topdown.slots") base = "slots";
  if (base == "cpu-cycles") base = "cycles";
  if (modifiers.empty()) return base;
  return base + ":" + absl::StrJoin(modifiers, ":");
}

}  // namespace td

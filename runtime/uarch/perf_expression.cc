// perf's expression syntax into td's, and perf's metric names into td's
// node names (runtime/uarch/perf_metrics_import.h); the import of whole
// files is perf_metrics_import.cc.
#include "runtime/uarch/perf_metrics_import.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/event_names.h"
#include "runtime/uarch/expression.h"
#include "runtime/uarch/perf_metrics_importer.h"

namespace td {
namespace {

using nlohmann::json;

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
using perf_import::IsSpace;
using perf_import::NameChar;

// perf's privilege and precision modifiers ("u", "k", "ukp"…).
bool PrivilegeModifiers(const std::string& s) {
  return !s.empty() && s.size() <= 6 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::string_view("ukhIGHpPSDW").find(c) != std::string_view::npos; });
}

// perf's retire-latency modifier ("EVENT:R", "pmu@EVENT@R"): the event's
// mean retire latency per retirement, not its count.
constexpr char kRetireLatency[] = "R";

// A retire latency keeps its ":R": it is another quantity than the count.
absl::StatusOr<std::string> DefaultName(const PerfExprName& name) {
  return name.modifiers == kRetireLatency ? name.text + ":R" : name.text;
}

}  // namespace

absl::StatusOr<std::string> TranslatePerfExpression(const std::string& e, const PerfNameMapper& map_or_null) {
  const PerfNameMapper map = map_or_null ? map_or_null : PerfNameMapper(DefaultName);
  std::vector<std::string> tokens;
  size_t i = 0;
  auto emit = [&](const PerfExprName& name) -> absl::Status {
    absl::StatusOr<std::string> written = map(name);
    if (!written.ok()) return written.status();
    tokens.push_back(*std::move(written));
    return absl::OkStatus();
  };
  while (i < e.size()) {
    const char c = e[i];
    if (IsSpace(c)) {
      ++i;
    } else if (IsDigit(c) || (c == '.' && i + 1 < e.size() && IsDigit(e[i + 1]))) {
      size_t j = i;
      while (j < e.size() && (IsDigit(e[j]) || e[j] == '.')) ++j;
      if (j + 1 < e.size() && (e[j] == 'e' || e[j] == 'E')) {  // 1e9, 1e-9
        size_t k = j + 1;
        if (k < e.size() && (e[k] == '-' || e[k] == '+')) ++k;
        if (k < e.size() && IsDigit(e[k])) {
          while (k < e.size() && IsDigit(e[k])) ++k;
          j = k;
        }
      }
      if (j < e.size() && (IsAlpha(e[j]) || e[j] == '_')) {
        return absl::UnimplementedError(absl::StrFormat("the name \"%s…\" starts with a digit", e.substr(i, j - i + 1)));
      }
      tokens.push_back(e.substr(i, j - i));
      i = j;
    } else if (NameChar(c) || c == '\\') {
      std::string name;
      bool escaped = false;
      while (i < e.size() && (NameChar(e[i]) || e[i] == '\\')) {
        if (e[i] == '\\' && i + 1 < e.size()) {
          ++i;
          escaped = true;
        }
        name += e[i++];
      }
      if (i < e.size() && e[i] == '@') {  // pmu@event@[modifiers]
        std::string inner;
        ++i;
        while (i < e.size() && e[i] != '@') {
          if (e[i] == '\\' && i + 1 < e.size()) ++i;
          inner += e[i++];
        }
        if (i >= e.size()) return absl::UnimplementedError("an unclosed pmu@event@");
        ++i;
        std::string modifiers;
        while (i < e.size() && IsAlpha(e[i])) modifiers += e[i++];
        if (!modifiers.empty() && modifiers != kRetireLatency && !PrivilegeModifiers(modifiers)) {
          return absl::UnimplementedError("modifier \"" + modifiers + "\" after " + name + "@" + inner + "@");
        }
        // ",cpu=cpu_core" picks the CPUs of a hybrid part's PMU (msr@tsc\,cpu=cpu_core@): no encoding.
        if (const size_t cpu = inner.find(",cpu="); cpu != std::string::npos) {
          const size_t end = inner.find(',', cpu + 1);
          inner.erase(cpu, end == std::string::npos ? std::string::npos : end - cpu);
        }
        // "EVENT@offcore_rsp\=0x…@": terms of an event, not a PMU's event.
        const bool terms = name.find('.') != std::string::npos && inner.find('=') != std::string::npos;
        std::string term = absl::AsciiStrToLower(inner);
        term.erase(std::remove(term.begin(), term.end(), '='), term.end());  // td's names have no '='
        const std::string event =
            terms ? NormalizeEventName(name) + ":" + term : NormalizeEventName(name + "/" + inner + "/");
        if (auto s = emit({PerfExprName::kEvent, event, modifiers}); !s.ok()) return s;
        continue;
      }
      if (i < e.size() && e[i] == ':' && i + 1 < e.size() && IsAlpha(e[i + 1])) {  // EVENT:u
        std::string modifiers;
        ++i;
        while (i < e.size() && std::isalnum(static_cast<unsigned char>(e[i]))) modifiers += e[i++];
        if (modifiers != kRetireLatency && !PrivilegeModifiers(modifiers)) {
          return absl::UnimplementedError("modifier \":" + modifiers + "\" of " + name);
        }
        if (auto s = emit({PerfExprName::kEvent, NormalizeEventName(name), modifiers}); !s.ok()) return s;
        continue;
      }
      size_t after = i;
      while (after < e.size() && IsSpace(e[after])) ++after;
      const bool call = after < e.size() && e[after] == '(' && name != "if" && name != "else";
      if (name == "strcmp_cpuid_str" && call) {
        const size_t close = e.find(')', after);
        if (close == std::string::npos) return absl::UnimplementedError("an unclosed strcmp_cpuid_str(");
        std::string id = e.substr(after + 1, close - after - 1);
        id.erase(std::remove_if(id.begin(), id.end(), [](char x) { return IsSpace(x); }), id.end());
        if (auto s = emit({PerfExprName::kCpuid, "cpuid_ge_" + absl::AsciiStrToLower(id), ""}); !s.ok()) return s;
        i = close + 1;
      } else if (call) {
        if (name != "min" && name != "max" && name != "d_ratio") {
          return absl::UnimplementedError("function " + name + "()");
        }
        tokens.push_back(name);
      } else if (name == "if" || name == "else") {
        tokens.push_back(name);
      } else if (name[0] == '#') {
        if (auto s = emit({PerfExprName::kLiteral, name, ""}); !s.ok()) return s;
      } else if (escaped || name.find('-') != std::string::npos || name.find(',') != std::string::npos ||
                 name.find('=') != std::string::npos) {
        if (auto s = emit({PerfExprName::kEvent, NormalizeEventName(name), ""}); !s.ok()) return s;
      } else {
        if (auto s = emit({PerfExprName::kName, name, ""}); !s.ok()) return s;
      }
    } else if (c == '^') {
      size_t j = i + 1;
      while (j < e.size() && IsSpace(e[j])) ++j;
      if (tokens.empty() || j >= e.size() || e[j] != '1' || (j + 1 < e.size() && (IsDigit(e[j + 1]) || e[j + 1] == '.'))) {
        return absl::UnimplementedError("'^' other than X ^ 1");
      }
      tokens.back() = "(not " + tokens.back() + ")";
      i = j + 1;
    } else if (c == '&' || c == '|') {
      tokens.push_back(c == '&' ? "and" : "or");
      ++i;
    } else if ((c == '<' || c == '>') && i + 1 < e.size() && e[i + 1] == '=') {
      return absl::UnimplementedError(absl::StrFormat("operator '%c='", c));
    } else if (std::string("+-*/(),<>").find(c) != std::string::npos) {
      tokens.push_back(std::string(1, c));
      ++i;
    } else {
      return absl::UnimplementedError(absl::StrFormat("character '%c'", c));
    }
  }
  std::string out;
  for (size_t t = 0; t < tokens.size(); ++t) {
    const std::string& token = tokens[t];
    const bool tight = t == 0 || tokens[t - 1] == "(" || token == ")" || token == "," ||
                       (token == "(" && (tokens[t - 1] == "min" || tokens[t - 1] == "max" || tokens[t - 1] == "d_ratio"));
    if (!tight) out += ' ';
    out += token;
  }
  return out;
}

std::string TdNodeNameForPerf(std::string_view perf_metric) {
  std::string s(perf_metric);
  if (s.rfind("tma_", 0) == 0) s = s.substr(4);
  // Whole names td spells its own way (its definition files, TMA's names).
  static const std::map<std::string, std::string>* whole = new std::map<std::string, std::string>{
      {"mem_bandwidth", "MEM_Bandwidth"}, {"mem_latency", "MEM_Latency"},
      {"ifetch_latency", "Fetch_Latency"},  // Gracemont/Crestmont's Level 2, as td names it
      {"ifetch_bandwidth", "Fetch_Bandwidth"}, {"c01_wait", "C01_WAIT"}, {"c02_wait", "C02_WAIT"},
      // AMD's pipeline utilisation Level 2 (perf's amdzen4 names, then amdzen5's), as td's amd_zen.json names them.
      {"frontend_bound_latency", "Fetch_Latency"}, {"frontend_bound_by_latency", "Fetch_Latency"},
      {"frontend_bound_bandwidth", "Fetch_Bandwidth"}, {"frontend_bound_by_bandwidth", "Fetch_Bandwidth"},
      {"bad_speculation_mispredicts", "Branch_Mispredicts"}, {"bad_speculation_from_mispredicts", "Branch_Mispredicts"},
      {"bad_speculation_pipeline_restarts", "Machine_Clears"},
      {"bad_speculation_from_pipeline_restarts", "Machine_Clears"},
      {"backend_bound_memory", "Memory_Bound"}, {"backend_bound_by_memory", "Memory_Bound"},
      {"backend_bound_cpu", "Core_Bound"}, {"backend_bound_by_cpu", "Core_Bound"},
      {"retiring_fastpath", "Light_Operations"}, {"retiring_from_fastpath", "Light_Operations"},
      {"retiring_microcode", "Heavy_Operations"}, {"retiring_from_microcode", "Heavy_Operations"},
  };
  if (auto it = whole->find(s); it != whole->end()) return it->second;
  // Words TMA writes as acronyms.
  static const std::set<std::string>* upper = new std::set<std::string>{
      "alu", "amx", "avx", "cisc", "dram", "dsb", "dtlb", "fb", "fp", "itlb", "lcp", "lsd", "mite", "ms", "pmm",
      "sq", "st", "stlb", "smt", "llc", "4k", "2m", "1g", "uc", "ld", "rfo", "hitm", "mux", "x87", "cxl"};
  std::vector<std::string> words = absl::StrSplit(s, '_');
  for (std::string& w : words) {
    if (w.empty()) continue;
    if (upper->count(w)) {
      w = absl::AsciiStrToUpper(w);
    } else if (w == "icache") {
      w = "ICache";
    } else {
      w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
    }
  }
  return absl::StrJoin(words, "_");
}

}  // namespace td

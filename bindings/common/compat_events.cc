// PAPI_EVENTS and LIKWID_EVENTS as TD_EVENTS, for programs run with
// libtd_compat (docs/compat.md). Runs once when the library is loaded, before
// main and before td's runtime reads its settings at the first marker, so the
// environment is changed while the process still has one thread.
//
// Names that have a td spelling are translated: PAPI presets with a generic
// kernel event (PAPI_TOT_INS -> instructions, PAPI_TOT_CYC -> cycles, …),
// PAPI's perf:: names (perf::TASK-CLOCK, perf::PERF_COUNT_HW_CPU_CYCLES) and
// LIKWID's fixed-counter events (INSTR_RETIRED_ANY -> instructions, …). The
// rest is listed on one line as ignored. TD_EVENTS, when set, wins. The three
// variables are read through td's configuration (td_compat_setting), like
// every variable td reads; only setting TD_EVENTS happens here.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "bindings/common/compat_events.h"
#include "runtime/driver/compat_api.h"

namespace td::compat {
namespace {

struct Alias {
  const char* from;
  const char* to;
};

// PAPI presets whose meaning is one of the kernel's generic events.
constexpr Alias kPapiPresets[] = {
    {"PAPI_TOT_INS", "instructions"},        {"PAPI_TOT_CYC", "cycles"},
    {"PAPI_REF_CYC", "ref-cycles"},          {"PAPI_BR_INS", "branches"},
    {"PAPI_BR_MSP", "branch-misses"},        {"PAPI_L1_DCM", "L1-dcache-load-misses"},
    {"PAPI_L1_ICM", "L1-icache-load-misses"}, {"PAPI_TLB_DM", "dTLB-load-misses"},
    {"PAPI_TLB_IM", "iTLB-load-misses"},     {"PAPI_STL_ICY", "stalled-cycles-frontend"},
};

// LIKWID's names for the fixed counters' events.
constexpr Alias kLikwidEvents[] = {
    {"INSTR_RETIRED_ANY", "instructions"},
    {"CPU_CLK_UNHALTED_CORE", "cycles"},
    {"CPU_CLK_UNHALTED_REF", "ref-cycles"},
    {"ACTUAL_CPU_CLOCK", "cycles"},  // AMD
    {"RETIRED_INSTRUCTIONS", "instructions"},
};

// The kernel's generic event names, as td spells them.
constexpr const char* kPerfNames[] = {
    "cycles", "cpu-cycles", "instructions", "cache-references", "cache-misses", "branch-instructions",
    "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
    "ref-cycles", "cpu-clock", "task-clock", "page-faults", "faults", "context-switches", "cs",
    "cpu-migrations", "migrations", "minor-faults", "major-faults", "alignment-faults", "emulation-faults",
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsPerfName(const std::string& name) {
  for (const char* p : kPerfNames) {
    if (name == p) return true;
  }
  return false;
}

// perf::TASK-CLOCK, perf::PERF_COUNT_SW_TASK_CLOCK, perf::CYCLES:u -> td's
// spelling, or "".
std::string FromPerf(std::string name) {
  name = name.substr(0, name.find(':'));  // modifiers: td counts user and kernel
  for (const char* prefix : {"PERF_COUNT_HW_", "PERF_COUNT_SW_"}) {
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::strlen(prefix));
  }
  name = Lower(name);
  for (char& c : name) {
    if (c == '_') c = '-';
  }
  return IsPerfName(name) ? name : "";
}

std::string Find(const Alias* table, size_t n, const std::string& name) {
  for (size_t i = 0; i < n; ++i) {
    if (name == table[i].from) return table[i].to;
  }
  return "";
}

std::vector<std::string> Split(const std::string& s, const char* separators) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = s.find_first_of(separators, start);
    std::string part = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.pop_back();
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front()))) part.erase(0, 1);
    if (!part.empty()) parts.push_back(part);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return parts;
}

void AddUnique(std::vector<std::string>* list, const std::string& name) {
  for (const std::string& have : *list) {
    if (have == name) return;
  }
  list->push_back(name);
}

std::string Join(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& s : list) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

Translation TranslatePapiEvents(const std::string& value) {
  Translation t;
  for (std::string item : Split(value, ",")) {
    const std::string original = item;
    item = item.substr(0, item.find('='));  // PAPI's "=instant" suffix
    std::string td = item.rfind("perf::", 0) == 0 ? FromPerf(item.substr(6))
                                                   : Find(kPapiPresets, std::size(kPapiPresets), item);
    if (td.empty()) {
      t.ignored.push_back(original);
    } else {
      AddUnique(&t.events, td);
    }
  }
  return t;
}

Translation TranslateLikwidEvents(const std::string& value) {
  Translation t;
  // LIKWID_EVENTS: groups separated by '|', each a group name (FLOPS_DP) or
  // EVENT:COUNTER items separated by ','.
  for (const std::string& item : Split(value, "|,")) {
    const std::string event = item.substr(0, item.find(':'));
    const std::string td = Find(kLikwidEvents, std::size(kLikwidEvents), event);
    if (td.empty()) {
      t.ignored.push_back(item);
    } else {
      AddUnique(&t.events, td);
    }
  }
  return t;
}

namespace {

// A variable as td's configuration reads it (runtime/driver/config.cc, through
// runtime/driver/compat_api.h); "" when unset or empty.
std::string Setting(const char* name) {
  const long length = td_compat_setting(name, nullptr, 0);
  if (length <= 0) return "";
  std::string value(static_cast<size_t>(length) + 1, '\0');
  const long copied = td_compat_setting(name, value.data(), value.size());
  value.resize(copied <= 0 ? 0 : std::min(static_cast<size_t>(copied), value.size() - 1));
  return value;
}

void TranslateEnvironment() {
  const std::string papi = Setting("PAPI_EVENTS");
  const std::string likwid = Setting("LIKWID_EVENTS");
  if (papi.empty() && likwid.empty()) return;
  const char* named = !papi.empty() ? "PAPI_EVENTS" : "LIKWID_EVENTS";
  const std::string existing = Setting("TD_EVENTS");
  if (!existing.empty()) {
    std::fprintf(stderr, "td: %s is ignored: TD_EVENTS=%s is set and chooses td's events\n", named, existing.c_str());
    return;
  }
  Translation all;
  if (!papi.empty()) {
    Translation t = TranslatePapiEvents(papi);
    for (const std::string& e : t.events) AddUnique(&all.events, e);
    for (const std::string& e : t.ignored) all.ignored.push_back("PAPI_EVENTS " + e);
  }
  if (!likwid.empty()) {
    Translation t = TranslateLikwidEvents(likwid);
    for (const std::string& e : t.events) AddUnique(&all.events, e);
    for (const std::string& e : t.ignored) all.ignored.push_back("LIKWID_EVENTS " + e);
  }
  std::string line = "td: ";
  if (!all.events.empty()) {
    setenv("TD_EVENTS", Join(all.events).c_str(), 1);
    line += "counting TD_EVENTS=" + Join(all.events) + " for " + named;
    if (!all.ignored.empty()) line += "; ";
  }
  if (!all.ignored.empty()) {
    line += "ignored (no td equivalent): ";
    for (size_t i = 0; i < all.ignored.size(); ++i) line += (i == 0 ? "" : ", ") + all.ignored[i];
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

__attribute__((constructor)) void TranslateAtLoad() { TranslateEnvironment(); }

}  // namespace
}  // namespace td::compat

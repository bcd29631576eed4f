#include "runtime/counters/event_spec.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/counters/event_encoder.h"
#include "runtime/machine/kernel_files.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

// perf's names (perf list, "Hardware event" and "Software event").
constexpr GenericEvent kGenericEvents[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "count"},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "count"},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "count"},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "count"},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "count"},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "count"},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "count"},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "count"},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, "count"},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "count"},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "count"},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, "count"},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "ns"},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ns"},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "count"},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "count"},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "count"},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "count"},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "count"},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "count"},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, "count"},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, "count"},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, "count"},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, "count"},
};

// Field layout of the core PMU when sysfs does not describe it (no PMU on
// this machine, or encoding for another one): Intel's and AMD's event select
// register (reference §1.5); AMD's event bits 8-11 live in config[35:32].
constexpr struct {
  const char* term;
  const char* format;
} kDefaultCpuFormat[] = {
    {"event", "config:0-7,32-35"}, {"umask", "config:8-15"}, {"edge", "config:18"},
    {"pc", "config:19"},           {"any", "config:21"},     {"inv", "config:23"},
    {"cmask", "config:24-31"},     {"offcore_rsp", "config1:0-63"},
    {"ldlat", "config1:0-15"},     {"frontend", "config1:0-23"},
};

// Puts `value` into the bits a sysfs format string names, e.g.
// "config:0-7,32-35" (low bits first) or "config1:0-63" or "config:18".
absl::Status ApplyFormat(const std::string& format, uint64_t value, EventInfo* event) {
  const std::vector<std::string> parts = absl::StrSplit(format, ':');
  if (parts.size() != 2) return absl::InvalidArgumentError("bad format \"" + format + "\"");
  uint64_t* word = parts[0] == "config"    ? &event->perf_config
                   : parts[0] == "config1" ? &event->perf_config1
                                           : nullptr;
  if (word == nullptr) return absl::InvalidArgumentError("unsupported field " + parts[0]);
  uint64_t remaining = value;
  int width_total = 0;
  const std::vector<std::string> ranges = absl::StrSplit(parts[1], ',');
  for (const std::string& range : ranges) {
    const std::vector<std::string> ends = absl::StrSplit(range, '-');
    int lo = 0;
    int hi = 0;
    if (!absl::SimpleAtoi(ends[0], &lo) || !absl::SimpleAtoi(ends.back(), &hi) || hi < lo ||
        hi > 63) {
      return absl::InvalidArgumentError("bad format \"" + format + "\"");
    }
    const int width = hi - lo + 1;
    const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    *word |= (remaining & mask) << lo;
    remaining = width == 64 ? 0 : remaining >> width;
    width_total += width;
  }
  if (remaining != 0) {
    return absl::OutOfRangeError(
        absl::StrFormat("value 0x%x does not fit the %d bits of %s", value, width_total, format));
  }
  return absl::OkStatus();
}

const char* DefaultCpuFormat(std::string_view term) {
  for (const auto& f : kDefaultCpuFormat) {
    if (term == f.term) return f.format;
  }
  return nullptr;
}

absl::StatusOr<EventInfo> ResolvePmuTerms(const std::string& spec, const std::string& sysfs) {
  const size_t slash = spec.find('/');
  const std::string pmu = spec.substr(0, slash);
  const std::string terms = spec.substr(slash + 1, spec.size() - slash - 2);
  EventInfo event;
  event.name = spec;
  event.unit = "count";
  event.pmu = pmu;
  event.hardware = true;
  const std::string dir = sysfs + "/" + pmu;
  const std::optional<std::string> type_text = ReadFirstLine(dir + "/type");
  const bool in_sysfs = type_text.has_value();
  if (in_sysfs) {
    if (!absl::SimpleAtoi(*type_text, &event.perf_type)) {
      return absl::InvalidArgumentError(absl::StrFormat("%s/type does not hold a number", dir));
    }
  } else if (pmu == "cpu" || pmu == "cpu_core" || pmu == "cpu_atom") {
    event.perf_type = PERF_TYPE_RAW;  // the core PMU, encoded with the default field layout
  } else {
    return absl::NotFoundError(absl::StrFormat(
        "event \"%s\": PMU \"%s\" does not exist on this machine (no %s)", spec, pmu, dir));
  }
  // A bare name the PMU lists under events/ (e.g. uncore_imc_0/cas_count_read/)
  // stands for the terms written there.
  std::vector<std::string> term_list;
  for (const std::string& term : std::vector<std::string>(absl::StrSplit(terms, ',', absl::SkipEmpty()))) {
    std::optional<std::string> alias;
    if (in_sysfs && term.find('=') == std::string::npos) {
      alias = ReadFirstLine(dir + "/events/" + std::string(absl::StripAsciiWhitespace(term)));
    }
    if (alias) {
      for (absl::string_view t : absl::StrSplit(*alias, ',', absl::SkipEmpty())) term_list.emplace_back(t);
    } else {
      term_list.push_back(term);
    }
  }
  for (const std::string& term : term_list) {
    const size_t eq = term.find('=');
    const std::string key = absl::AsciiStrToLower(absl::StripAsciiWhitespace(term.substr(0, eq)));
    uint64_t value = 1;  // a bare flag such as "inv" or "edge"
    if (eq != std::string::npos) {
      std::string text(absl::StripAsciiWhitespace(term.substr(eq + 1)));
      const bool ok = absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X")
                          ? absl::SimpleHexAtoi(text.substr(2), &value)
                          : absl::SimpleAtoi(text, &value);
      if (!ok) {
        return absl::InvalidArgumentError(
            absl::StrFormat("event \"%s\": %s=%s is not a number", spec, key, text));
      }
    }
    if (key == "config" || key == "config1") {
      (key == "config" ? event.perf_config : event.perf_config1) = value;
      continue;
    }
    std::string format;
    if (in_sysfs) {
      format = ReadFirstLine(dir + "/format/" + key).value_or("");
    } else {
      if (const char* f = DefaultCpuFormat(key)) format = f;
    }
    if (format.empty()) {
      std::vector<std::string> known;
      for (const auto& f : kDefaultCpuFormat) known.push_back(f.term);
      return absl::InvalidArgumentError(absl::StrFormat(
          "event \"%s\": PMU %s has no field \"%s\"%s", spec, pmu, key,
          in_sysfs ? " (see " + dir + "/format)" : "; known: " + absl::StrJoin(known, ", ")));
    }
    if (absl::Status s = ApplyFormat(std::string(absl::StripAsciiWhitespace(format)), value, &event);
        !s.ok()) {
      return absl::InvalidArgumentError(absl::StrFormat("event \"%s\": %s: %s", spec, key, s.message()));
    }
  }
  return event;
}

bool IsRawHex(const std::string& spec) {
  return spec.size() > 1 && spec[0] == 'r' &&
         std::all_of(spec.begin() + 1, spec.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::optional<uint64_t> EventSelectBits(std::string_view field, uint64_t value) {
  const char* format = DefaultCpuFormat(field);
  if (format == nullptr || !absl::StartsWith(format, "config:")) return std::nullopt;
  EventInfo event;
  if (!ApplyFormat(format, value, &event).ok()) return std::nullopt;
  return event.perf_config;
}

const GenericEvent* FindGenericEvent(std::string_view name) {
  for (const GenericEvent& g : kGenericEvents) {
    if (absl::EqualsIgnoreCase(absl::string_view(name.data(), name.size()), g.name)) return &g;
  }
  return nullptr;
}

std::vector<std::string> GenericEventNames() {
  std::vector<std::string> names;
  for (const GenericEvent& e : kGenericEvents) names.emplace_back(e.name);
  return names;
}

absl::StatusOr<std::vector<EventListGroup>> ParseEventList(std::string_view text) {
  std::vector<EventListGroup> groups;
  EventListGroup braced;
  bool in_braces = false;
  bool in_pmu_terms = false;  // between the slashes of cpu/.../, where commas separate terms
  std::string current;
  auto finish_event = [&](size_t at) -> absl::Status {
    std::string name(absl::StripAsciiWhitespace(current));
    current.clear();
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat("empty event name at character %d", at + 1));
    }
    if (in_braces) {
      braced.events.push_back(std::move(name));
    } else {
      groups.push_back({{std::move(name)}, false});
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '/') in_pmu_terms = !in_pmu_terms;
    if (in_pmu_terms || (c != ',' && c != '{' && c != '}')) {
      current += c;
      continue;
    }
    if (c == '{') {
      if (in_braces || !absl::StripAsciiWhitespace(current).empty()) {
        return absl::InvalidArgumentError(absl::StrFormat("unexpected '{' at character %d", i + 1));
      }
      in_braces = true;
    } else if (c == '}') {
      if (!in_braces) {
        return absl::InvalidArgumentError(absl::StrFormat("'}' without '{' at character %d", i + 1));
      }
      TD_RETURN_IF_ERROR(finish_event(i));
      in_braces = false;
      groups.push_back({std::move(braced.events), true});
      braced = {};
      // A comma may follow the closing brace.
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      if (i + 1 < text.size() && text[i + 1] == ',') ++i;
    } else if (absl::Status s = finish_event(i); !s.ok()) {
      return s;
    }
  }
  if (in_pmu_terms) return absl::InvalidArgumentError("a PMU event is missing its closing '/'");
  if (in_braces) return absl::InvalidArgumentError("'{' is never closed");
  if (!absl::StripAsciiWhitespace(current).empty() || (!text.empty() && text.back() == ',')) {
    TD_RETURN_IF_ERROR(finish_event(text.size()));
  }
  return groups;
}

absl::StatusOr<EventInfo> EventResolver::Resolve(const std::string& spec) const {
  if (const GenericEvent* g = FindGenericEvent(spec)) {
    EventInfo event;
    event.name = spec;
    event.unit = g->unit;
    event.perf_type = g->type;
    event.perf_config = g->config;
    event.hardware = g->type != PERF_TYPE_SOFTWARE;
    event.pmu = g->type == PERF_TYPE_SOFTWARE ? "software" : "cpu";
    return event;
  }
  if (IsRawHex(spec)) {
    EventInfo event;
    event.name = spec;
    event.unit = "count";
    event.perf_type = PERF_TYPE_RAW;
    if (!absl::SimpleHexAtoi(spec.substr(1), &event.perf_config)) {
      return absl::InvalidArgumentError("raw event \"" + spec + "\" does not fit 64 bits");
    }
    event.hardware = true;
    event.pmu = "cpu";
    return event;
  }
  if (const size_t slash = spec.find('/'); slash != std::string::npos && slash > 0 &&
                                           spec.back() == '/' && spec.size() > slash + 1) {
    return ResolvePmuTerms(spec, sysfs_devices);
  }
  // libpfm4 (and td's table): "skl::NAME" picks the PMU explicitly.
  std::string pmu_name = pmu;
  std::string event_name = spec;
  if (const size_t colons = spec.find("::"); colons != std::string::npos) {
    pmu_name = spec.substr(0, colons);
    event_name = spec.substr(colons + 2);
  }
  DefinitionLibrary empty;
  auto encoded = EncodeEvent(event_name, pmu_name, library != nullptr ? *library : empty);
  if (!encoded.ok()) {
    // Add perf's names that are close (a typo of "instructions" is not a libpfm4 name).
    std::vector<std::string> close;
    for (const GenericEvent& g : kGenericEvents) {
      if (EditDistance(absl::AsciiStrToLower(spec), g.name) <= 2) close.emplace_back(g.name);
    }
    if (close.empty()) return encoded.status();
    return absl::Status(encoded.status().code(),
                        absl::StrFormat("%s; perf names: %s", encoded.status().message(),
                                        absl::StrJoin(close, ", ")));
  }
  EventInfo event;
  event.name = spec;
  event.unit = "count";
  event.perf_type = encoded->type;
  event.perf_config = encoded->config;
  event.perf_config1 = encoded->config1;
  event.hardware = encoded->type != PERF_TYPE_SOFTWARE;
  event.pmu = encoded->pmu.empty() ? "cpu" : encoded->pmu;
  return event;
}

}  // namespace td

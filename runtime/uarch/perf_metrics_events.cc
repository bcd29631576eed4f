// The names perf's formulas use that are not metrics: events (declared with
// their perf_event_attr.config from the event files) and "#" literals.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/uarch/event_names.h"
#include "runtime/uarch/perf_metrics_importer.h"

namespace td::perf_import {
namespace {

// Kernel events perf's metrics use that no event file lists: the
// PERF_METRICS pseudo events of Ice Lake and later (their config as the
// kernel's sysfs "events" directory gives it) and perf's generic ones.
struct KernelEvent {
  const char* name;
  const char* config;  // "" when perf or the kernel encode it
  const char* note;
};
const KernelEvent* FindKernelEvent(const std::string& normalized) {
  static const KernelEvent kEvents[] = {
      {"topdown-retiring", "0x8000", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-bad-spec", "0x8100", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-fe-bound", "0x8200", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-be-bound", "0x8300", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-heavy-ops", "0x8400", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-br-mispredict", "0x8500", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-fetch-lat", "0x8600", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"topdown-mem-bound", "0x8700", "PERF_METRICS pseudo event (kernel sysfs)"},
      {"duration_time", "", "perf's wall-clock time of the measurement, in seconds"},
      {"tsc", "", "time-stamp counter ticks over the measurement (perf's msr/tsc/ event)"},
      {"cycles", "", "perf generic"},
      {"instructions", "", "perf generic"},
      {"ref-cycles", "", "perf generic"},
      {"task-clock", "", "perf software event"},
  };
  for (const KernelEvent& e : kEvents) {
    if (normalized == e.name) return &e;
  }
  return nullptr;
}

// perf_event_attr.config of an event file's entry: EventCode | UMask << 8 |
// EdgeDetect << 18 | AnyThread << 21 | Invert << 23 | CounterMask << 24
// (an extended event code's high nibble in bits 32-35).
uint64_t RawConfigOf(const PerfEventEntry& e) {
  return (e.code & 0xff) | ((e.code >> 8) & 0xf) << 32 | (e.umask & 0xff) << 8 | (e.edge ? 1ull << 18 : 0) |
         (e.any ? 1ull << 21 : 0) | (e.inv ? 1ull << 23 : 0) | (e.cmask & 0xff) << 24;
}

}  // namespace

absl::StatusOr<std::string> Importer::Literal(const std::string& literal) {
  // perf's "#" literals that are properties of the measured machine.
  static const std::map<std::string, std::string> kKnown = {
      {"#SMT_on", "SMT_on"},        // set by td from the machine (or the case's smt)
      {"#core_wide", "Core_Wide"},  // 0: td counts per thread, as perf does without -a
      {"#has_pmem", "Has_PMEM"},    // set by td from the machine (or the case's persistent_memory)
  };
  if (literal == "#slots") {
    // Arm: the slots per cycle perf reads from the PMU's caps/slots in sysfs.
    if (options_.slots <= 0) {
      return absl::UnimplementedError("perf's #slots (the core's slots per cycle, its PMU's caps/slots): give it with --slots N");
    }
    used_literals_.insert("Pipeline_Width");
    return std::string("Pipeline_Width");
  }
  if (auto it = kKnown.find(literal); it != kKnown.end()) {
    used_literals_.insert(it->second);
    return it->second;
  }
  return absl::UnimplementedError("perf's " + literal + " (a property of the machine td does not record)");
}

absl::StatusOr<std::string> Importer::RetireLatency(const std::string& normalized) {
  auto found = events_.find(normalized);
  if (found == events_.end()) return absl::UnimplementedError("retire latency of " + normalized + ", an event in none of the event files");
  if (!found->second.retire_latency_mean) {
    // No mean to stand in: the term is a value only a recording or case can
    // bring (a count named EVENT:R); without one the node says so.
    const std::string name = found->second.name + ":R";
    json entry = {{"name", name},
                  {"note", "a sampled retire latency (perf stat --record-tpebs); the vendor data give no mean "
                           "(RetirementLatencyMean) to use without one"}};
    return Declare(NormalizeEventName(name), name, std::move(entry));
  }
  // A constant of the key: td has no sampled retire latency unless a recording
  // brings one under this name (the evaluator prefers that, and notes which).
  const std::string name = found->second.name + ":R";
  retire_latencies_[name] = *found->second.retire_latency_mean;
  return name;
}

absl::StatusOr<std::string> Importer::Event(const std::string& normalized, const std::string& privilege) {
  if (privilege == "R") return RetireLatency(normalized);
  if (!privilege.empty()) {
    return absl::UnimplementedError("event " + normalized + " counted with modifier " + privilege +
                                    " (one privilege level only; td counts the event as a whole)");
  }
  if (auto it = formula_names_.find(normalized); it != formula_names_.end()) return it->second;
  // Extending td's own key: an event td knows keeps td's name and encoding,
  // unless td's table encodes it otherwise than this CPU's event file does
  // (one name, other codes across generations: CYCLE_ACTIVITY.STALLS_MEM_ANY
  // is 0xA3/0x14 c20 on Skylake, 0xA3/0x06 c6 on Broadwell). Then the event
  // is declared with this CPU's encoding, which replaces td's for this key only.
  const EventDefinition* known = td_ == nullptr ? nullptr : td_->FindEvent(normalized);
  if (known != nullptr && !EncodedOtherwise(*known, normalized)) {
    formula_names_[normalized] = known->name;
    return known->name;
  }
  if (absl::StatusOr<json> vendor = VendorEvent(normalized); vendor.ok()) {
    const std::string name = (*vendor)["name"].get<std::string>();
    return Declare(normalized, name, *std::move(vendor));
  }
  const size_t colon = normalized.find(':');
  const std::string base = normalized.substr(0, colon);
  const std::string modifiers = colon == std::string::npos ? "" : normalized.substr(colon + 1);
  json entry;
  auto found = events_.find(base);
  if (found == events_.end()) {
    const KernelEvent* kernel = modifiers.empty() ? FindKernelEvent(base) : nullptr;
    if (kernel == nullptr) {
      return absl::UnimplementedError("event " + normalized + " is in none of the event files" +
                                      (events_.empty() ? " (no event files were given)" : ""));
    }
    entry["name"] = base == "tsc" ? "msr/tsc/" : base;
    if (*kernel->config) entry["encoding"] = {{"config", kernel->config}};
    entry["note"] = kernel->note;
    return Declare(normalized, base, std::move(entry));
  }
  const PerfEventEntry& e = found->second;
  PerfEventEntry applied = e;
  const std::vector<std::string> terms = absl::StrSplit(modifiers, ':', absl::SkipEmpty());
  std::optional<uint64_t> offcore;  // perf's offcore_rsp= term, spelled "offcore_rsp0x…" by td
  for (const std::string& m : terms) {
    uint64_t value = 0;
    if (m.rfind("offcore_rsp", 0) == 0 && absl::SimpleHexAtoi(m.substr(11), &value)) {
      offcore = value;
    } else if (m.rfind("u0x", 0) == 0 && absl::SimpleHexAtoi(m.substr(3), &value)) {
      applied.umask = value;
    } else if (m[0] == 'c' && absl::SimpleAtoi(m.substr(1), &value)) {
      applied.cmask = value;
    } else if (m == "e") {
      applied.edge = true;
    } else if (m == "i") {
      applied.inv = true;
    } else if (m == "t") {
      applied.any = true;
    } else {
      return absl::UnimplementedError("event " + normalized + ": term \"" + m + "\" has no place in config");
    }
  }
  std::string name = e.name + (modifiers.empty() ? "" : ":" + modifiers);
  entry["name"] = name;
  std::vector<std::string> notes;
  if (offcore) {
    // The formula's own response value, not the event file's MSRValue: config1,
    // with the first of the event's codes (the kernel picks the MSR from it).
    entry["encoding"] = {{"config", absl::StrFormat("0x%x", RawConfigOf(applied))},
                         {"config1", absl::StrFormat("0x%x", *offcore)}};
    notes.push_back(absl::StrFormat("offcore response 0x%x in config1 (the formula's; the event file's is %s)", *offcore,
                                    e.msr.empty() ? "none" : e.msr));
  } else if (e.code_text.find(',') != std::string::npos || !e.msr.empty()) {
    notes.push_back("needs more than config (" + (e.msr.empty() ? "event codes " + e.code_text : e.msr) +
                    "): left to libpfm4");
  } else {
    uint64_t code = applied.code;
    uint64_t umask = applied.umask;
    if (code == 0 && (umask == 1 || umask == 2) && modifiers.empty()) {
      // Fixed-counter pseudo codes: td programs the general-purpose
      // encodings, which the kernel moves to the fixed counter.
      notes.push_back(absl::StrFormat("perf's fixed-counter pseudo code 0x%x; its general-purpose encoding", umask << 8));
      code = umask == 1 ? 0xc0 : 0x3c;
      umask = 0;
    }
    applied.code = code;
    applied.umask = umask;
    // Arm's events are their number, implementation-defined ones (0x8000 up) too.
    const uint64_t config = IsArm() ? applied.code : RawConfigOf(applied);
    entry["encoding"] = {{"config", absl::StrFormat("0x%x", config)}};
  }
  if (modifiers.empty()) {
    // The names td's own recordings use for the same counts.
    std::vector<std::string> aliases;
    if (base == "inst_retired.any") aliases.push_back("instructions");
    if (base == "cpu_clk_unhalted.thread" ||
        (base == "cpu_clk_unhalted.core" && !events_.count("cpu_clk_unhalted.thread"))) {
      aliases.push_back("cycles");
    }
    if (base == "cpu_clk_unhalted.ref_tsc") aliases.push_back("ref-cycles");
    if (!aliases.empty()) entry["aliases"] = aliases;
  }
  if (e.deprecated) notes.push_back("deprecated in perf's event list");
  if (known != nullptr) {
    // Declared under td's name so that it replaces td's encoding for this key.
    notes.push_back("td's table encodes " + known->name + " as " + known->config + " (another generation); this CPU's event file says " +
                    entry["encoding"]["config"].get<std::string>());
    name = known->name;
    entry["name"] = name;
  }
  if (!notes.empty()) entry["note"] = absl::StrJoin(notes, "; ");
  return Declare(normalized, name, std::move(entry));
}

std::optional<uint64_t> Importer::FileConfig(const std::string& normalized) const {
  const size_t colon = normalized.find(':');
  if (colon != std::string::npos) return std::nullopt;  // modifiers: td's name already says them
  auto found = events_.find(normalized);
  if (found == events_.end()) return std::nullopt;
  const PerfEventEntry& e = found->second;
  if (e.code_text.find(',') != std::string::npos || !e.msr.empty() || e.code == 0) return std::nullopt;
  return RawConfigOf(e);
}

bool Importer::EncodedOtherwise(const EventDefinition& known, const std::string& normalized) const {
  const std::optional<uint64_t> mine = known.RawConfig();
  const std::optional<uint64_t> file = FileConfig(normalized);
  // The user/kernel bits (16, 17) are the kernel's to set from exclude_*.
  constexpr uint64_t kPrivilege = 3ull << 16;
  return mine && file && (*mine & ~kPrivilege) != (*file & ~kPrivilege);
}

std::string Importer::Declare(const std::string& normalized, const std::string& formula_name, json entry) {
  declared_events_[normalized] = std::move(entry);
  formula_names_[normalized] = formula_name;
  event_keys_[formula_name] = normalized;
  return formula_name;
}

}  // namespace td::perf_import

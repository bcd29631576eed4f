#include "runtime/analysis/perf_case.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "runtime/base/json_fields.h"
#include "runtime/uarch/event_names.h"
#include "runtime/analysis/metric_evaluator.h"
#include "runtime/machine/machine_info.h"
#include "runtime/base/status_macros.h"

namespace td {

using nlohmann::json;

namespace {

std::string StringOrEmpty(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

constexpr char kRatePrefix[] = "Event_Rate_Per_Sec[";

// perf 5.10–6.2 Ice Lake+ formulas (F1) had no correction terms.
bool FamilyUsesCorrections(const std::string& family) { return family != "F1"; }

class GroupedCounts {
 public:
  GroupedCounts(const std::vector<PrintedCount>& counts, int group, std::string pmu)
      : counts_(counts), group_(group), pmu_(std::move(pmu)) {}

  std::optional<double> Find(const std::vector<std::string>& spellings, std::string* error) const {
    // Nearest copies first: the metric's group and pmu, its group, its pmu, anywhere.
    for (int level = 0; level < 4; ++level) {
      std::vector<std::pair<int, double>> found;  // (spelling rank, value)
      for (const PrintedCount& c : counts_) {
        if (!c.value) continue;
        const auto at = std::find(spellings.begin(), spellings.end(), c.event);
        if (at == spellings.end()) continue;
        const bool same_group = c.group == group_;
        const bool same_pmu = c.pmu == pmu_;
        const bool ok = level == 0 ? (same_group && same_pmu)
                        : level == 1 ? same_group
                        : level == 2 ? same_pmu
                                     : true;
        if (ok) found.emplace_back(static_cast<int>(at - spellings.begin()), *c.value);
      }
      if (found.empty()) continue;
      // Prefer the formula's own spelling over aliases.
      const int best = std::min_element(found.begin(), found.end())->first;
      std::set<double> values;
      for (const auto& [rank, value] : found) {
        if (rank == best) values.insert(value);
      }
      if (values.size() == 1) return *values.begin();
      *error = absl::StrFormat("%d different copies of %s%s; cannot tell which one the metric used",
                               values.size(), spellings[0],
                               level <= 1 ? absl::StrFormat(" in group %d", group_) : "");
      return std::nullopt;
    }
    return std::nullopt;
  }

 private:
  const std::vector<PrintedCount>& counts_;
  int group_;
  std::string pmu_;
};

// One evaluator per (group, pmu) a case's metrics read their counts from:
// metrics of the same group share their terms' values (a whole tree is
// evaluated once, not once per node), and each still gets its own notes.
class CaseEvaluators {
 public:
  CaseEvaluators(const PerfCase& c, const DefinitionLibrary& library) : case_(c), library_(library) {
    options_.use_optional_terms = FamilyUsesCorrections(c.formula_family);
    if (c.smt) options_.constants["SMT_on"] = *c.smt ? 1 : 0;
    if (c.cpu_revision) options_.constants["CPU_Revision"] = *c.cpu_revision;
    if (c.sockets) options_.constants["Sockets"] = *c.sockets;
    if (c.persistent_memory) options_.constants["Has_PMEM"] = *c.persistent_memory ? 1 : 0;
    // perf's #core_wide: counts of whole cores, as with SMT off or perf stat -a.
    if (c.core_wide || (c.smt && !*c.smt)) options_.constants["Core_Wide"] = (c.smt && !*c.smt) || c.core_wide.value_or(false);
  }

  // The evaluator for `wanted`'s counts and CPU, or null with *why_not said.
  MetricEvaluator* For(const WantedMetric& wanted, const MetricSet** set, std::string* why_not) {
    const std::string uarch = library_.UarchForPmu(case_.uarch, wanted.pmu);
    *set = library_.Find(uarch);
    if (*set == nullptr) {
      *why_not = std::string(library_.ForUarch(uarch).status().message());
      return nullptr;
    }
    std::unique_ptr<Entry>& entry = entries_[{wanted.group, wanted.pmu}];
    if (!entry) entry = std::make_unique<Entry>(case_, wanted, **set, options_);
    return &entry->evaluator;
  }

 private:
  struct Entry {
    Entry(const PerfCase& c, const WantedMetric& wanted, const MetricSet& set, const EvaluationOptions& options)
        : counts(c.counts, wanted.group, wanted.pmu),
          evaluator(set, [this](const std::vector<std::string>& s, std::string* e) { return counts.Find(s, e); },
                    options) {}
    GroupedCounts counts;
    MetricEvaluator evaluator;
  };
  const PerfCase& case_;
  const DefinitionLibrary& library_;
  EvaluationOptions options_;
  std::map<std::pair<int, std::string>, std::unique_ptr<Entry>> entries_;
};

MetricAnswer Answer(const WantedMetric& wanted, CaseEvaluators* evaluators) {
  MetricAnswer answer;
  answer.wanted = wanted;
  const MetricSet* set = nullptr;
  MetricEvaluator* found = evaluators->For(wanted, &set, &answer.why_not);
  if (found == nullptr) return answer;
  MetricEvaluator& evaluator = *found;
  const std::string uarch = set->uarch;

  std::string metric = wanted.metric;
  Value v;
  MetricEvaluator::Trail trail;
  if (metric.rfind(kRatePrefix, 0) == 0 && metric.back() == ']') {
    // perf's "/sec" column: the count over task-clock seconds.
    const std::string event = metric.substr(sizeof(kRatePrefix) - 1, metric.size() - sizeof(kRatePrefix));
    const Value count = evaluator.Evaluate(event, &trail);
    MetricEvaluator::Trail clock_trail;
    const Value task_clock_ms = evaluator.Evaluate("task-clock", &clock_trail);
    trail.notes.insert(trail.notes.end(), clock_trail.notes.begin(), clock_trail.notes.end());
    trail.errors.insert(trail.errors.end(), clock_trail.errors.begin(), clock_trail.errors.end());
    if (!count.measured) {
      v = count;
    } else if (!task_clock_ms.measured) {
      v = task_clock_ms;
    } else {
      v = Value::Of(task_clock_ms.number == 0 ? 0 : count.number / (task_clock_ms.number / 1000));
    }
  } else if (set->FindNode(metric) == nullptr) {
    answer.why_not = absl::StrFormat("no node \"%s\" for %s", metric, uarch);
    return answer;
  } else {
    v = evaluator.Evaluate(metric, &trail);
  }
  answer.notes = std::move(trail.notes);
  if (!trail.errors.empty()) {
    answer.why_not = trail.errors.front();
    return answer;
  }
  if (!v.measured) {
    answer.why_not = v.missing + " was not measured";
    return answer;
  }
  answer.value = v.number;
  return answer;
}

}  // namespace

namespace {

// j[key] as an int when present (else `fallback`); errors read "case: WHERE.KEY: …".
absl::Status OptionalInt(const json& j, const char* key, int fallback, const std::string& where, int* out) {
  absl::Status status = json_fields::GetOptionalInteger(j, key, fallback, out, where);
  if (status.ok()) return status;
  return absl::InvalidArgumentError("case: " + std::string(status.message()));
}

absl::StatusOr<PerfCase> DecodePerfCase(const json& j) {
  if (!j.is_object()) return absl::InvalidArgumentError("case: not a JSON object");
  PerfCase c;
  c.id = StringOrEmpty(j, "id");
  c.uarch = StringOrEmpty(j, "uarch");
  c.cpuid = StringOrEmpty(j, "cpuid");
  c.formula_family = StringOrEmpty(j, "formula_family");
  if (j.contains("smt") && j["smt"].is_boolean()) c.smt = j["smt"].get<bool>();
  if (const std::string scope = StringOrEmpty(j, "scope"); scope == "system-wide" || scope == "per-thread") {
    c.core_wide = scope == "system-wide";
  }
  if (c.uarch.empty() && c.cpuid.empty()) {
    return absl::InvalidArgumentError("case: missing \"uarch\" (a key of td uarchs) or \"cpuid\"");
  }
  if (j.contains("persistent_memory")) {
    if (!j["persistent_memory"].is_boolean()) return absl::InvalidArgumentError("case: persistent_memory is not true or false");
    c.persistent_memory = j["persistent_memory"].get<bool>();
  }
  if (j.contains("sockets")) {
    int sockets = 0;
    TD_RETURN_IF_ERROR(OptionalInt(j, "sockets", 0, "case", &sockets));
    if (sockets < 1) return absl::InvalidArgumentError(absl::StrFormat("case: sockets = %d is not 1 or more", sockets));
    c.sockets = sockets;
  }
  if (j.contains("cpu_revision")) {
    int revision = -1;
    TD_RETURN_IF_ERROR(OptionalInt(j, "cpu_revision", -1, "case", &revision));
    if (revision < 0 || revision > 255) {
      return absl::InvalidArgumentError(absl::StrFormat("case: cpu_revision = %d is not from 0 to 255", revision));
    }
    c.cpu_revision = revision;
  } else if (const auto midr = j.find("midr"); midr != j.end()) {
    const int revision = midr->is_string() ? CpuRevisionFromMidr(midr->get<std::string>()) : -1;
    if (revision < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("case: midr = %s is not a MIDR in hex (\"0x410fd493\")", json_fields::Shown(*midr)));
    }
    c.cpu_revision = revision;
  } else if (const int revision = CpuRevisionFromMidr(c.cpuid); revision >= 0) {
    c.cpu_revision = revision;  // an Arm cpuid is the MIDR: it carries the revision too
  }
  if (!j.contains("counts") || !j["counts"].is_array()) {
    return absl::InvalidArgumentError("case: missing \"counts\" list");
  }
  for (size_t i = 0; i < j["counts"].size(); ++i) {
    const json& x = j["counts"][i];
    const std::string w = absl::StrFormat("counts[%d]", i);
    if (!x.is_object()) {
      return absl::InvalidArgumentError(absl::StrFormat("case: %s: expected an object, got %s", w, x.type_name()));
    }
    PrintedCount count;
    count.printed = StringOrEmpty(x, "event");
    if (count.printed.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat("case: counts[%d] has no \"event\"", i));
    }
    count.event = NormalizeEventName(count.printed);
    if (x.contains("value") && x["value"].is_number() && std::isfinite(x["value"].get<double>())) {
      count.value = x["value"].get<double>();
    }
    absl::Status group = OptionalInt(x, "group", 0, w, &count.group);
    if (!group.ok()) return group;
    count.pmu = StringOrEmpty(x, "pmu");
    c.counts.push_back(std::move(count));
  }
  static const json kNone = json::array();
  const auto expected_it = j.find("expected");
  const json& expected = expected_it == j.end() ? kNone : *expected_it;
  if (!expected.is_array()) {
    return absl::InvalidArgumentError(absl::StrFormat("case: \"expected\": expected a list, got %s %s",
                                                      expected.type_name(), json_fields::Shown(expected)));
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const json& e = expected[i];
    const std::string w = absl::StrFormat("expected[%d]", i);
    if (!e.is_object()) {
      return absl::InvalidArgumentError(absl::StrFormat("case: %s: expected an object, got %s %s", w,
                                                        e.type_name(), json_fields::Shown(e)));
    }
    WantedMetric wanted;
    wanted.metric = StringOrEmpty(e, "metric");
    absl::Status group = OptionalInt(e, "group", 0, w, &wanted.group);
    if (!group.ok()) return group;
    wanted.pmu = StringOrEmpty(e, "pmu");
    if (e.contains("value") && e["value"].is_number() && std::isfinite(e["value"].get<double>())) {
      wanted.expected = e["value"].get<double>();
    }
    if (const auto it = e.find("abs_tolerance"); it != e.end()) {
      if (!it->is_number() || !std::isfinite(it->get<double>())) {
        return absl::InvalidArgumentError(absl::StrFormat("case: %s.abs_tolerance = %s is not a number", w,
                                                          json_fields::Shown(*it)));
      }
      wanted.tolerance = it->get<double>();
    }
    if (const auto it = e.find("reproduced_by_reference_formula"); it != e.end()) {
      if (!it->is_boolean()) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "case: %s.reproduced_by_reference_formula = %s is not true or false", w, json_fields::Shown(*it)));
      }
      wanted.reproducible = it->get<bool>();
    }
    c.wanted.push_back(std::move(wanted));
  }
  return c;
}

}  // namespace

absl::StatusOr<PerfCase> ParsePerfCase(const json& j) {
  // The checks come first; this only keeps a case they missed from escaping
  // as an exception.
  try {
    return DecodePerfCase(j);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrFormat("case: cannot be read: %s", e.what()));
  }
}

absl::StatusOr<std::string> CaseUarch(const PerfCase& c, const DefinitionLibrary& library) {
  if (!c.uarch.empty()) return c.uarch;
  absl::StatusOr<std::string> key = library.IdentifyCpuid(c.cpuid);
  if (!key.ok()) return absl::Status(key.status().code(), "case: " + std::string(key.status().message()));
  // A hybrid part's whole-part key: counts that name no core PMU are the
  // performance cores' (perf's default PMU there).
  const bool per_pmu = std::any_of(c.counts.begin(), c.counts.end(), [](const PrintedCount& count) {
    return !count.pmu.empty() && count.pmu != "software";
  });
  if (library.Find(*key) == nullptr && !per_pmu) return library.UarchForPmu(*key, "cpu_core");
  return key;
}

absl::StatusOr<std::vector<MetricAnswer>> Recompute(const PerfCase& given,
                                                    const DefinitionLibrary& library) {
  PerfCase c = given;
  TD_ASSIGN_OR_RETURN(c.uarch, CaseUarch(given, library));
  std::vector<WantedMetric> wanted = c.wanted;
  if (wanted.empty()) {
    // No list given: every node of every pmu present, from all counts.
    std::set<std::string> pmus;
    for (const auto& count : c.counts) {
      if (count.pmu != "software" && count.pmu != "") pmus.insert(count.pmu);
    }
    if (pmus.empty()) pmus.insert("");
    for (const std::string& pmu : pmus) {
      const std::string uarch = library.UarchForPmu(c.uarch, pmu);
      const MetricSet* set = library.Find(uarch);
      if (set == nullptr) return library.ForUarch(uarch).status();
      for (const auto& node : set->nodes) {
        WantedMetric w;
        w.metric = node.name;
        w.group = -1;  // no group of its own: a single copy anywhere
        w.pmu = pmu;
        wanted.push_back(w);
      }
    }
  }
  std::vector<MetricAnswer> answers;
  CaseEvaluators evaluators(c, library);
  for (const WantedMetric& w : wanted) answers.push_back(Answer(w, &evaluators));
  return answers;
}

namespace {

// A term of an event that perf printed with its commas ("umask=0x80",
// "cmask=1", "edge"): -x, does not quote the event, so these arrive as
// fields of their own. The fields after the event (run time, share) are
// numbers or empty and never match.
bool IsEventTerm(const std::string& field) {
  if (field.empty() || !std::isalpha(static_cast<unsigned char>(field[0]))) return false;
  const size_t eq = field.find('=');
  for (size_t i = 0; i < (eq == std::string::npos ? field.size() : eq); ++i) {
    const char c = field[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  if (eq != std::string::npos) return eq + 1 < field.size() && field.find_first_of(" ,") == std::string::npos;
  static const char* kBareTerms[] = {"edge", "inv", "any", "in_tx", "in_tx_cp"};
  for (const char* t : kBareTerms) {
    if (field == t) return true;
  }
  return false;
}

}  // namespace

std::string PerfCsvEventField(std::vector<std::string>& fields) {
  if (fields.size() < 3) return "";
  std::string event = fields[2];
  size_t last = 2;
  // "cpu/EVENT,umask=0x80/": up to the field that closes the slash.
  const bool open_slash = std::count(event.begin(), event.end(), '/') == 1;
  while (last + 1 < fields.size() &&
         (open_slash ? std::count(event.begin(), event.end(), '/') < 2 : IsEventTerm(fields[last + 1]))) {
    event += "," + fields[++last];
  }
  fields.erase(fields.begin() + 3, fields.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  fields[2] = event;
  return event;
}

absl::StatusOr<PerfCase> ParsePerfStatCsv(const std::string& text, const std::string& uarch) {
  PerfCase c;
  c.id = "perf-stat-csv";
  c.uarch = uarch;
  c.formula_family = "";
  std::istringstream lines(text);
  std::string line;
  int line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields = absl::StrSplit(line, ',');
    if (fields.size() < 3) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "perf stat CSV line %d: expected value,unit,event,…; got \"%s\"", line_number, line));
    }
    PrintedCount count;
    count.printed = PerfCsvEventField(fields);
    count.event = NormalizeEventName(count.printed);
    std::string pmu;
    if (const size_t slash = count.printed.find('/'); slash != std::string::npos) {
      pmu = count.printed.substr(0, slash);
    }
    // msr/tsc/ and the like are no core PMU: their counts serve every core type's metrics.
    if (pmu == "msr" || pmu == "power" || pmu == "tool") pmu.clear();
    count.pmu = pmu;
    double value = 0;
    if (absl::SimpleAtod(fields[0], &value)) {  // "<not counted>" stays empty
      // perf's duration_time is in ns; the formulas read it as seconds, as perf's metrics do.
      if (count.event == "duration_time" && fields[1] == "ns") value *= 1e-9;
      count.value = value;
    }
    // perf's CSV does not say which events were grouped: all are read as one
    // group, so each metric takes the single copy of every event it needs.
    count.group = 0;
    c.counts.push_back(std::move(count));
  }
  if (c.counts.empty()) return absl::InvalidArgumentError("perf stat CSV: no counts found");
  return c;
}

}  // namespace td

// Reading a recorded run back: every field's type and range, and the
// cross-references between regions, threads and groups (docs/json-schema.md,
// "What the reader checks"). One error line per bad file, never an exception.
#include "runtime/recorded/run_file.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "runtime/base/json_fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_file.h"

namespace td {

using nlohmann::json;

namespace {

using json_fields::Get;
using json_fields::GetArray;
using json_fields::GetInRange;
using json_fields::GetObject;
using json_fields::GetOptionalNumber;
using json_fields::Invalid;
using json_fields::Shown;
using json_fields::ToInteger;
using json_fields::TypeError;

// A byte string written with Text(): its exact bytes back.
absl::Status GetBytes(const json& j, const char* key, std::string* out, const std::string& where) {
  TD_RETURN_IF_ERROR(Get(j, key, out, where));
  *out = UnescapeBytes(*out);
  return absl::OkStatus();
}

absl::Status GetBytesList(const json& j, const char* key, std::vector<std::string>* out, const std::string& where) {
  TD_RETURN_IF_ERROR(Get(j, key, out, where));
  for (std::string& s : *out) s = UnescapeBytes(s);
  return absl::OkStatus();
}

// An optional byte string; `fallback` (already bytes) when absent or not a string.
std::string OptionalBytes(const json& j, const char* key, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? UnescapeBytes(it->get<std::string>()) : fallback;
}

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

absl::Status ReadMachine(const json& j, MachineInfo* m) {
  const std::string w = "machine";
  TD_RETURN_IF_ERROR(GetBytes(j, "hostname", &m->hostname, w));
  TD_RETURN_IF_ERROR(GetBytes(j, "kernel", &m->kernel, w));
  TD_RETURN_IF_ERROR(GetBytes(j, "architecture", &m->architecture, w));
  TD_RETURN_IF_ERROR(Get(j, "logical_cpus", &m->logical_cpus, w));
  TD_RETURN_IF_ERROR(Get(j, "perf_event_paranoid", &m->perf_event_paranoid, w));
  TD_RETURN_IF_ERROR(Get(j, "nmi_watchdog", &m->nmi_watchdog, w));
  m->smt_active = -1;  // optional: files from before it existed
  if (const auto it = j.find("smt_active"); it != j.end()) {
    TD_RETURN_IF_ERROR(ToInteger(*it, "machine.smt_active", &m->smt_active));
  }
  m->sockets = -1;  // optional: files from before it existed
  if (const auto it = j.find("sockets"); it != j.end()) {
    TD_RETURN_IF_ERROR(ToInteger(*it, "machine.sockets", &m->sockets, -1, 1 << 16));
  }
  m->persistent_memory = -1;  // optional: files from before it existed
  if (const auto it = j.find("persistent_memory"); it != j.end()) {
    TD_RETURN_IF_ERROR(ToInteger(*it, "machine.persistent_memory", &m->persistent_memory, -1, 1));
  }
  const json* cpu = nullptr;
  TD_RETURN_IF_ERROR(GetObject(j, "cpu", &cpu, w));
  TD_RETURN_IF_ERROR(GetBytes(*cpu, "vendor", &m->cpu_vendor, "machine.cpu"));
  TD_RETURN_IF_ERROR(GetBytes(*cpu, "model_name", &m->cpu_model_name, "machine.cpu"));
  TD_RETURN_IF_ERROR(Get(*cpu, "family", &m->cpu_family, "machine.cpu"));
  TD_RETURN_IF_ERROR(Get(*cpu, "model", &m->cpu_model, "machine.cpu"));
  TD_RETURN_IF_ERROR(Get(*cpu, "stepping", &m->cpu_stepping, "machine.cpu"));
  m->cpu_revision = -1;  // optional: files from before it existed
  if (const auto it = cpu->find("revision"); it != cpu->end()) {
    TD_RETURN_IF_ERROR(ToInteger(*it, "machine.cpu.revision", &m->cpu_revision, -1, 255));
  }
  return absl::OkStatus();
}

absl::Status ReadLayout(const json& j, CounterLayout* layout) {
  const json* events = nullptr;
  const json* groups = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, "events", &events, "run"));
  TD_RETURN_IF_ERROR(GetArray(j, "groups", &groups, "run"));
  std::vector<std::vector<EventInfo>> by_group(groups->size());
  for (size_t i = 0; i < events->size(); ++i) {
    const std::string w = absl::StrFormat("events[%d]", i);
    const json& event = (*events)[i];
    if (!event.is_object()) return Invalid(TypeError(w, "an object", event));
    EventInfo e;
    size_t group = 0;
    TD_RETURN_IF_ERROR(GetBytes(event, "name", &e.name, w));
    TD_RETURN_IF_ERROR(GetBytes(event, "unit", &e.unit, w));
    TD_RETURN_IF_ERROR(Get(event, "perf_type", &e.perf_type, w));
    TD_RETURN_IF_ERROR(Get(event, "perf_config", &e.perf_config, w));
    TD_RETURN_IF_ERROR(Get(event, "hardware", &e.hardware, w));
    TD_RETURN_IF_ERROR(Get(event, "group", &group, w));
    // Added after schema 1's first files: optional.
    if (const auto it = event.find("perf_config1"); it != event.end()) {
      TD_RETURN_IF_ERROR(ToInteger(*it, w + ".perf_config1", &e.perf_config1));
    }
    e.pmu = OptionalBytes(event, "pmu", e.pmu);
    e.core_type = OptionalBytes(event, "core_type", "");
    if (const auto it = event.find("cpu"); it != event.end()) {
      TD_RETURN_IF_ERROR(ToInteger(*it, w + ".cpu", &e.cpu, -1, std::numeric_limits<int>::max()));
    }
    if (const auto it = event.find("bytes_per_count"); it != event.end()) {
      if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0) {
        return Invalid(absl::StrFormat("%s.bytes_per_count = %s is not a positive finite number", w, Shown(*it)));
      }
      e.bytes_per_count = it->get<double>();
      e.traffic = OptionalBytes(event, "traffic", "total");
    }
    if (group >= by_group.size()) {
      return Invalid(absl::StrFormat("%s.group = %d is not a group index (there are %d groups)", w, group,
                                     by_group.size()));
    }
    by_group[group].push_back(std::move(e));
  }
  for (size_t g = 0; g < by_group.size(); ++g) {
    if (by_group[g].empty()) return Invalid(absl::StrFormat("groups[%d]: no event names it as its group", g));
  }
  for (auto& group : by_group) layout->AddGroup(std::move(group));
  return absl::OkStatus();
}

// Schema 1: "counters" an object keyed by event name, each {"inclusive",
// "exclusive"}; "groups" a list of {"time_enabled_ns", "time_running_ns"}.
absl::Status ReadKeyedCounts(const json& j, const CounterLayout& layout, const std::string& w, RegionOnThread* t) {
  const auto counters_it = j.find("counters");
  if (counters_it == j.end() || counters_it->is_null()) return absl::OkStatus();
  const json& counters = *counters_it;
  if (!counters.is_object()) return Invalid(TypeError(w + ".counters", "an object or null", counters));
  for (size_t index = 0; index < layout.events.size(); ++index) {
    const std::string key = EscapeBytes(CounterKey(layout, index));
    const json* delta = nullptr;
    TD_RETURN_IF_ERROR(GetObject(counters, key.c_str(), &delta, w + ".counters"));
    EventDelta d;
    TD_RETURN_IF_ERROR(Get(*delta, "inclusive", &d.inclusive, w + ".counters." + key));
    TD_RETURN_IF_ERROR(Get(*delta, "exclusive", &d.exclusive, w + ".counters." + key));
    t->events.push_back(d);
  }
  const json* groups = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, "groups", &groups, w));
  if (groups->size() != layout.groups.size()) {
    return Invalid(absl::StrFormat("%s.groups has %d entries; the run has %d groups", w, groups->size(),
                                   layout.groups.size()));
  }
  for (size_t g = 0; g < groups->size(); ++g) {
    GroupTimes times;
    const std::string gw = absl::StrFormat("%s.groups[%d]", w, g);
    TD_RETURN_IF_ERROR(Get((*groups)[g], "time_enabled_ns", &times.enabled_ns, gw));
    TD_RETURN_IF_ERROR(Get((*groups)[g], "time_running_ns", &times.running_ns, gw));
    t->groups.push_back(times);
  }
  return absl::OkStatus();
}

// A list, or null or absent (*out = nullptr).
absl::Status GetArrayOrNull(const json& j, const char* key, const json** out, const std::string& where) {
  *out = nullptr;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return absl::OkStatus();
  if (!it->is_array()) return Invalid(TypeError(where + "." + key, "a list or null", *it));
  *out = &*it;
  return absl::OkStatus();
}

// "mpi": [ns, calls, bytes] (libtd-mpi's MPI time in the region); optional:
// files without it, older ones included, read as no MPI call.
absl::Status ReadMpiTime(const json& j, const std::string& w, MpiTime* out) {
  const auto it = j.find("mpi");
  if (it == j.end()) return absl::OkStatus();
  if (!it->is_array() || it->size() != 3) return Invalid(TypeError(w + ".mpi", "a list [ns, calls, bytes]", *it));
  TD_RETURN_IF_ERROR(ToInteger<int64_t>((*it)[0], w + ".mpi[0]", &out->ns, 0, kInt64Max));
  TD_RETURN_IF_ERROR(ToInteger((*it)[1], w + ".mpi[1]", &out->calls));
  return ToInteger((*it)[2], w + ".mpi[2]", &out->bytes);
}

// "call_times": [[bucket, calls, ns], ...] (call_times.h); optional: left
// out where the part had one read call, and in files from before it.
absl::Status ReadCallTimes(const json& j, const std::string& w, CallTimeCounts* out) {
  const auto it = j.find("call_times");
  if (it == j.end()) return absl::OkStatus();
  const std::string where = w + ".call_times";
  if (!it->is_array()) return Invalid(TypeError(where, "a list of [bucket, calls, ns]", *it));
  for (const json& entry : *it) {
    if (!entry.is_array() || entry.size() != 3) return Invalid(TypeError(where + "[]", "a list [bucket, calls, ns]", entry));
    CallTimeBucketTotal bucket;
    TD_RETURN_IF_ERROR(ToInteger<uint32_t>(entry[0], where + "[][0]", &bucket.bucket, 0, kCallTimeBuckets - 1));
    TD_RETURN_IF_ERROR(ToInteger(entry[1], where + "[][1]", &bucket.calls));
    TD_RETURN_IF_ERROR(ToInteger<int64_t>(entry[2], where + "[][2]", &bucket.ns, 0, kInt64Max));
    out->push_back(bucket);
  }
  if (!CallTimeCountsValid(*out)) {
    return Invalid(where + ": buckets must be ascending, each with at least one call");
  }
  return absl::OkStatus();
}

// Schema 2: "inclusive" and "exclusive" lists of counts in the order of the
// run's events, "groups" a list of [time_enabled_ns, time_running_ns]; all
// three null where the thread was not measured.
absl::Status ReadThreadPart(const json& j, const CounterLayout& layout, size_t num_threads, int schema_version,
                            const std::string& w, RegionOnThread* t) {
  if (!j.is_object()) return Invalid(TypeError(w, "an object", j));
  TD_RETURN_IF_ERROR(Get(j, "thread", &t->thread, w));
  if (t->thread >= num_threads) {
    return Invalid(absl::StrFormat("%s.thread = %d is not a thread index (there are %d threads)", w, t->thread,
                                   num_threads));
  }
  TD_RETURN_IF_ERROR(Get(j, "calls", &t->calls, w));
  for (const auto& [key, count] : {std::pair{"recursive_calls", &t->recursive_calls},
                                   std::pair{"unterminated", &t->unterminated},
                                   std::pair{"closed_implicitly", &t->closed_implicitly}}) {
    // Left out when 0 since kZeroCountsOmittedSince; always there before.
    if (schema_version >= kZeroCountsOmittedSince && !j.contains(key)) continue;
    TD_RETURN_IF_ERROR(Get(j, key, count, w));
  }
  TD_RETURN_IF_ERROR(GetInRange<int64_t>(j, "wall_inclusive_ns", &t->wall_inclusive_ns, w, 0, kInt64Max));
  TD_RETURN_IF_ERROR(GetInRange<int64_t>(j, "wall_exclusive_ns", &t->wall_exclusive_ns, w, 0, kInt64Max));
  TD_RETURN_IF_ERROR(ReadMpiTime(j, w, &t->mpi));
  TD_RETURN_IF_ERROR(ReadCallTimes(j, w, &t->call_times));
  if (schema_version == 1) return ReadKeyedCounts(j, layout, w, t);
  const json* inclusive = nullptr;
  TD_RETURN_IF_ERROR(GetArrayOrNull(j, "inclusive", &inclusive, w));
  const json* exclusive = nullptr;
  TD_RETURN_IF_ERROR(GetArrayOrNull(j, "exclusive", &exclusive, w));
  const json* groups = nullptr;
  TD_RETURN_IF_ERROR(GetArrayOrNull(j, "groups", &groups, w));
  if (inclusive == nullptr && exclusive == nullptr && groups == nullptr) return absl::OkStatus();  // not measured
  if (inclusive == nullptr || exclusive == nullptr || groups == nullptr) {
    return Invalid(w + ": \"inclusive\", \"exclusive\" and \"groups\" are all lists or all null");
  }
  for (const auto& [list, name] : {std::pair{inclusive, "inclusive"}, std::pair{exclusive, "exclusive"}}) {
    if (list->size() != layout.events.size()) {
      return Invalid(absl::StrFormat("%s.%s has %d counts; the run has %d events", w, name, list->size(),
                                     layout.events.size()));
    }
  }
  t->events.resize(layout.events.size());
  for (size_t e = 0; e < layout.events.size(); ++e) {
    TD_RETURN_IF_ERROR(ToInteger((*inclusive)[e], absl::StrFormat("%s.inclusive[%d]", w, e), &t->events[e].inclusive));
    TD_RETURN_IF_ERROR(ToInteger((*exclusive)[e], absl::StrFormat("%s.exclusive[%d]", w, e), &t->events[e].exclusive));
  }
  if (groups->size() != layout.groups.size()) {
    return Invalid(absl::StrFormat("%s.groups has %d entries; the run has %d groups", w, groups->size(),
                                   layout.groups.size()));
  }
  for (size_t g = 0; g < groups->size(); ++g) {
    const json& pair = (*groups)[g];
    const std::string gw = absl::StrFormat("%s.groups[%d]", w, g);
    if (!pair.is_array() || pair.size() != 2) return Invalid(TypeError(gw, "[time_enabled_ns, time_running_ns]", pair));
    GroupTimes times;
    TD_RETURN_IF_ERROR(ToInteger(pair[0], gw + "[0]", &times.enabled_ns));
    TD_RETURN_IF_ERROR(ToInteger(pair[1], gw + "[1]", &times.running_ns));
    t->groups.push_back(times);
  }
  return absl::OkStatus();
}

Severity SeverityFromName(const std::string& name) {
  if (name == "error") return Severity::kError;
  if (name == "warning") return Severity::kWarning;
  return Severity::kNotice;
}

// One region's own fields; cross-references are checked by CheckRegionTree.
absl::Status ReadRegion(const json& j, size_t r, size_t num_regions, const RunData& data, Region* region) {
  const std::string w = absl::StrFormat("regions[%d]", r);
  if (!j.is_object()) return Invalid(TypeError(w, "an object", j));
  if (const auto it = j.find("index"); it != j.end()) {
    size_t index = 0;
    TD_RETURN_IF_ERROR(ToInteger(*it, w + ".index", &index));
    if (index != r) return Invalid(absl::StrFormat("%s.index = %d; it is region %d", w, index, r));
  }
  TD_RETURN_IF_ERROR(GetBytes(j, "name", &region->name, w));
  // Optional: recordings from before parameters existed have neither.
  region->base_name = OptionalBytes(j, "base_name", region->name);
  if (const auto it = j.find("parameter"); it != j.end() && !it->is_null()) {
    long long parameter = 0;
    TD_RETURN_IF_ERROR(ToInteger(*it, w + ".parameter", &parameter));
    region->parameter = parameter;
  }
  TD_RETURN_IF_ERROR(Get(j, "path", &region->path, w));
  if (j.contains("sample_every")) {  // optional: td_region_sample's interval where the region had one
    TD_RETURN_IF_ERROR(GetInRange<uint32_t>(j, "sample_every", &region->sample_every, w, 1, uint32_t{1} << 20));
  }
  TD_RETURN_IF_ERROR(GetInRange(j, "parent", &region->parent, w, -1, std::numeric_limits<int>::max()));
  const json* children = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, "children", &children, w));
  for (size_t c = 0; c < children->size(); ++c) {
    const std::string cw = absl::StrFormat("%s.children[%d]", w, c);
    const json& child = (*children)[c];
    if (!child.is_number()) return Invalid(TypeError(cw, "a region index", child));
    int index = -1;
    if (!ToInteger(child, cw, &index).ok() || index < 0 || static_cast<size_t>(index) >= num_regions) {
      return Invalid(absl::StrFormat("%s = %s is not a region index", cw, Shown(child)));
    }
    region->children.push_back(index);
  }
  const json* parts = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, "threads", &parts, w));
  std::vector<bool> seen(data.threads.size(), false);
  for (size_t t = 0; t < parts->size(); ++t) {
    RegionOnThread part;
    const std::string tw = absl::StrFormat("%s.threads[%d]", w, t);
    TD_RETURN_IF_ERROR(ReadThreadPart((*parts)[t], data.layout, data.threads.size(), data.schema_version, tw, &part));
    if (seen[part.thread]) return Invalid(absl::StrFormat("%s.thread = %d is listed twice", tw, part.thread));
    seen[part.thread] = true;
    region->threads.push_back(std::move(part));
  }
  return absl::OkStatus();
}

}  // namespace

// Parents come before their children (so the tree has no cycles), each
// child's parent lists it exactly once and every child lists its parent,
// and paths extend their parent's by one component: the reports walk the
// tree by these indices and merging matches regions by path.
absl::Status CheckRegionTree(const std::vector<Region>& regions) {
  std::vector<size_t> listed_by(regions.size(), SIZE_MAX);
  absl::flat_hash_map<std::string_view, size_t> by_path;
  for (size_t r = 0; r < regions.size(); ++r) {
    const Region& region = regions[r];
    // The names in the messages, made only for an error (a large job's files have many regions).
    const auto w = [r] { return absl::StrFormat("regions[%d]", r); };
    if (region.parent >= static_cast<int>(r)) {
      return Invalid(absl::StrFormat(
          "%s.parent = %d is not an earlier region (parents come before their children)", w(), region.parent));
    }
    for (size_t c = 0; c < region.children.size(); ++c) {
      const size_t child = static_cast<size_t>(region.children[c]);
      const auto cw = [&] { return absl::StrFormat("%s.children[%d] = %d", w(), c, child); };
      if (child >= regions.size()) return Invalid(cw() + " is not a region index");
      if (regions[child].parent != static_cast<int>(r)) {
        return Invalid(absl::StrFormat("%s, but regions[%d].parent is %d", cw(), child, regions[child].parent));
      }
      if (listed_by[child] != SIZE_MAX) return Invalid(cw() + " is listed twice");
      listed_by[child] = r;
    }
    if (region.parent >= 0 && listed_by[r] != static_cast<size_t>(region.parent)) {
      return Invalid(absl::StrFormat("%s.parent = %d, but regions[%d].children does not list %d", w(),
                                     region.parent, region.parent, r));
    }
    const std::string prefix = region.parent >= 0 ? regions[region.parent].path + "/" : "";
    if (region.path.compare(0, prefix.size(), prefix) != 0 ||
        region.path.find('/', prefix.size()) != std::string::npos) {
      return Invalid(absl::StrFormat("%s.path = \"%s\" is not %s", w(), absl::CHexEscape(region.path),
                                     region.parent >= 0 ? "its parent's path and one more name" : "one name"));
    }
    if (!by_path.emplace(region.path, r).second) {
      return Invalid(absl::StrFormat("%s.path = \"%s\" is also regions[%d]'s", w(), absl::CHexEscape(region.path),
                                     by_path[region.path]));
    }
  }
  return absl::OkStatus();
}

namespace {

// A cost is a finite number ≥ 0: one per event, or none (not measured).
absl::Status GetCosts(const json& j, const char* key, size_t num_events, std::vector<double>* out) {
  const json* list = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, key, &list, "marker_cost"));
  if (!list->empty() && list->size() != num_events) {
    return Invalid(absl::StrFormat("marker_cost.%s has %d values; the run has %d events", key, list->size(),
                                   num_events));
  }
  for (size_t e = 0; e < list->size(); ++e) {
    const json& v = (*list)[e];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      return Invalid(TypeError(absl::StrFormat("marker_cost.%s[%d]", key, e), "a finite number >= 0", v));
    }
    out->push_back(v.get<double>());
  }
  return absl::OkStatus();
}

absl::StatusOr<MarkerCost> ReadMarkerCost(const json& j, size_t num_events) {
  if (!j.is_object()) return Invalid(TypeError("marker_cost", "an object or null", j));
  MarkerCost cost;
  TD_RETURN_IF_ERROR(Get(j, "pairs", &cost.pairs, "marker_cost"));
  for (const auto& [key, value] : {std::pair{"inside_wall_ns", &cost.inside_wall_ns},
                                   std::pair{"around_wall_ns", &cost.around_wall_ns}}) {
    TD_RETURN_IF_ERROR(GetOptionalNumber(j, key, 0, value, "marker_cost"));
    if (*value < 0) return Invalid(absl::StrFormat("marker_cost.%s = %g is negative", key, *value));
  }
  TD_RETURN_IF_ERROR(GetCosts(j, "inside", num_events, &cost.inside));
  TD_RETURN_IF_ERROR(GetCosts(j, "around", num_events, &cost.around));
  if (cost.inside.size() != cost.around.size()) return Invalid("marker_cost: inside and around differ in length");
  return cost;
}

absl::StatusOr<RunData> DecodeRun(const json& j) {
  RunData data;
  if (!j.is_object()) return Invalid("run: not a JSON object");
  TD_RETURN_IF_ERROR(Get(j, "schema_version", &data.schema_version, "run"));
  if (data.schema_version < kOldestSchemaVersion || data.schema_version > kSchemaVersion) {
    return Invalid(absl::StrFormat("run: schema_version %d is not supported (this td reads %d to %d)",
                                   data.schema_version, kOldestSchemaVersion, kSchemaVersion));
  }
  TD_RETURN_IF_ERROR(GetBytes(j, "td_version", &data.td_version, "run"));
  const json* program = nullptr;
  TD_RETURN_IF_ERROR(GetObject(j, "program", &program, "run"));
  TD_RETURN_IF_ERROR(GetBytes(*program, "name", &data.program.name, "program"));
  TD_RETURN_IF_ERROR(Get(*program, "pid", &data.program.pid, "program"));
  TD_RETURN_IF_ERROR(GetBytesList(*program, "argv", &data.program.argv, "program"));
  TD_RETURN_IF_ERROR(Get(*program, "start_unix_ns", &data.program.start_unix_ns, "program"));
  TD_RETURN_IF_ERROR(Get(*program, "end_unix_ns", &data.program.end_unix_ns, "program"));
  if (const auto it = j.find("mpi"); it != j.end()) {
    const json* mpi = nullptr;
    TD_RETURN_IF_ERROR(GetObject(j, "mpi", &mpi, "run"));
    TD_ASSIGN_OR_RETURN(data.mpi, MpiRankFromJson(*mpi));
  }
  if (const auto it = j.find("partial"); it != j.end()) {
    const json* partial = nullptr;
    TD_RETURN_IF_ERROR(GetObject(j, "partial", &partial, "run"));
    PartialFlush flush;
    TD_RETURN_IF_ERROR(Get(*partial, "flushed_unix_ns", &flush.flushed_unix_ns, "partial"));
    flush.reason = OptionalBytes(*partial, "reason", "");
    data.partial = flush;
  }
  if (const auto it = j.find("mpi_outside_regions"); it != j.end()) {
    const json* outside = nullptr;
    TD_RETURN_IF_ERROR(GetObject(j, "mpi_outside_regions", &outside, "run"));
    MpiTime m;
    TD_RETURN_IF_ERROR(GetInRange<int64_t>(*outside, "ns", &m.ns, "mpi_outside_regions", 0, kInt64Max));
    TD_RETURN_IF_ERROR(Get(*outside, "calls", &m.calls, "mpi_outside_regions"));
    TD_RETURN_IF_ERROR(Get(*outside, "bytes", &m.bytes, "mpi_outside_regions"));
    data.mpi_outside_regions = m;
  }
  const json* machine = nullptr;
  TD_RETURN_IF_ERROR(GetObject(j, "machine", &machine, "run"));
  TD_RETURN_IF_ERROR(ReadMachine(*machine, &data.machine));
  const json* backend = nullptr;
  TD_RETURN_IF_ERROR(GetObject(j, "backend", &backend, "run"));
  TD_RETURN_IF_ERROR(GetBytes(*backend, "name", &data.backend, "backend"));
  TD_RETURN_IF_ERROR(GetBytes(*backend, "measured", &data.availability.measured, "backend"));
  data.availability.memory = OptionalBytes(*backend, "memory", "");
  data.marker_clock = OptionalBytes(*backend, "marker_clock", "");
  const json* sw = nullptr;
  const json* hw = nullptr;
  TD_RETURN_IF_ERROR(GetObject(*backend, "software_counters", &sw, "backend"));
  TD_RETURN_IF_ERROR(GetObject(*backend, "hardware_counters", &hw, "backend"));
  TD_RETURN_IF_ERROR(Get(*sw, "available", &data.availability.software_counters, "software_counters"));
  TD_RETURN_IF_ERROR(GetBytes(*sw, "reason", &data.availability.software_reason, "software_counters"));
  TD_RETURN_IF_ERROR(Get(*hw, "available", &data.availability.hardware_counters, "hardware_counters"));
  TD_RETURN_IF_ERROR(GetBytes(*hw, "reason", &data.availability.hardware_reason, "hardware_counters"));
  TD_RETURN_IF_ERROR(Get(*hw, "errno", &data.availability.hardware_errno, "hardware_counters"));
  // Absent in files from before the PMU was probed, and where every event opened.
  if (const auto it = hw->find("not_opened"); it != hw->end() && it->is_object()) {
    for (const auto& [name, err] : it->items()) {
      if (err.is_string()) data.availability.events_not_opened[UnescapeBytes(name)] = err.get<std::string>();
    }
  }
  TD_RETURN_IF_ERROR(ReadLayout(j, &data.layout));

  const json* threads = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, "threads", &threads, "run"));
  for (size_t i = 0; i < threads->size(); ++i) {
    const std::string w = absl::StrFormat("threads[%d]", i);
    const json& thread = (*threads)[i];
    if (!thread.is_object()) return Invalid(TypeError(w, "an object", thread));
    ThreadInfo t;
    TD_RETURN_IF_ERROR(Get(thread, "index", &t.index, w));
    if (t.index != i) return Invalid(absl::StrFormat("%s.index = %d; threads are listed in index order", w, t.index));
    TD_RETURN_IF_ERROR(Get(thread, "tid", &t.tid, w));
    TD_RETURN_IF_ERROR(Get(thread, "exited_before_finalize", &t.exited_before_finalize, w));
    TD_RETURN_IF_ERROR(Get(thread, "counters_measured", &t.counters_measured, w));
    TD_RETURN_IF_ERROR(GetBytes(thread, "counters_error", &t.counters_error, w));
    TD_RETURN_IF_ERROR(json_fields::GetOptionalInteger(thread, "openmp_thread", -1, &t.openmp_thread, w, -1,
                                                       std::numeric_limits<int>::max()));
    data.threads.push_back(t);
  }
  const json* regions = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, "regions", &regions, "run"));
  data.regions.reserve(regions->size());
  for (size_t r = 0; r < regions->size(); ++r) {
    Region region;
    TD_RETURN_IF_ERROR(ReadRegion((*regions)[r], r, regions->size(), data, &region));
    data.regions.push_back(std::move(region));
  }
  TD_RETURN_IF_ERROR(CheckRegionTree(data.regions));
  const json* diagnostics = nullptr;
  TD_RETURN_IF_ERROR(GetArray(j, "diagnostics", &diagnostics, "run"));
  for (size_t i = 0; i < diagnostics->size(); ++i) {
    const std::string w = absl::StrFormat("diagnostics[%d]", i);
    std::string severity;
    std::string message;
    TD_RETURN_IF_ERROR(Get((*diagnostics)[i], "severity", &severity, w));
    TD_RETURN_IF_ERROR(GetBytes((*diagnostics)[i], "message", &message, w));
    data.diagnostics.push_back({SeverityFromName(severity), message});
  }
  if (const auto it = j.find("marker_cost"); it != j.end() && !it->is_null()) {
    TD_ASSIGN_OR_RETURN(data.marker_cost, ReadMarkerCost(*it, data.layout.events.size()));
  }
  if (j.contains("sample_every")) {
    TD_RETURN_IF_ERROR(GetInRange<uint32_t>(j, "sample_every", &data.sample_every, "run", 1, uint32_t{1} << 20));
  }
  return data;
}

}  // namespace

absl::StatusOr<MpiRank> MpiRankFromJson(const json& mpi) {
  try {
    if (!mpi.is_object()) return Invalid(TypeError("mpi", "an object", mpi));
    MpiRank rank;
    TD_RETURN_IF_ERROR(Get(mpi, "rank", &rank.rank, "mpi"));
    TD_RETURN_IF_ERROR(Get(mpi, "size", &rank.size, "mpi"));
    if (rank.rank < 0 || rank.size < 0 || (rank.size != 0 && rank.rank >= rank.size)) {
      return Invalid(absl::StrFormat("mpi: rank %d is not a rank of a job of size %d", rank.rank, rank.size));
    }
    TD_RETURN_IF_ERROR(GetBytes(mpi, "job", &rank.job, "mpi"));
    TD_RETURN_IF_ERROR(GetBytes(mpi, "host", &rank.host, "mpi"));
    rank.launcher = OptionalBytes(mpi, "launcher", "");
    if (const auto aborted = mpi.find("aborted"); aborted != mpi.end()) {
      if (!aborted->is_boolean()) return Invalid(TypeError("mpi.aborted", "true or false", *aborted));
      rank.aborted = aborted->get<bool>();
    }
    if (mpi.contains("signal")) {
      TD_RETURN_IF_ERROR(GetInRange<int>(mpi, "signal", &rank.signal, "mpi", 1, 64));
    }
    return rank;
  } catch (const std::exception& e) {
    return Invalid(absl::StrFormat("mpi: cannot be read: %s", e.what()));
  }
}

absl::StatusOr<RunData> RunFromJson(const json& j) {
  // The checks above come first; this only keeps a case they missed from
  // escaping as an exception.
  try {
    return DecodeRun(j);
  } catch (const std::exception& e) {
    return Invalid(absl::StrFormat("run: cannot be read: %s", e.what()));
  }
}

absl::StatusOr<RunData> ReadRunFile(const std::string& path) {
  TD_ASSIGN_OR_RETURN(const std::string text, ReadTextFile(path));
  return RunFromText(text, path);
}

}  // namespace td

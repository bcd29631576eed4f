#include "runtime/report/json_report.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "runtime/report/byte_strings.h"
#include "runtime/report/json_file.h"

namespace td {

using nlohmann::json;

namespace {

// The key of event `index` in a thread's "counters": its name, or, when the
// planner put the same event in several groups, "name@gN" for the copies
// after the first (N = group index).
std::string CounterKey(const CounterLayout& layout, size_t index) {
  const std::string& name = layout.events[index].name;
  for (size_t earlier = 0; earlier < index; ++earlier) {
    if (layout.events[earlier].name == name) return absl::StrFormat("%s@g%d", name, layout.GroupOf(index));
  }
  return name;
}

// A byte string from the program or the system, as a JSON string: invalid
// UTF-8 as \xHH (EscapeBytes); RunFromJson reverses it with Bytes().
json Text(const std::string& bytes) { return EscapeBytes(bytes); }

json TextList(const std::vector<std::string>& list) {
  json out = json::array();
  for (const std::string& s : list) out.push_back(Text(s));
  return out;
}

// Region paths are made of PathComponent()s, so they are valid UTF-8 and
// written as they are; anything else (a path built elsewhere) is escaped.
json PathText(const std::string& path) { return IsValidUtf8(path) ? json(path) : json(EscapeBytes(path)); }

json MachineToJson(const MachineInfo& m) {
  return {{"hostname", Text(m.hostname)},
          {"kernel", Text(m.kernel)},
          {"architecture", Text(m.architecture)},
          {"cpu", {{"vendor", Text(m.cpu_vendor)},
                   {"model_name", Text(m.cpu_model_name)},
                   {"family", m.cpu_family},
                   {"model", m.cpu_model},
                   {"stepping", m.cpu_stepping}}},
          {"logical_cpus", m.logical_cpus},
          {"perf_event_paranoid", m.perf_event_paranoid},
          {"nmi_watchdog", m.nmi_watchdog},
          {"smt_active", m.smt_active}};
}

json ThreadPartToJson(const RegionOnThread& t, const CounterLayout& layout) {
  json j = {{"thread", t.thread},
            {"calls", t.calls},
            {"recursive_calls", t.recursive_calls},
            {"unterminated", t.unterminated},
            {"closed_implicitly", t.closed_implicitly},
            {"wall_inclusive_ns", t.wall_inclusive_ns},
            {"wall_exclusive_ns", t.wall_exclusive_ns}};
  if (layout.events.empty() || t.events.size() != layout.events.size()) {
    j["counters"] = nullptr;  // not measured on this thread: never zeros
    j["groups"] = nullptr;
    return j;
  }
  json counters = json::object();
  for (size_t e = 0; e < t.events.size(); ++e) {
    counters[EscapeBytes(CounterKey(layout, e))] = {{"inclusive", t.events[e].inclusive},
                                       {"exclusive", t.events[e].exclusive}};
  }
  json groups = json::array();
  for (const GroupTimes& g : t.groups) {
    groups.push_back({{"time_enabled_ns", g.enabled_ns}, {"time_running_ns", g.running_ns}});
  }
  j["counters"] = std::move(counters);
  j["groups"] = std::move(groups);
  return j;
}

}  // namespace

json RunToJson(const RunData& data) {
  json j;
  j["schema_version"] = data.schema_version;
  j["td_version"] = Text(data.td_version);
  j["program"] = {{"name", Text(data.program.name)},
                  {"pid", data.program.pid},
                  {"argv", TextList(data.program.argv)},
                  {"start_unix_ns", data.program.start_unix_ns},
                  {"end_unix_ns", data.program.end_unix_ns}};
  j["machine"] = MachineToJson(data.machine);
  const Availability& a = data.availability;
  j["backend"] = {
      {"name", Text(data.backend)},
      {"software_counters", {{"available", a.software_counters}, {"reason", Text(a.software_reason)}}},
      {"hardware_counters",
       {{"available", a.hardware_counters}, {"reason", Text(a.hardware_reason)},
        {"errno", a.hardware_errno}}},
      {"measured", Text(a.measured)},
      {"memory", Text(a.memory)}};
  json events = json::array();
  json groups = json::array();
  for (size_t g = 0; g < data.layout.groups.size(); ++g) {
    const GroupInfo& group = data.layout.groups[g];
    json names = json::array();
    for (size_t i = 0; i < group.num_events; ++i) {
      const EventInfo& e = data.layout.events[group.first_event + i];
      names.push_back(Text(e.name));
      json event = {{"name", Text(e.name)},
                    {"unit", Text(e.unit)},
                    {"perf_type", e.perf_type},
                    {"perf_config", e.perf_config},
                    {"perf_config1", e.perf_config1},
                    {"pmu", Text(e.pmu)},
                    {"hardware", e.hardware},
                    {"group", g}};
      if (e.system_wide()) event["cpu"] = e.cpu;
      if (!e.core_type.empty()) event["core_type"] = Text(e.core_type);
      if (e.bytes_per_count > 0) {
        event["bytes_per_count"] = e.bytes_per_count;
        event["traffic"] = Text(e.traffic);
      }
      events.push_back(std::move(event));
    }
    groups.push_back({{"events", names}});
  }
  j["events"] = std::move(events);
  j["groups"] = std::move(groups);
  j["threads"] = json::array();
  for (const ThreadInfo& t : data.threads) {
    j["threads"].push_back({{"index", t.index},
                            {"tid", t.tid},
                            {"exited_before_finalize", t.exited_before_finalize},
                            {"counters_measured", t.counters_measured},
                            {"counters_error", Text(t.counters_error)}});
  }
  j["regions"] = json::array();
  for (size_t r = 0; r < data.regions.size(); ++r) {
    const Region& region = data.regions[r];
    json parts = json::array();
    for (const RegionOnThread& t : region.threads) parts.push_back(ThreadPartToJson(t, data.layout));
    j["regions"].push_back({{"index", r},
                            {"name", Text(region.name)},
                            {"base_name", Text(region.base_name)},
                            {"parameter", region.parameter ? json(*region.parameter) : json(nullptr)},
                            {"path", PathText(region.path)},
                            {"parent", region.parent},
                            {"children", region.children},
                            {"threads", std::move(parts)}});
  }
  j["diagnostics"] = json::array();
  for (const Diagnostic& d : data.diagnostics) {
    j["diagnostics"].push_back({{"severity", SeverityName(d.severity)}, {"message", Text(d.message)}});
  }
  return j;
}

namespace {

// Reads j[key] into *out; a missing or mistyped field is an error naming it.
template <typename T>
absl::Status Get(const json& j, const char* key, T* out, const std::string& where) {
  auto it = j.find(key);
  if (it == j.end()) {
    return absl::InvalidArgumentError(absl::StrFormat("%s: missing field \"%s\"", where, key));
  }
  try {
    *out = it->template get<T>();
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: field \"%s\" has the wrong type (%s)", where, key, e.what()));
  }
  return absl::OkStatus();
}

#define TD_RETURN_IF_ERROR(expr)          \
  do {                                    \
    absl::Status status_ = (expr);        \
    if (!status_.ok()) return status_;    \
  } while (0)

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
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? UnescapeBytes(it->get<std::string>()) : fallback;
}

absl::Status ReadMachine(const json& j, MachineInfo* m) {
  const std::string w = "machine";
  TD_RETURN_IF_ERROR(GetBytes(j, "hostname", &m->hostname, w));
  TD_RETURN_IF_ERROR(GetBytes(j, "kernel", &m->kernel, w));
  TD_RETURN_IF_ERROR(GetBytes(j, "architecture", &m->architecture, w));
  TD_RETURN_IF_ERROR(Get(j, "logical_cpus", &m->logical_cpus, w));
  TD_RETURN_IF_ERROR(Get(j, "perf_event_paranoid", &m->perf_event_paranoid, w));
  TD_RETURN_IF_ERROR(Get(j, "nmi_watchdog", &m->nmi_watchdog, w));
  m->smt_active = j.value("smt_active", -1);  // optional: files from before it existed
  json cpu;
  TD_RETURN_IF_ERROR(Get(j, "cpu", &cpu, w));
  TD_RETURN_IF_ERROR(GetBytes(cpu, "vendor", &m->cpu_vendor, "machine.cpu"));
  TD_RETURN_IF_ERROR(GetBytes(cpu, "model_name", &m->cpu_model_name, "machine.cpu"));
  TD_RETURN_IF_ERROR(Get(cpu, "family", &m->cpu_family, "machine.cpu"));
  TD_RETURN_IF_ERROR(Get(cpu, "model", &m->cpu_model, "machine.cpu"));
  TD_RETURN_IF_ERROR(Get(cpu, "stepping", &m->cpu_stepping, "machine.cpu"));
  return absl::OkStatus();
}

absl::Status ReadLayout(const json& j, CounterLayout* layout) {
  json events;
  json groups;
  TD_RETURN_IF_ERROR(Get(j, "events", &events, "run"));
  TD_RETURN_IF_ERROR(Get(j, "groups", &groups, "run"));
  std::vector<std::vector<EventInfo>> by_group(groups.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string w = absl::StrFormat("events[%d]", i);
    EventInfo e;
    size_t group = 0;
    TD_RETURN_IF_ERROR(GetBytes(events[i], "name", &e.name, w));
    TD_RETURN_IF_ERROR(GetBytes(events[i], "unit", &e.unit, w));
    TD_RETURN_IF_ERROR(Get(events[i], "perf_type", &e.perf_type, w));
    TD_RETURN_IF_ERROR(Get(events[i], "perf_config", &e.perf_config, w));
    TD_RETURN_IF_ERROR(Get(events[i], "hardware", &e.hardware, w));
    TD_RETURN_IF_ERROR(Get(events[i], "group", &group, w));
    // Added after schema 1's first files: optional.
    if (const auto it = events[i].find("perf_config1"); it != events[i].end() && it->is_number_unsigned()) {
      e.perf_config1 = it->get<uint64_t>();
    }
    e.pmu = OptionalBytes(events[i], "pmu", e.pmu);
    e.core_type = OptionalBytes(events[i], "core_type", "");
    if (const auto it = events[i].find("cpu"); it != events[i].end() && it->is_number_integer()) {
      e.cpu = it->get<int>();
    }
    if (const auto it = events[i].find("bytes_per_count"); it != events[i].end() && it->is_number()) {
      e.bytes_per_count = it->get<double>();
      e.traffic = OptionalBytes(events[i], "traffic", "total");
    }
    if (group >= by_group.size()) {
      return absl::InvalidArgumentError(absl::StrFormat("%s: group %d does not exist", w, group));
    }
    by_group[group].push_back(std::move(e));
  }
  for (auto& group : by_group) layout->AddGroup(std::move(group));
  return absl::OkStatus();
}

absl::Status ReadThreadPart(const json& j, const CounterLayout& layout, const std::string& w,
                            RegionOnThread* t) {
  TD_RETURN_IF_ERROR(Get(j, "thread", &t->thread, w));
  TD_RETURN_IF_ERROR(Get(j, "calls", &t->calls, w));
  TD_RETURN_IF_ERROR(Get(j, "recursive_calls", &t->recursive_calls, w));
  TD_RETURN_IF_ERROR(Get(j, "unterminated", &t->unterminated, w));
  TD_RETURN_IF_ERROR(Get(j, "closed_implicitly", &t->closed_implicitly, w));
  TD_RETURN_IF_ERROR(Get(j, "wall_inclusive_ns", &t->wall_inclusive_ns, w));
  TD_RETURN_IF_ERROR(Get(j, "wall_exclusive_ns", &t->wall_exclusive_ns, w));
  const json& counters = j.value("counters", json());
  if (counters.is_null()) return absl::OkStatus();
  for (size_t index = 0; index < layout.events.size(); ++index) {
    const std::string key = EscapeBytes(CounterKey(layout, index));
    json delta;
    TD_RETURN_IF_ERROR(Get(counters, key.c_str(), &delta, w + ".counters"));
    EventDelta d;
    TD_RETURN_IF_ERROR(Get(delta, "inclusive", &d.inclusive, w + ".counters." + key));
    TD_RETURN_IF_ERROR(Get(delta, "exclusive", &d.exclusive, w + ".counters." + key));
    t->events.push_back(d);
  }
  json groups;
  TD_RETURN_IF_ERROR(Get(j, "groups", &groups, w));
  for (const json& g : groups) {
    GroupTimes times;
    TD_RETURN_IF_ERROR(Get(g, "time_enabled_ns", &times.enabled_ns, w + ".groups"));
    TD_RETURN_IF_ERROR(Get(g, "time_running_ns", &times.running_ns, w + ".groups"));
    t->groups.push_back(times);
  }
  return absl::OkStatus();
}

Severity SeverityFromName(const std::string& name) {
  if (name == "error") return Severity::kError;
  if (name == "warning") return Severity::kWarning;
  return Severity::kNotice;
}

}  // namespace

absl::StatusOr<RunData> RunFromJson(const json& j) {
  RunData data;
  if (!j.is_object()) return absl::InvalidArgumentError("run: not a JSON object");
  TD_RETURN_IF_ERROR(Get(j, "schema_version", &data.schema_version, "run"));
  if (data.schema_version != kSchemaVersion) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "run: schema_version %d is not supported (this td reads %d)", data.schema_version,
        kSchemaVersion));
  }
  TD_RETURN_IF_ERROR(GetBytes(j, "td_version", &data.td_version, "run"));
  json program;
  TD_RETURN_IF_ERROR(Get(j, "program", &program, "run"));
  TD_RETURN_IF_ERROR(GetBytes(program, "name", &data.program.name, "program"));
  TD_RETURN_IF_ERROR(Get(program, "pid", &data.program.pid, "program"));
  TD_RETURN_IF_ERROR(GetBytesList(program, "argv", &data.program.argv, "program"));
  TD_RETURN_IF_ERROR(Get(program, "start_unix_ns", &data.program.start_unix_ns, "program"));
  TD_RETURN_IF_ERROR(Get(program, "end_unix_ns", &data.program.end_unix_ns, "program"));
  json machine;
  TD_RETURN_IF_ERROR(Get(j, "machine", &machine, "run"));
  TD_RETURN_IF_ERROR(ReadMachine(machine, &data.machine));
  json backend;
  TD_RETURN_IF_ERROR(Get(j, "backend", &backend, "run"));
  TD_RETURN_IF_ERROR(GetBytes(backend, "name", &data.backend, "backend"));
  TD_RETURN_IF_ERROR(GetBytes(backend, "measured", &data.availability.measured, "backend"));
  data.availability.memory = OptionalBytes(backend, "memory", "");
  json sw;
  json hw;
  TD_RETURN_IF_ERROR(Get(backend, "software_counters", &sw, "backend"));
  TD_RETURN_IF_ERROR(Get(backend, "hardware_counters", &hw, "backend"));
  TD_RETURN_IF_ERROR(Get(sw, "available", &data.availability.software_counters, "software_counters"));
  TD_RETURN_IF_ERROR(GetBytes(sw, "reason", &data.availability.software_reason, "software_counters"));
  TD_RETURN_IF_ERROR(Get(hw, "available", &data.availability.hardware_counters, "hardware_counters"));
  TD_RETURN_IF_ERROR(GetBytes(hw, "reason", &data.availability.hardware_reason, "hardware_counters"));
  TD_RETURN_IF_ERROR(Get(hw, "errno", &data.availability.hardware_errno, "hardware_counters"));
  TD_RETURN_IF_ERROR(ReadLayout(j, &data.layout));

  json threads;
  TD_RETURN_IF_ERROR(Get(j, "threads", &threads, "run"));
  for (size_t i = 0; i < threads.size(); ++i) {
    const std::string w = absl::StrFormat("threads[%d]", i);
    ThreadInfo t;
    TD_RETURN_IF_ERROR(Get(threads[i], "index", &t.index, w));
    TD_RETURN_IF_ERROR(Get(threads[i], "tid", &t.tid, w));
    TD_RETURN_IF_ERROR(Get(threads[i], "exited_before_finalize", &t.exited_before_finalize, w));
    TD_RETURN_IF_ERROR(Get(threads[i], "counters_measured", &t.counters_measured, w));
    TD_RETURN_IF_ERROR(GetBytes(threads[i], "counters_error", &t.counters_error, w));
    data.threads.push_back(t);
  }
  json regions;
  TD_RETURN_IF_ERROR(Get(j, "regions", &regions, "run"));
  for (size_t r = 0; r < regions.size(); ++r) {
    const std::string w = absl::StrFormat("regions[%d]", r);
    Region region;
    json parts;
    TD_RETURN_IF_ERROR(GetBytes(regions[r], "name", &region.name, w));
    // Optional: recordings from before parameters existed have neither.
    region.base_name = OptionalBytes(regions[r], "base_name", region.name);
    if (regions[r].contains("parameter") && regions[r]["parameter"].is_number_integer()) {
      region.parameter = regions[r]["parameter"].get<long long>();
    }
    TD_RETURN_IF_ERROR(Get(regions[r], "path", &region.path, w));
    TD_RETURN_IF_ERROR(Get(regions[r], "parent", &region.parent, w));
    TD_RETURN_IF_ERROR(Get(regions[r], "children", &region.children, w));
    TD_RETURN_IF_ERROR(Get(regions[r], "threads", &parts, w));
    if (region.parent >= static_cast<int>(r)) {
      return absl::InvalidArgumentError(w + ": parent must come before its children");
    }
    for (size_t t = 0; t < parts.size(); ++t) {
      RegionOnThread part;
      TD_RETURN_IF_ERROR(
          ReadThreadPart(parts[t], data.layout, absl::StrFormat("%s.threads[%d]", w, t), &part));
      region.threads.push_back(std::move(part));
    }
    data.regions.push_back(std::move(region));
  }
  json diagnostics;
  TD_RETURN_IF_ERROR(Get(j, "diagnostics", &diagnostics, "run"));
  for (const json& d : diagnostics) {
    std::string severity;
    std::string message;
    TD_RETURN_IF_ERROR(Get(d, "severity", &severity, "diagnostics"));
    TD_RETURN_IF_ERROR(GetBytes(d, "message", &message, "diagnostics"));
    data.diagnostics.push_back({SeverityFromName(severity), message});
  }
  return data;
}

absl::StatusOr<RunData> ReadRunFile(const std::string& path) {
  absl::StatusOr<json> j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  absl::StatusOr<RunData> data = RunFromJson(*j);
  if (!data.ok()) {
    return absl::Status(data.status().code(), path + ": " + std::string(data.status().message()));
  }
  return data;
}

}  // namespace td

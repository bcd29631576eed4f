// Writing a recorded run as JSON (docs/json-schema.md); run_file_reader.cc reads it back.
#include "runtime/recorded/run_file.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_file.h"

namespace td {

using nlohmann::json;

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

namespace {

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
                   {"stepping", m.cpu_stepping},
                   {"revision", m.cpu_revision}}},
          {"logical_cpus", m.logical_cpus},
          {"perf_event_paranoid", m.perf_event_paranoid},
          {"nmi_watchdog", m.nmi_watchdog},
          {"smt_active", m.smt_active},
          {"sockets", m.sockets},
          {"persistent_memory", m.persistent_memory}};
}

json ThreadPartToJson(const RegionOnThread& t, const CounterLayout& layout) {
  json j = {{"thread", t.thread},
            {"calls", t.calls},
            {"wall_inclusive_ns", t.wall_inclusive_ns},
            {"wall_exclusive_ns", t.wall_exclusive_ns}};
  // Written only when not 0 (kZeroCountsOmittedSince).
  if (t.recursive_calls != 0) j["recursive_calls"] = t.recursive_calls;
  if (t.unterminated != 0) j["unterminated"] = t.unterminated;
  if (t.closed_implicitly != 0) j["closed_implicitly"] = t.closed_implicitly;
  if (t.mpi.calls != 0) j["mpi"] = {t.mpi.ns, t.mpi.calls, t.mpi.bytes};  // [ns, calls, bytes]; none: left out
  if (!t.call_times.empty()) {  // [[bucket, calls, ns], ...]
    json buckets = json::array();
    for (const CallTimeBucketTotal& b : t.call_times) buckets.push_back({b.bucket, b.calls, b.ns});
    j["call_times"] = std::move(buckets);
  }
  if (layout.events.empty() || t.events.size() != layout.events.size()) {
    j["inclusive"] = nullptr;  // not measured on this thread: never zeros
    j["exclusive"] = nullptr;
    j["groups"] = nullptr;
    return j;
  }
  json inclusive = json::array(), exclusive = json::array(), groups = json::array();
  for (const EventDelta& e : t.events) {
    inclusive.push_back(e.inclusive);
    exclusive.push_back(e.exclusive);
  }
  for (const GroupTimes& g : t.groups) groups.push_back({g.enabled_ns, g.running_ns});
  j["inclusive"] = std::move(inclusive);
  j["exclusive"] = std::move(exclusive);
  j["groups"] = std::move(groups);
  return j;
}

json RegionToJson(const RunData& data, size_t r) {
  const Region& region = data.regions[r];
  json parts = json::array();
  for (const RegionOnThread& t : region.threads) parts.push_back(ThreadPartToJson(t, data.layout));
  json j = {{"index", r},
            {"name", Text(region.name)},
            {"base_name", Text(region.base_name)},
            {"parameter", region.parameter ? json(*region.parameter) : json(nullptr)},
            {"path", PathText(region.path)},
            {"parent", region.parent},
            {"children", region.children},
            {"threads", std::move(parts)}};
  if (region.sample_every != 0) j["sample_every"] = region.sample_every;
  return j;
}

// The streaming writer below emits the same members as the functions above,
// in the same (sorted) order, so that parsing its text gives RunToJson().
void AppendString(const json& text, std::string* out) { out->append(text.dump(-1, ' ', false, json::error_handler_t::replace)); }

// The decimal digits of `value`: std::to_chars into the text, which at
// 640,000 parts takes a third of StrAppend's time.
template <typename Number>
void AppendNumber(Number value, std::string* out) {
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out->append(digits, static_cast<size_t>(end - digits));
}

// `member` (`,"key":`), then value.
template <typename Number>
void AppendMember(std::string_view member, Number value, std::string* out) {
  out->append(member);
  AppendNumber(value, out);
}

void AppendNumbers(absl::Span<const EventDelta> events, bool inclusive, std::string* out) {
  out->push_back('[');
  for (size_t e = 0; e < events.size(); ++e) {
    if (e > 0) out->push_back(',');
    AppendNumber(inclusive ? events[e].inclusive : events[e].exclusive, out);
  }
  out->push_back(']');
}

// [a,b] or [a,b,c] (preceded by a comma unless first).
template <typename... Numbers>
void AppendTuple(bool first, std::string* out, Numbers... values) {
  out->append(first ? "[" : ",[");
  bool comma = false;
  ((out->append(comma ? "," : ""), AppendNumber(values, out), comma = true), ...);
  out->push_back(']');
}

void AppendThreadPart(const RegionOnThread& t, const CounterLayout& layout, std::string* out) {
  out->push_back('{');
  if (!t.call_times.empty()) {
    out->append("\"call_times\":[");
    for (size_t b = 0; b < t.call_times.size(); ++b) {
      AppendTuple(b == 0, out, t.call_times[b].bucket, t.call_times[b].calls, t.call_times[b].ns);
    }
    out->append("],");
  }
  AppendMember("\"calls\":", t.calls, out);
  if (t.closed_implicitly != 0) AppendMember(",\"closed_implicitly\":", t.closed_implicitly, out);  // 0: left out
  if (layout.events.empty() || t.events.size() != layout.events.size()) {
    out->append(",\"exclusive\":null,\"groups\":null,\"inclusive\":null");
  } else {
    out->append(",\"exclusive\":");
    AppendNumbers(t.events, false, out);
    out->append(",\"groups\":[");
    for (size_t g = 0; g < t.groups.size(); ++g) AppendTuple(g == 0, out, t.groups[g].enabled_ns, t.groups[g].running_ns);
    out->append("],\"inclusive\":");
    AppendNumbers(t.events, true, out);
  }
  if (t.mpi.calls != 0) {
    out->append(",\"mpi\":");
    AppendTuple(true, out, t.mpi.ns, t.mpi.calls, t.mpi.bytes);
  }
  if (t.recursive_calls != 0) AppendMember(",\"recursive_calls\":", t.recursive_calls, out);
  AppendMember(",\"thread\":", t.thread, out);
  if (t.unterminated != 0) AppendMember(",\"unterminated\":", t.unterminated, out);
  AppendMember(",\"wall_exclusive_ns\":", t.wall_exclusive_ns, out);
  AppendMember(",\"wall_inclusive_ns\":", t.wall_inclusive_ns, out);
  out->push_back('}');
}

void AppendRegion(const RunData& data, size_t r, std::string* out) {
  const Region& region = data.regions[r];
  out->append("{\"base_name\":");
  AppendString(Text(region.base_name), out);
  out->append(",\"children\":[");
  for (size_t c = 0; c < region.children.size(); ++c) absl::StrAppend(out, c > 0 ? "," : "", region.children[c]);
  AppendMember("],\"index\":", r, out);
  out->append(",\"name\":");
  AppendString(Text(region.name), out);
  out->append(",\"parameter\":");
  if (region.parameter) {
    absl::StrAppend(out, *region.parameter);
  } else {
    out->append("null");
  }
  AppendMember(",\"parent\":", region.parent, out);
  out->append(",\"path\":");
  AppendString(PathText(region.path), out);
  if (region.sample_every != 0) AppendMember(",\"sample_every\":", region.sample_every, out);
  out->append(",\"threads\":[");
  for (size_t t = 0; t < region.threads.size(); ++t) {
    if (t > 0) out->push_back(',');
    AppendThreadPart(region.threads[t], data.layout, out);
  }
  out->append("]}");
}

json RunWithoutRegionsToJson(const RunData& data);

}  // namespace

json RunToJson(const RunData& data) {
  json j = RunWithoutRegionsToJson(data);
  j["regions"] = json::array();
  for (size_t r = 0; r < data.regions.size(); ++r) j["regions"].push_back(RegionToJson(data, r));
  return j;
}

std::string RunFileText(const RunData& data) {
  try {
    std::string text;
    const bool complete = WriteRunFileText(data, [&text](std::string_view piece) {
      text.append(piece);
      return true;
    });
    if (!complete) return "";
    return text;
  } catch (...) {
    return "";  // out of memory: the caller says it could not write
  }
}

json MpiRankToJson(const MpiRank& mpi) {
  json j = {{"rank", mpi.rank},
            {"size", mpi.size},
            {"job", Text(mpi.job)},
            {"host", Text(mpi.host)},
            {"launcher", Text(mpi.launcher)}};
  if (mpi.aborted) j["aborted"] = true;
  if (mpi.signal != 0) j["signal"] = mpi.signal;
  return j;
}

bool WriteRunFileText(const RunData& data, absl::FunctionRef<bool(std::string_view piece)> write,
                      std::string_view rank_summary) {
  try {
    // The document without its regions, indented, then each region on one
    // line of its own, written straight into the text.
    json head = RunWithoutRegionsToJson(data);
    head["regions"] = json::array();
    std::string text = DumpJson(head, 1);
    static constexpr std::string_view kEmpty = "\n \"regions\": []";
    size_t at = text.find(kEmpty);
    if (text.empty() || at == std::string::npos) return false;
    if (!rank_summary.empty()) {  // the key sorts just before "regions"
      const std::string member =
          std::string("\n \"").append(kRankSummaryKey).append("\": ").append(rank_summary).append(",");
      text.insert(at, member);
      at += member.size();
    }
    if (data.regions.empty()) return write(text.append("\n"));
    const std::string tail = text.substr(at + kEmpty.size());
    text.resize(at);
    // A piece and the region that takes it past kRunFilePieceBytes: the text grows once.
    text.reserve(kRunFilePieceBytes + kRunFilePieceBytes / 4);
    text.append("\n \"regions\": [");
    for (size_t r = 0; r < data.regions.size(); ++r) {
      text.append(r == 0 ? "\n  " : ",\n  ");
      AppendRegion(data, r, &text);
      if (text.size() >= kRunFilePieceBytes) {
        if (!write(text)) return false;
        text.clear();
      }
    }
    text.append("\n ]").append(tail).append("\n");
    return write(text);
  } catch (...) {
    return false;  // out of memory: the caller says it could not write
  }
}

namespace {

json RunWithoutRegionsToJson(const RunData& data) {
  json j;
  j["schema_version"] = kSchemaVersion;  // always written in the current layout
  j["td_version"] = Text(data.td_version);
  j["program"] = {{"name", Text(data.program.name)},
                  {"pid", data.program.pid},
                  {"argv", TextList(data.program.argv)},
                  {"start_unix_ns", data.program.start_unix_ns},
                  {"end_unix_ns", data.program.end_unix_ns}};
  if (data.mpi) j["mpi"] = MpiRankToJson(*data.mpi);
  if (data.partial) {
    j["partial"] = {{"flushed_unix_ns", data.partial->flushed_unix_ns}, {"reason", Text(data.partial->reason)}};
  }
  if (data.mpi_outside_regions) {
    const MpiTime& m = *data.mpi_outside_regions;
    j["mpi_outside_regions"] = {{"ns", m.ns}, {"calls", m.calls}, {"bytes", m.bytes}};
  }
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
  if (!data.marker_clock.empty()) j["backend"]["marker_clock"] = Text(data.marker_clock);
  if (!a.events_not_opened.empty()) {
    json not_opened = json::object();
    for (const auto& [name, err] : a.events_not_opened) not_opened[Text(name)] = err;
    j["backend"]["hardware_counters"]["not_opened"] = std::move(not_opened);
  }
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
    json thread = {{"index", t.index},
                   {"tid", t.tid},
                   {"exited_before_finalize", t.exited_before_finalize},
                   {"counters_measured", t.counters_measured},
                   {"counters_error", Text(t.counters_error)}};
    if (t.openmp_thread >= 0) thread["openmp_thread"] = t.openmp_thread;
    j["threads"].push_back(std::move(thread));
  }
  j["diagnostics"] = json::array();
  for (const Diagnostic& d : data.diagnostics) {
    j["diagnostics"].push_back({{"severity", SeverityName(d.severity)}, {"message", Text(d.message)}});
  }
  if (data.sample_every > 1) j["sample_every"] = data.sample_every;
  if (data.marker_cost) {
    const MarkerCost& c = *data.marker_cost;
    j["marker_cost"] = {{"pairs", c.pairs},
                        {"inside_wall_ns", c.inside_wall_ns},
                        {"around_wall_ns", c.around_wall_ns},
                        {"inside", c.inside},
                        {"around", c.around}};
  }
  return j;
}

}  // namespace

}  // namespace td

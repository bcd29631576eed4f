#include "runtime/report/trace_export.h"

#include "runtime/base/byte_strings.h"

namespace td {

nlohmann::json TraceToChromeJson(const std::vector<ThreadTrace>& threads,
                                 const std::vector<std::string>& names,
                                 const CounterLayout& layout, int64_t pid,
                                 const std::string& program) {
  using nlohmann::json;
  json events = json::array();
  json dropped = json::object();
  int64_t origin = INT64_MAX;  // timestamps start at the first event
  for (const ThreadTrace& t : threads) {
    if (!t.events.empty()) origin = std::min(origin, t.events.front().time_ns);
  }
  for (const ThreadTrace& t : threads) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", t.tid},
                      {"args", {{"name", "td thread " + std::to_string(t.index)}}}});
    dropped[std::to_string(t.index)] = t.dropped;
    for (const TraceEvent& e : t.events) {
      json args = json::object();
      for (size_t g = 0; g < layout.groups.size(); ++g) {
        for (size_t i = 0; i < layout.groups[g].num_events; ++i) {
          args[EscapeBytes(layout.events[layout.groups[g].first_event + i].name)] =
              e.counters[layout.ValueWord(g, i)];
        }
      }
      // Names are byte strings: written as in the recording (EscapeBytes).
      events.push_back({{"name", e.region < names.size() ? EscapeBytes(names[e.region]) : "?"},
                        {"cat", "td"},
                        {"ph", e.begin ? "B" : "E"},
                        {"ts", static_cast<double>(e.time_ns - origin) / 1000.0},
                        {"pid", pid},
                        {"tid", t.tid},
                        {"args", std::move(args)}});
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"program", EscapeBytes(program)}, {"dropped_events_per_thread", dropped},
                         {"counters", "cumulative values of the thread's counters at each event"}}}};
}

}  // namespace td

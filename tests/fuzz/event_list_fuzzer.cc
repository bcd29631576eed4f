// libFuzzer target: a TD_EVENTS list of any content is parsed or rejected
// with a message, and what parses is planned into counter groups the way
// SelectEvents plans it: each request alone first (an impossible one is an
// error of its own), then all that fit together. Bad names and impossible
// groups end as messages, never as a crash or a lost event.
//
// Resolving libpfm4 names is too slow to fuzz (an unknown name ranks every
// event of the PMU, ~0.1 s under ASan), so names go through EventResolver
// only where it stays off libpfm4 — perf's generic names, raw rNNNN codes and
// cpu/…/ terms, with a sysfs folder that does not exist so nothing depends on
// this machine — and other names are looked up in td's table of the chosen
// CPU, as EncodeEvent's table step does. The first byte picks that CPU and
// the SMT and NMI-watchdog state.
#include <linux/perf_event.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "runtime/counters/event_spec.h"
#include "runtime/counters/group_planner.h"
#include "runtime/uarch/definitions.h"
#include "tests/fuzz/fuzz_library.h"

namespace {

// Intel with and without PERF_METRICS (and their counter restrictions), AMD
// with paired counters.
constexpr const char* kUarchs[] = {"skl", "icl", "spr", "zen4"};

// The counter models of kUarchs, from the built-in definitions.
const std::vector<td::MetricSet>& Metrics() {
  static const std::vector<td::MetricSet> metrics = [] {
    std::vector<td::MetricSet> out;
    for (const char* uarch : kUarchs) {
      auto set = td::fuzz::Library().ForUarch(uarch);
      if (!set.ok()) {
        std::fprintf(stderr, "event_list_fuzzer: %s\n", std::string(set.status().message()).c_str());
        std::abort();
      }
      out.push_back(*std::move(set));
    }
    return out;
  }();
  return metrics;
}

// The forms EventResolver::Resolve handles before it reaches libpfm4.
bool ResolvedWithoutLibpfm(const std::string& spec) {
  if (td::FindGenericEvent(spec) != nullptr) return true;
  if (spec.size() > 1 && spec[0] == 'r' &&
      std::all_of(spec.begin() + 1, spec.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) {
    return true;
  }
  const size_t slash = spec.find('/');
  return slash != std::string::npos && slash > 0 && spec.back() == '/' && spec.size() > slash + 1;
}

// td's table: the name as written or with its first '.' as ':' (libpfm4's spelling).
bool FromTable(const td::MetricSet& metrics, const std::string& spec, td::EventInfo* out) {
  std::string other = spec;
  if (const size_t colon = other.find(':'); colon != std::string::npos) other[colon] = '.';
  for (const std::string& name : {spec, other}) {
    const td::EventDefinition* def = metrics.FindEvent(name);
    uint64_t config = 0;
    if (def == nullptr || def->config.empty() || !absl::SimpleHexAtoi(def->config, &config)) continue;
    out->name = spec;
    out->unit = "count";
    out->perf_type = PERF_TYPE_RAW;
    out->perf_config = config;
    out->hardware = true;
    out->pmu = metrics.uarch;
    return true;
  }
  return false;
}

bool SameEvent(const td::EventInfo& a, const td::EventInfo& b) {
  return a.perf_type == b.perf_type && a.perf_config == b.perf_config && a.perf_config1 == b.perf_config1;
}

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "event_list_fuzzer: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<td::MetricSet>& all_metrics = Metrics();
  if (size == 0) return 0;
  const uint8_t choice = data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto parsed = td::ParseEventList(text);
  if (!parsed.ok()) return 0;

  const td::MetricSet& metrics = all_metrics[choice % all_metrics.size()];
  td::PlanOptions plan;
  plan.smt_on = (choice & 0x10) == 0;
  plan.nmi_watchdog = (choice & 0x20) != 0;
  td::EventResolver resolver;
  resolver.sysfs_devices = "/nonexistent/td-fuzz/sysfs";

  std::vector<td::GroupRequest> requests;
  for (const td::EventListGroup& group : *parsed) {
    if (group.events.empty()) Fail("ParseEventList returned an empty group");
    td::GroupRequest request{{}, group.forced, "TD_EVENTS"};
    for (const std::string& name : group.events) {
      if (name.empty()) Fail("ParseEventList returned an empty name");
      td::EventInfo event;
      if (ResolvedWithoutLibpfm(name)) {
        auto resolved = resolver.Resolve(name);
        if (!resolved.ok()) continue;
        event = *std::move(resolved);
      } else if (!FromTable(metrics, name, &event)) {
        continue;
      }
      // Software events get a group each and no counter: nothing to plan.
      if (event.perf_type != PERF_TYPE_SOFTWARE) request.events.push_back(std::move(event));
    }
    if (!request.events.empty()) requests.push_back(std::move(request));
  }

  // As SelectEvents: an impossible request costs only itself, and the rest
  // must then plan together.
  std::vector<td::GroupRequest> possible;
  for (td::GroupRequest& request : requests) {
    if (td::PlanGroups({request}, metrics.counters, plan).ok()) possible.push_back(std::move(request));
  }
  auto planned = td::PlanGroups(possible, metrics.counters, plan);
  if (!planned.ok()) Fail("requests that plan alone do not plan together");
  for (const auto& group : *planned) {
    if (!td::CheckSchedulable(group, metrics.counters, plan).ok()) Fail("a planned group cannot be scheduled");
  }
  for (const td::GroupRequest& request : possible) {
    for (const td::EventInfo& e : request.events) {
      const bool kept = std::any_of(planned->begin(), planned->end(), [&](const std::vector<td::EventInfo>& g) {
        return std::any_of(g.begin(), g.end(), [&](const td::EventInfo& m) { return SameEvent(m, e); });
      });
      if (!kept) Fail("an event was lost in planning");
    }
  }
  return 0;
}

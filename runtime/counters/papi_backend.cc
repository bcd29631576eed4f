#include "runtime/counters/papi_backend.h"

#include <papi.h>
#include <pthread.h>

#include <cstring>
#include <mutex>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/counters/event_spec.h"
#include "runtime/counters/perf_syscall.h"
#include "runtime/base/status_macros.h"

namespace td {
namespace {

unsigned long ThreadId() { return static_cast<unsigned long>(pthread_self()); }

// PAPI_library_init once; the result (or why it failed) is kept.
const std::string& InitializePapi() {
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [] {
    const int version = PAPI_library_init(PAPI_VER_CURRENT);
    if (version != PAPI_VER_CURRENT) {
      error = version > 0 ? "PAPI header and library versions differ"
                          : absl::StrFormat("PAPI_library_init failed: %s", PAPI_strerror(version));
      return;
    }
    if (const int err = PAPI_thread_init(&ThreadId); err != PAPI_OK) {
      error = absl::StrFormat("PAPI_thread_init failed: %s", PAPI_strerror(err));
    }
  });
  return error;
}

// A set that is not empty cannot be destroyed: clean it up first.
void DiscardEventSet(int* set) {
  PAPI_cleanup_eventset(*set);
  PAPI_destroy_eventset(set);
}

class PapiThreadCounters final : public ThreadCounters {
 public:
  PapiThreadCounters(int event_set, size_t num_events, long long start_ns)
      : event_set_(event_set), values_(num_events), start_ns_(start_ns) {}
  ~PapiThreadCounters() override {
    PAPI_stop(event_set_, values_.data());  // writes one value per event: values_ has room
    DiscardEventSet(&event_set_);
  }
  bool Read(uint64_t* snapshot) override {
    if (PAPI_read(event_set_, values_.data()) != PAPI_OK) return false;
    const auto elapsed = static_cast<uint64_t>(PAPI_get_real_nsec() - start_ns_);
    snapshot[0] = values_.size();
    snapshot[1] = elapsed;
    snapshot[2] = elapsed;
    for (size_t i = 0; i < values_.size(); ++i) snapshot[3 + i] = static_cast<uint64_t>(values_[i]);
    return true;
  }

 private:
  int event_set_;
  std::vector<long long> values_;
  long long start_ns_;
};

class PapiBackend final : public CounterBackend {
 public:
  // `papi_names` are what PAPI is asked for, parallel to layout.events (which
  // may hold td's names of the same events).
  PapiBackend(CounterLayout layout, std::vector<std::string> papi_names, Availability availability)
      : layout_(std::move(layout)), papi_names_(std::move(papi_names)), availability_(std::move(availability)) {}
  std::string_view name() const override { return "papi"; }
  const CounterLayout& layout() const override { return layout_; }
  const Availability& availability() const override { return availability_; }

  absl::StatusOr<std::unique_ptr<ThreadCounters>> OpenForCurrentThread() override {
    if (const int err = PAPI_register_thread(); err != PAPI_OK) {
      return absl::UnavailableError(absl::StrFormat("PAPI_register_thread: %s", PAPI_strerror(err)));
    }
    int set = PAPI_NULL;
    if (const int err = PAPI_create_eventset(&set); err != PAPI_OK) {
      return absl::UnavailableError(absl::StrFormat("PAPI_create_eventset: %s", PAPI_strerror(err)));
    }
    for (const std::string& name : papi_names_) {
      if (const int err = PAPI_add_named_event(set, name.c_str()); err != PAPI_OK) {
        DiscardEventSet(&set);
        return absl::UnavailableError(
            absl::StrFormat("PAPI cannot count %s here (PAPI_add_named_event: %s)", name, PAPI_strerror(err)));
      }
    }
    const long long start = PAPI_get_real_nsec();
    if (const int err = PAPI_start(set); err != PAPI_OK) {
      DiscardEventSet(&set);
      return absl::UnavailableError(absl::StrFormat("PAPI cannot start counting %s here (PAPI_start: %s)",
                                                    absl::StrJoin(papi_names_, ","), PAPI_strerror(err)));
    }
    return std::make_unique<PapiThreadCounters>(set, layout_.events.size(), start);
  }

 private:
  CounterLayout layout_;
  std::vector<std::string> papi_names_;
  Availability availability_;
};

// Opens, reads and closes the counters once on the calling thread: what
// fails here would fail on every thread.
absl::Status CountOnce(CounterBackend& backend) {
  TD_ASSIGN_OR_RETURN(const auto counters, backend.OpenForCurrentThread());
  std::vector<uint64_t> snapshot(backend.layout().words);
  if (!counters->Read(snapshot.data())) {
    return absl::UnavailableError("PAPI_read failed on a freshly started event set");
  }
  return absl::OkStatus();
}

// td's name for one of perf's generic events: the table's first spelling of
// it ("page-faults", not its alias "faults").
std::string CanonicalName(const GenericEvent& event) {
  for (const std::string& name : GenericEventNames()) {
    const GenericEvent* first = FindGenericEvent(name);
    if (first != nullptr && first->type == event.type && first->config == event.config) return name;
  }
  return event.name;
}

}  // namespace

std::string PapiUnusableReason() {
  if (const std::string& error = InitializePapi(); !error.empty()) return error;
  std::string reasons;
  for (int c = 0; c < PAPI_num_components(); ++c) {
    const PAPI_component_info_t* info = PAPI_get_component_info(c);
    if (info == nullptr || std::strcmp(info->name, "perf_event") != 0) continue;
    if (info->disabled == 0) return "";
    return absl::StrFormat("PAPI's perf_event component is disabled (%s)", info->disabled_reason);
  }
  return "PAPI has no perf_event component";
}

std::vector<std::string> PapiComponentLines() {
  std::vector<std::string> lines;
  if (!InitializePapi().empty()) return lines;
  for (int c = 0; c < PAPI_num_components(); ++c) {
    const PAPI_component_info_t* info = PAPI_get_component_info(c);
    if (info == nullptr) continue;
    lines.push_back(info->disabled == 0
                        ? absl::StrFormat("%s: enabled", info->name)
                        : absl::StrFormat("%s: disabled (%s)", info->name, info->disabled_reason));
  }
  return lines;
}

EventInfo PapiEventInfo(const std::string& papi_name) {
  EventInfo event;
  event.name = papi_name;
  event.unit = "count";
  event.hardware = true;
  event.pmu = "papi";
  constexpr std::string_view kPerf = "perf::";
  if (papi_name.rfind(kPerf, 0) != 0) return event;
  std::string_view bare = std::string_view(papi_name).substr(kPerf.size());
  bare = bare.substr(0, bare.find(':'));  // without modifiers such as ":u"
  const GenericEvent* generic = FindGenericEvent(bare);
  if (generic == nullptr || generic->type != PERF_TYPE_SOFTWARE) return event;
  event.name = CanonicalName(*generic);
  event.unit = generic->unit;
  event.perf_type = generic->type;
  event.perf_config = generic->config;
  event.hardware = false;
  return event;
}

Availability PapiAvailability(const std::vector<EventInfo>& events, Availability probed) {
  std::vector<std::string> names;
  bool hardware = false;
  for (const EventInfo& e : events) {
    names.push_back(e.name);
    hardware |= e.hardware;
  }
  if (hardware) {
    probed.hardware_counters = true;
    probed.hardware_reason.clear();
    probed.hardware_errno.clear();
  }
  probed.measured = absl::StrFormat("wall time, calls and, through PAPI, %s", absl::StrJoin(names, ", "));
  return probed;
}

absl::StatusOr<std::unique_ptr<CounterBackend>> MakePapiBackend(std::vector<std::string> events,
                                                                Availability availability) {
  // PAPI stays initialised when td falls back: shutting it down would pull it
  // from under a program that uses PAPI itself, and from td's own cached
  // initialisation (InitializePapi runs once per process).
  if (std::string reason = PapiUnusableReason(); !reason.empty()) return absl::UnavailableError(reason);
  if (events.empty()) events = {"PAPI_TOT_CYC", "PAPI_TOT_INS"};
  std::vector<EventInfo> group;
  for (const std::string& name : events) group.push_back(PapiEventInfo(name));
  CounterLayout layout;
  layout.AddGroup(group);
  auto backend =
      std::make_unique<PapiBackend>(std::move(layout), std::move(events), PapiAvailability(group, availability));
  TD_RETURN_IF_ERROR(CountOnce(*backend));
  return backend;
}

}  // namespace td

#include "runtime/counters/papi_backend.h"

#include <papi.h>
#include <pthread.h>

#include <cstring>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

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

class PapiThreadCounters final : public ThreadCounters {
 public:
  PapiThreadCounters(int event_set, size_t num_events, long long start_ns)
      : event_set_(event_set), values_(num_events), start_ns_(start_ns) {}
  ~PapiThreadCounters() override {
    long long ignored[64];
    PAPI_stop(event_set_, ignored);
    PAPI_cleanup_eventset(event_set_);
    PAPI_destroy_eventset(&event_set_);
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
  PapiBackend(CounterLayout layout, Availability availability)
      : layout_(std::move(layout)), availability_(std::move(availability)) {}
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
    for (const EventInfo& e : layout_.events) {
      if (const int err = PAPI_add_named_event(set, e.name.c_str()); err != PAPI_OK) {
        PAPI_destroy_eventset(&set);
        return absl::UnavailableError(absl::StrFormat("PAPI_add_named_event(%s): %s", e.name, PAPI_strerror(err)));
      }
    }
    const long long start = PAPI_get_real_nsec();
    if (const int err = PAPI_start(set); err != PAPI_OK) {
      PAPI_cleanup_eventset(set);
      PAPI_destroy_eventset(&set);
      return absl::UnavailableError(absl::StrFormat("PAPI_start: %s", PAPI_strerror(err)));
    }
    return std::make_unique<PapiThreadCounters>(set, layout_.events.size(), start);
  }

 private:
  CounterLayout layout_;
  Availability availability_;
};

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

absl::StatusOr<std::unique_ptr<CounterBackend>> MakePapiBackend(std::vector<std::string> events,
                                                                Availability availability) {
  if (std::string reason = PapiUnusableReason(); !reason.empty()) {
    PAPI_shutdown();  // nothing of PAPI's stays behind in a run it cannot serve
    return absl::UnavailableError(reason);
  }
  if (events.empty()) events = {"PAPI_TOT_CYC", "PAPI_TOT_INS"};
  std::vector<EventInfo> group;
  for (const std::string& name : events) {
    EventInfo e;
    e.name = name;
    e.unit = "count";
    e.hardware = true;
    e.pmu = "papi";
    group.push_back(std::move(e));
  }
  CounterLayout layout;
  layout.AddGroup(std::move(group));
  availability.hardware_counters = true;
  availability.hardware_reason.clear();
  availability.measured = "wall time, calls and PAPI events";
  return std::make_unique<PapiBackend>(std::move(layout), std::move(availability));
}

}  // namespace td

#include "runtime/counters/simulated_backend.h"

#include <time.h>

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "runtime/counters/simulated_protocol.h"

#if defined(__x86_64__) && __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define TD_HAVE_VALGRIND_H 1
#else
#define TD_HAVE_VALGRIND_H 0
#endif

namespace td {
namespace {

// Parallel to enum TdsimCounter.
constexpr std::array<const char*, TDSIM_NUM_COUNTERS> kNames = {
    "sim.instructions", "sim.loads",       "sim.stores",      "sim.branches",  "sim.branch_misses",
    "sim.indirect_branches", "sim.l1i_misses", "sim.l1d_misses", "sim.ll_misses",
    "sim.fp_scalar_ops",     "sim.vector128_ops", "sim.vector256_ops"};

uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Asks the tool; 0 when no tdsim answers (the request's default).
uintptr_t Request(unsigned request, void* buffer, uintptr_t capacity) {
#if TD_HAVE_VALGRIND_H
  return VALGRIND_DO_CLIENT_REQUEST_EXPR(0, request, buffer, capacity, 0, 0, 0);
#else
  (void)request, (void)buffer, (void)capacity;
  return 0;
#endif
}

bool UnderValgrind() {
#if TD_HAVE_VALGRIND_H
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

class SimulatedThreadCounters final : public ThreadCounters {
 public:
  SimulatedThreadCounters() : start_ns_(NowNs()) {}
  bool Read(uint64_t* snapshot) override {
    if (Request(TDSIM_REQUEST_READ, snapshot + CounterLayout::kHeaderWords, TDSIM_NUM_COUNTERS) !=
        TDSIM_NUM_COUNTERS) {
      return false;
    }
    const uint64_t elapsed = NowNs() - start_ns_;
    snapshot[0] = TDSIM_NUM_COUNTERS;
    snapshot[1] = elapsed;
    snapshot[2] = elapsed;
    return true;
  }

 private:
  uint64_t start_ns_;
};

class SimulatedBackend final : public CounterBackend {
 public:
  explicit SimulatedBackend(Availability availability) : availability_(std::move(availability)) {
    layout_.AddGroup(SimulatedEvents());
  }
  std::string_view name() const override { return "simulate"; }
  const CounterLayout& layout() const override { return layout_; }
  const Availability& availability() const override { return availability_; }
  absl::StatusOr<std::unique_ptr<ThreadCounters>> OpenForCurrentThread() override {
    return std::make_unique<SimulatedThreadCounters>();
  }

 private:
  CounterLayout layout_;
  Availability availability_;
};

}  // namespace

std::vector<EventInfo> SimulatedEvents() {
  std::vector<EventInfo> events;
  for (const char* name : kNames) {
    EventInfo e;
    e.name = name;
    e.unit = "count";
    e.pmu = "tdsim";
    // Not hardware: nothing here is a PMU's count, and Top-Down analysis
    // (which looks for hardware events) must not take these for one.
    e.hardware = false;
    events.push_back(std::move(e));
  }
  return events;
}

bool IsSimulatedEvent(const std::string& name) {
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<CounterBackend>> MakeSimulatedBackend(Availability availability) {
  if (!TD_HAVE_VALGRIND_H) {
    return absl::UnavailableError("this td was built without valgrind/valgrind.h or not for x86-64");
  }
  if (!UnderValgrind()) {
    return absl::UnavailableError("the program is not running under Valgrind; `td run --simulate -- PROGRAM` "
                                  "runs it under td's tool");
  }
  std::array<char, 1024> models{};
  if (Request(TDSIM_REQUEST_DESCRIBE, models.data(), models.size()) == 0) {
    return absl::UnavailableError("the program runs under Valgrind, but not under td's tool tdsim "
                                  "(`td run --simulate` starts it under tdsim)");
  }
  availability.measured =
      absl::StrFormat("wall time (slowed by the simulator), calls and simulated counts (sim.*), not a PMU's: %s",
                      models.data());
  return std::make_unique<SimulatedBackend>(std::move(availability));
}

}  // namespace td

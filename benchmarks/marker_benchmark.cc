// Cost of a BEGIN/END pair: disabled, with the software counter group, and
// next to the floor it cannot beat — two raw read()s of the same group.
#include <benchmark/benchmark.h>
#include <unistd.h>


#include "runtime/core/runtime.h"
#include "runtime/counters/availability.h"
#include "td/td.h"

namespace {

void BM_MarkerPairDisabled(benchmark::State& state) {
  // Same check as TD_DISABLE=1: the runtime is off, markers return at once.
  const int saved = td::g_runtime_state.exchange(static_cast<int>(td::RuntimeState::kOff));
  td_markers_off = 1;
  for (auto _ : state) {
    TD_REGION_BEGIN("disabled");
    TD_REGION_END("disabled");
    benchmark::ClobberMemory();
  }
  td_markers_off = saved == static_cast<int>(td::RuntimeState::kOff);
  td::g_runtime_state.store(saved);
}
BENCHMARK(BM_MarkerPairDisabled);

void BM_MarkerPairSoftwareCounters(benchmark::State& state) {
  td_init();
  if (!td_is_active()) {
    state.SkipWithError("td is not active");
    return;
  }
  for (auto _ : state) {
    TD_REGION_BEGIN("software");
    TD_REGION_END("software");
  }
}
BENCHMARK(BM_MarkerPairSoftwareCounters);

// Opens the same software group td uses, by hand, and returns its leader.
int OpenRawSoftwareGroup() {
  int leader = -1;
  for (uint64_t config : {PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_TASK_CLOCK,
                          PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS}) {
    perf_event_attr attr{};
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = config;
    attr.read_format =
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    const int fd = td::RealPerfEventOpen(&attr, 0, -1, leader, 0);
    if (fd < 0) return -1;
    if (leader < 0) leader = fd;
  }
  return leader;
}

void BM_TwoRawGroupReads(benchmark::State& state) {
  const int leader = OpenRawSoftwareGroup();
  if (leader < 0) {
    state.SkipWithError("perf_event_open failed");
    return;
  }
  uint64_t a[7], b[7];
  for (auto _ : state) {
    benchmark::DoNotOptimize(read(leader, a, sizeof(a)));
    benchmark::DoNotOptimize(read(leader, b, sizeof(b)));
  }
}
BENCHMARK(BM_TwoRawGroupReads);

}  // namespace

int main(int argc, char** argv) {
  setenv("TD_OUTPUT", "none", 0);
  setenv("TD_JSON", "0", 0);
  setenv("TD_QUIET", "1", 0);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

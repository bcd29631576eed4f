// Cost of a BEGIN/END pair: disabled, with the software counter group, next
// to the floor it cannot beat (two raw read()s of the same group) and to its
// peers in one run: two clock_gettime calls, PAPI's high-level regions on
// the same four events, td sampled (TD_SAMPLE), and td's marker path on fake
// rdpmc pages.
#include <benchmark/benchmark.h>
#include <papi.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "runtime/driver/marker_handshake.h"
#include "runtime/driver/runtime.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/regions/marker_forms.h"
#include "runtime/regions/thread_state.h"
#include "td/td.h"
#include "tests/support/fake_pmu.h"

namespace {

// Aligned, so that its loop lands at the same place in a cache line
// whatever comes before it in this file: the loop is a few instructions,
// and one that straddles a 32-byte block ran 0.55 ns per pair instead of
// 0.41 here (docs/performance.md).
__attribute__((aligned(64))) void BM_MarkerPairDisabled(benchmark::State& state) {
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

// What any timer-based marker pays at least: the clock read at both ends.
void BM_TwoClockReads(benchmark::State& state) {
  timespec a, b;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_MONOTONIC, &b);
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
  }
}
BENCHMARK(BM_TwoClockReads);

// PAPI's high-level API on the same four software events (PAPI_EVENTS, set
// in main); skipped where PAPI cannot count them.
void BM_PapiHighLevelPair(benchmark::State& state) {
  if (PAPI_hl_region_begin("papi") != PAPI_OK) {
    state.SkipWithError("PAPI cannot count PAPI_EVENTS here");
    return;
  }
  PAPI_hl_region_end("papi");
  for (auto _ : state) {
    PAPI_hl_region_begin("papi");
    PAPI_hl_region_end("papi");
  }
}
BENCHMARK(BM_PapiHighLevelPair);

// td's marker path of a PMU host with rdpmc, on fake pages: a group of five
// hardware events and task-clock from its time enabled, no kernel read. The
// fake's rdpmc is a load where the real one is an instruction. Entered as
// the C markers enter it where the gate says the threads read in user space
// (the forms made for the thread's group).
void BM_MarkerPairOnFakeRdpmcPages(benchmark::State& state) {
  td::fake_pmu::Reset();
  const td::CounterLayout layout = td::TaskClockFromHardwareGroup(td::fake_pmu::SoftwareAndHardwareGroup(5));
  auto backend = td::MakePerfEventBackend(layout, td::Availability{}, &td::fake_pmu::Open, td::UserReads::kAlways,
                                          td::fake_pmu::Seams());
  auto counters = backend->OpenForCurrentThread();
  if (!counters.ok()) {
    state.SkipWithError("fake counters did not open");
    return;
  }
  td::RegionRegistry registry;
  td::ThreadState thread(0, 1, *std::move(counters), layout.words, "", &registry);
  td_site site{"fake", __FILE__, __LINE__, 0, 0};
  const uint32_t region = registry.IdForSite(&site);
  for (auto _ : state) {
    thread.BeginUserReadAndLeave(region, &site);
    thread.EndUserReadAndLeave(region, &site);
  }
  if (td::fake_pmu::Pmu().kernel_reads != 0) state.SkipWithError("a kernel read on the marker path");
}
BENCHMARK(BM_MarkerPairOnFakeRdpmcPages);

// TD_SAMPLE=N through ThreadState with the software group: the counters and
// the clock are read on one pair in N, the other pairs only counted. N =
// 2^20 is the cost of a pair that is not read.
void BM_MarkerPairSampled(benchmark::State& state) {
  auto backend = td::MakePerfEventBackend(td::SoftwareLayout(), td::Availability{}, &td::RealPerfEventOpen);
  auto counters = backend->OpenForCurrentThread();
  if (!counters.ok()) {
    state.SkipWithError("perf_event_open failed");
    return;
  }
  td::RegionRegistry registry;
  td::ThreadState thread(0, 1, *std::move(counters), backend->layout().words, "", &registry);
  thread.set_sample_every(static_cast<uint32_t>(state.range(0)));
  td_site site{"sampled", __FILE__, __LINE__, 0, 0};
  const uint32_t region = registry.IdForSite(&site);
  for (auto _ : state) {
    thread.Begin(region, &site);
    thread.End(region, &site);
  }
}
BENCHMARK(BM_MarkerPairSampled)->Arg(1)->Arg(100)->Arg(1 << 20);

}  // namespace

int main(int argc, char** argv) {
  setenv("TD_OUTPUT", "none", 0);
  setenv("TD_JSON", "0", 0);
  setenv("TD_QUIET", "1", 0);
  setenv("PAPI_EVENTS", "perf::PAGE-FAULTS,perf::TASK-CLOCK,perf::CONTEXT-SWITCHES,perf::CPU-MIGRATIONS", 0);
  // PAPI's high-level API writes its own report at exit: into a scratch folder.
  char scratch[] = "/tmp/td-bench-papi-XXXXXX";
  if (getenv("PAPI_OUTPUT_DIRECTORY") == nullptr && mkdtemp(scratch) != nullptr) {
    setenv("PAPI_OUTPUT_DIRECTORY", scratch, 1);
  }
  // Started before any case runs, so that the thread states the cases make
  // themselves use the same marker clock as the C markers (TD_CLOCK).
  td_init();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// N marker pairs through the C entry points on the marker path of a PMU host
// with rdpmc: the software group replaced by the hardware group's time
// enabled, one group of five hardware events (the size of a Level-1 group)
// read from fake mmap pages (tests/support/fake_pmu.h), a read() that only
// counts. Run it under callgrind with two values of N and subtract
// (docs/performance.md, "Without a syscall: the rdpmc path on fake pages").
#include <cstdio>
#include <cstdlib>

#include "runtime/driver/runtime.h"
#include "runtime/counters/perf_event_backend.h"
#include "td/td.h"
#include "tests/support/fake_pmu.h"

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  const int events = argc > 2 ? std::atoi(argv[2]) : 5;
  if (events < 1 || events > td::fake_pmu::kCounters) return 2;
  setenv("TD_OUTPUT", "none", 0);
  setenv("TD_JSON", "0", 0);
  setenv("TD_QUIET", "1", 0);
  td::fake_pmu::Reset();
  const td::CounterLayout layout = td::TaskClockFromHardwareGroup(td::fake_pmu::SoftwareAndHardwareGroup(events));
  td::Runtime::Get().UseBackend(td::MakePerfEventBackend(layout, td::Availability{}, &td::fake_pmu::Open,
                                                         td::UserReads::kAlways, td::fake_pmu::Seams()));
  for (long i = 0; i < n; ++i) {
    TD_REGION_BEGIN("pair");
    TD_REGION_END("pair");
  }
  const unsigned long long kernel_reads = td::fake_pmu::Pmu().kernel_reads;
  td_finalize();
  std::printf("%ld pairs, %d events, %llu kernel reads at markers\n", n, events, kernel_reads);
  return kernel_reads == 0 ? 0 : 1;
}

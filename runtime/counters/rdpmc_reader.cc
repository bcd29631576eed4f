#include "runtime/counters/rdpmc_reader.h"

namespace td {
namespace {

inline void CompilerBarrier() { asm volatile("" ::: "memory"); }

}  // namespace

uint64_t ReadPmcInstruction(uint32_t index) {
#if defined(__x86_64__) || defined(__i386__)
  uint32_t low = 0;
  uint32_t high = 0;
  asm volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(index));
  return (static_cast<uint64_t>(high) << 32) | low;
#else
  (void)index;
  return 0;  // other architectures read their counters differently; not wired up yet
#endif
}

int64_t SignExtend(uint64_t value, uint16_t width) {
  if (width == 0 || width >= 64) return static_cast<int64_t>(value);
  const unsigned shift = 64u - width;
  return static_cast<int64_t>(value << shift) >> shift;
}

bool ReadWithRdpmc(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, RdpmcSample* sample,
                   int max_attempts) {
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    const uint32_t sequence = page->lock;
    CompilerBarrier();
    const uint32_t index = page->index;
    const bool allowed = page->cap_user_rdpmc != 0 && index != 0;
    int64_t count = page->offset;
    const uint64_t enabled = page->time_enabled;
    const uint64_t running = page->time_running;
    if (allowed) count += SignExtend(read_pmc(index - 1), page->pmc_width);
    CompilerBarrier();
    if (page->lock != sequence) continue;  // the kernel updated the page meanwhile
    if (!allowed) return false;
    sample->count = static_cast<uint64_t>(count);
    sample->time_enabled = enabled;
    sample->time_running = running;
    sample->attempts = attempt;
    return true;
  }
  return false;
}

double MetricSlots(uint64_t perf_metrics, uint64_t slots, int field) {
  const uint64_t fraction = (perf_metrics >> (8 * field)) & 0xff;
  return static_cast<double>(fraction) * static_cast<double>(slots) / 255.0;
}

}  // namespace td

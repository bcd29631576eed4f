#include "runtime/counters/rdpmc_reader.h"

namespace td {
namespace {

inline void CompilerBarrier() { asm volatile("" ::: "memory"); }

// The sequence-lock loop shared by the readers: `read_fields` samples what it
// needs between the two reads of `lock` and returns false when the page
// forbids a user read; a moved lock means the kernel rewrote the page meanwhile.
template <typename ReadFields>
bool UnderPageLock(const volatile perf_event_mmap_page* page, int max_attempts, int* attempts,
                   ReadFields read_fields) {
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    const uint32_t sequence = page->lock;
    CompilerBarrier();
    const bool allowed = read_fields();
    CompilerBarrier();
    if (page->lock != sequence) continue;
    *attempts = attempt;
    return allowed;
  }
  return false;
}

bool ReadSample(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, ReadTscFn read_tsc,
                RdpmcSample* sample, int max_attempts) {
  RdpmcSample s;
  const bool ok = UnderPageLock(page, max_attempts, &s.attempts, [&] {
    const uint32_t index = page->index;
    if (page->cap_user_rdpmc == 0 || index == 0) return false;
    if (read_tsc != nullptr && page->cap_user_time == 0) return false;
    s.page_stamp = page->time_enabled;
    s.time_enabled = s.page_stamp;
    s.time_running = page->time_running;
    if (read_tsc != nullptr) {
      // The event is on a counter (index ≠ 0), so it has been running since the update too.
      const uint64_t since = NanosecondsSinceUpdate(page, read_tsc(), page->capabilities);
      s.time_enabled += since;
      s.time_running += since;
    }
    s.raw = SignExtend(read_pmc(index - 1), page->pmc_width);
    s.count = static_cast<uint64_t>(page->offset + s.raw);
    return true;
  });
  if (ok) *sample = s;
  return ok;
}

}  // namespace

uint64_t ReadPmcInstruction(uint32_t index) { return RdpmcNow(index); }

uint64_t ReadTscInstruction() { return RdtscNow(); }

bool ReadWithRdpmc(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, RdpmcSample* sample,
                   int max_attempts) {
  return ReadSample(page, read_pmc, nullptr, sample, max_attempts);
}

bool ReadWithRdpmcNow(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, ReadTscFn read_tsc,
                      RdpmcSample* sample, int max_attempts) {
  return ReadSample(page, read_pmc, read_tsc, sample, max_attempts);
}

bool ReadRegisterWithRdpmc(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, uint64_t* value,
                           int max_attempts) {
  uint64_t v = 0;
  int attempts = 0;
  const bool ok = UnderPageLock(page, max_attempts, &attempts, [&] {
    const uint32_t index = page->index;
    if (page->cap_user_rdpmc == 0 || index == 0) return false;
    v = read_pmc(index - 1);
    return true;
  });
  if (ok) *value = v;
  return ok;
}

double MetricSlots(uint64_t perf_metrics, uint64_t slots, int field) {
  const uint64_t fraction = (perf_metrics >> (8 * field)) & 0xff;
  return static_cast<double>(fraction) * static_cast<double>(slots) / 255.0;
}

}  // namespace td

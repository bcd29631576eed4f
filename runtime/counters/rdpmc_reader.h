// User-space counter reads from a perf_event mmap page (the rdpmc fast path).
//
// The kernel publishes, per event, the hardware counter index and an offset
// in a page guarded by a sequence lock; a reader samples `lock`, reads the
// fields and the counter, and retries when `lock` moved meanwhile. When the
// event is not on a counter right now (index 0) or user rdpmc is off
// (cap_user_rdpmc 0), the caller must fall back to read().
#ifndef TD_RUNTIME_COUNTERS_RDPMC_READER_H_
#define TD_RUNTIME_COUNTERS_RDPMC_READER_H_

#include <linux/perf_event.h>

#include <cstdint>

namespace td {

// The two instructions, inline (x86; 0 elsewhere, where user reads are never
// made: kUserCounterReadsBuilt).
inline uint64_t RdpmcNow(uint32_t index) {
#if defined(__x86_64__) || defined(__i386__)
  uint32_t low = 0;
  uint32_t high = 0;
  asm volatile("rdpmc" : "=a"(low), "=d"(high) : "c"(index));
  return (static_cast<uint64_t>(high) << 32) | low;
#else
  (void)index;
  return 0;
#endif
}
inline uint64_t RdtscNow() {
#if defined(__x86_64__) || defined(__i386__)
  uint32_t low = 0;
  uint32_t high = 0;
  asm volatile("rdtsc" : "=a"(low), "=d"(high));
  return (static_cast<uint64_t>(high) << 32) | low;
#else
  return 0;
#endif
}

// Reads hardware counter `index` (the page's index - 1). Injected in tests.
using ReadPmcFn = uint64_t (*)(uint32_t index);
// The x86 instruction itself; only call it when the page allows it.
uint64_t ReadPmcInstruction(uint32_t index);
// The time-stamp counter, for bringing the page's times up to now. Injected in tests.
using ReadTscFn = uint64_t (*)();
uint64_t ReadTscInstruction();
// Whether this build can read counters in user space at all (x86 only for now).
constexpr bool kUserCounterReadsBuilt =
#if defined(__x86_64__) || defined(__i386__)
    true;
#else
    false;
#endif

struct RdpmcSample {
  uint64_t count = 0;
  uint64_t time_enabled = 0;  // as of the kernel's last update of the page
  uint64_t time_running = 0;
  int64_t raw = 0;            // the counter itself, sign-extended, without the offset
  uint64_t page_stamp = 0;    // the page's time_enabled as written: changes at each kernel update
  int attempts = 0;           // 1 unless a concurrent update forced a retry
};

// False when the page does not allow a user-space read now (fall back to
// read()). Gives up after `max_attempts` racing updates, also returning false.
bool ReadWithRdpmc(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, RdpmcSample* sample,
                   int max_attempts = 64);

// ReadWithRdpmc, with time_enabled and time_running brought up to this
// instant from the TSC (cap_user_time), as read() would report them. False
// also when the page offers no user time.
bool ReadWithRdpmcNow(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, ReadTscFn read_tsc,
                      RdpmcSample* sample, int max_attempts = 64);

// The register behind the page as it is, without offset or sign extension
// (PERF_METRICS: eight 8-bit fields that a 48-bit sign extension would break).
bool ReadRegisterWithRdpmc(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, uint64_t* value,
                           int max_attempts = 64);

// Sign-extends a `width`-bit counter value: counters narrower than 64 bits
// wrap, and the kernel keeps the page's offset so that offset + value is right.
inline int64_t SignExtend(uint64_t value, uint16_t width) {
  if (width == 0 || width >= 64) return static_cast<int64_t>(value);
  const unsigned shift = 64u - width;
  return static_cast<int64_t>(value << shift) >> shift;
}

// Bits of the page's `capabilities` word (the kernel's ABI), tested from
// one load of the word instead of one load per bitfield.
constexpr uint64_t kCapUserRdpmc = uint64_t{1} << 2;
constexpr uint64_t kCapUserTime = uint64_t{1} << 3;
constexpr uint64_t kCapUserTimeShort = uint64_t{1} << 5;

// Nanoseconds since the kernel last wrote the page's times, from a TSC value:
// the page gives the TSC → ns conversion as time_offset + cycles * mult >> shift
// (split in quotient and remainder so the product cannot overflow), and, with
// cap_user_time_short, a base and mask for a TSC narrower than 64 bits.
inline uint64_t NanosecondsSinceUpdate(const volatile perf_event_mmap_page* page, uint64_t cycles,
                                       uint64_t capabilities) {
  if ((capabilities & kCapUserTimeShort) != 0) {
    cycles = page->time_cycles + ((cycles - page->time_cycles) & page->time_mask);
  }
  const uint16_t shift = page->time_shift;
  const uint32_t mult = page->time_mult;
  const uint64_t quotient = cycles >> shift;
  const uint64_t remainder = cycles & ((uint64_t{1} << shift) - 1);
  return page->time_offset + quotient * mult + ((remainder * mult) >> shift);
}

// A group leader's count and its times brought up to now, in one attempt
// (see TryReadCount).
inline bool TryReadCountAndTimes(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, ReadTscFn read_tsc,
                                 uint64_t* count, uint64_t* time_enabled, uint64_t* time_running) {
  const uint32_t sequence = page->lock;
  asm volatile("" ::: "memory");
  const uint32_t index = page->index;
  const uint64_t capabilities = page->capabilities;
  if (index == 0 || (capabilities & (kCapUserRdpmc | kCapUserTime)) != (kCapUserRdpmc | kCapUserTime)) return false;
  const uint64_t raw = read_pmc(index - 1);
  const uint64_t cycles = read_tsc();
  const int64_t offset = page->offset;
  const uint16_t width = page->pmc_width;
  const uint64_t since = NanosecondsSinceUpdate(page, cycles, capabilities);
  const uint64_t enabled = page->time_enabled;
  const uint64_t running = page->time_running;
  asm volatile("" ::: "memory");
  if (page->lock != sequence) return false;
  *count = static_cast<uint64_t>(offset + SignExtend(raw, width));
  // The event is on a counter (index ≠ 0), so it has been running since the update too.
  *time_enabled = enabled + since;
  *time_running = running + since;
  return true;
}

// One attempt of ReadWithRdpmc, for the markers: the count (offset + counter)
// when the page allows a user read and the kernel did not touch the page
// meanwhile; false otherwise, and the caller takes ReadWithRdpmc, which
// retries and says when to fall back to read().
inline bool TryReadCount(const volatile perf_event_mmap_page* page, ReadPmcFn read_pmc, uint64_t* count) {
  const uint32_t sequence = page->lock;
  asm volatile("" ::: "memory");
  const uint32_t index = page->index;
  if (index == 0 || (page->capabilities & kCapUserRdpmc) == 0) return false;
  const uint64_t raw = read_pmc(index - 1);
  const int64_t offset = page->offset;  // after the call: nothing to keep across it
  const uint16_t width = page->pmc_width;
  asm volatile("" ::: "memory");
  if (page->lock != sequence) return false;
  *count = static_cast<uint64_t>(offset + SignExtend(raw, width));
  return true;
}

// Ice Lake+: the PERF_METRICS register holds eight 8-bit fractions of SLOTS.
// Converts field `field` (0 retiring, 1 bad speculation, 2 frontend bound,
// 3 backend bound, 4–7 the SPR level-2 fields) of one snapshot to slots.
// A region is the difference of two converted snapshots; the caller resets
// SLOTS and PERF_METRICS periodically (ioctl PERF_EVENT_IOC_RESET) so the
// fractions keep their precision, and never mixes this with read() of the group.
double MetricSlots(uint64_t perf_metrics, uint64_t slots, int field);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_RDPMC_READER_H_

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
int64_t SignExtend(uint64_t value, uint16_t width);

// Ice Lake+: the PERF_METRICS register holds eight 8-bit fractions of SLOTS.
// Converts field `field` (0 retiring, 1 bad speculation, 2 frontend bound,
// 3 backend bound, 4–7 the SPR level-2 fields) of one snapshot to slots.
// A region is the difference of two converted snapshots; the caller resets
// SLOTS and PERF_METRICS periodically (ioctl PERF_EVENT_IOC_RESET) so the
// fractions keep their precision, and never mixes this with read() of the group.
double MetricSlots(uint64_t perf_metrics, uint64_t slots, int field);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_RDPMC_READER_H_

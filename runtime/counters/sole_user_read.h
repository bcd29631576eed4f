// The markers' read of a thread whose counters are one group of ordinary
// hardware counters read in user space (rdpmc), and at most one task-clock
// taken from that group's time enabled: the common case on a PMU host, done
// inline at the marker with no call and no syscall.
//
// Each member is read under its own page's sequence lock, as the kernel's
// mmap-page protocol asks (rdpmc_reader.h): one pass, no retry. Whenever a
// page forbids a user read or the kernel touched it meanwhile, the read
// returns false and the caller takes ThreadCounters::Read, whose group reader
// retries and falls back to read(). Both give the kernel's running totals,
// so mixing them is exact.
//
// What differs from RdpmcGroupReader::ReadOrdinary is what the caller knows
// in advance: the members' counter width (a property of the PMU, the same at
// every update of the page, read once when the group was opened) and where the
// words go. And the instructions are inline: rdpmc and rdtsc, or, in tests and
// the fake-page benchmark, a load from the fakes' memory in their place.
#ifndef TD_RUNTIME_COUNTERS_SOLE_USER_READ_H_
#define TD_RUNTIME_COUNTERS_SOLE_USER_READ_H_

#include <linux/perf_event.h>

#include <cstdint>

#include "runtime/counters/rdpmc_reader.h"

namespace td {

struct SoleUserRead {
  static constexpr uint32_t kMaxMembers = 8;
  static constexpr uint32_t kNoTimeCopy = UINT32_MAX;
  const volatile perf_event_mmap_page* pages[kMaxMembers] = {};  // leader first
  uint32_t members = 0;
  uint32_t shift = 0;       // 64 - pmc_width: sign-extends a counter value
  uint32_t group_word = 0;  // where the group's block starts in a snapshot
  uint32_t time_copy_word = kNoTimeCopy;  // the derived task-clock's block
  // Tests: counter i reads as fake_pmc[i] (i < fake_pmc_count) and the TSC as
  // *fake_tsc. Null on a real PMU: the instructions.
  const uint64_t* fake_pmc = nullptr;
  uint32_t fake_pmc_count = 0;
  const uint64_t* fake_tsc = nullptr;
  uint64_t reads = 0;  // served here (ThreadCounters::user_reads adds them)
};

namespace sole_user_read_internal {

inline void CompilerBarrier() { asm volatile("" ::: "memory"); }

// What one read needs of SoleUserRead, as values: the pages' barriers make the
// compiler reload anything it reads through memory, so everything that stays
// the same across the read is copied out first.
struct Fixed {
  unsigned shift;
  const uint64_t* fake_pmc;
  uint32_t fake_pmc_count;
};

template <bool kFake>
__attribute__((always_inline)) inline bool Counter(const Fixed& f, uint32_t index, uint64_t* value) {
  if constexpr (kFake) {
    if (index >= f.fake_pmc_count) return false;
    *value = f.fake_pmc[index];
  } else {
    if (!kUserCounterReadsBuilt) return false;  // never offered there
    *value = RdpmcNow(index);
  }
  return true;
}

template <bool kFake>
__attribute__((always_inline)) inline uint64_t Tsc(const uint64_t* fake_tsc) {
  if constexpr (kFake) {
    return *fake_tsc;
  } else {
    return RdtscNow();
  }
}

// offset + the sign-extended counter of one page, in one pass under its lock.
template <bool kFake>
__attribute__((always_inline)) inline bool Member(const Fixed& f, const volatile perf_event_mmap_page* page,
                                                  uint64_t* count) {
  const uint32_t sequence = page->lock;
  CompilerBarrier();
  const uint32_t index = page->index;
  if (index == 0 || (page->capabilities & kCapUserRdpmc) == 0) return false;
  uint64_t raw;
  if (!Counter<kFake>(f, index - 1, &raw)) return false;
  const int64_t offset = page->offset;
  // The counter is an operand: the barrier orders its read before the lock's.
  asm volatile("" : "+r"(raw)::"memory");
  if (page->lock != sequence) return false;
  *count = static_cast<uint64_t>(offset + (static_cast<int64_t>(raw << f.shift) >> f.shift));
  return true;
}

template <bool kFake>
__attribute__((always_inline)) inline bool Read(SoleUserRead& g, uint64_t* snapshot) {
  const Fixed f{g.shift, g.fake_pmc, g.fake_pmc_count};
  const uint32_t members = g.members;
  const volatile perf_event_mmap_page* const* pages = g.pages;
  const uint32_t time_copy_word = g.time_copy_word;
  uint64_t* block = snapshot + g.group_word;
  uint64_t* values = block + 3;
  // The leader, with its times brought up to now from the TSC.
  const volatile perf_event_mmap_page* leader = pages[0];
  const uint32_t sequence = leader->lock;
  CompilerBarrier();
  const uint32_t index = leader->index;
  const uint64_t capabilities = leader->capabilities;
  if (index == 0 || (capabilities & (kCapUserRdpmc | kCapUserTime)) != (kCapUserRdpmc | kCapUserTime)) return false;
  uint64_t raw;
  if (!Counter<kFake>(f, index - 1, &raw)) return false;
  const uint64_t since = NanosecondsSinceUpdate(leader, Tsc<kFake>(g.fake_tsc), capabilities);
  const int64_t offset = leader->offset;
  // The event is on a counter (index ≠ 0), so it has been running since the update too.
  uint64_t enabled = leader->time_enabled + since;
  uint64_t running = leader->time_running + since;
  uint64_t count = static_cast<uint64_t>(offset + (static_cast<int64_t>(raw << f.shift) >> f.shift));
  // The results are worked out before the lock is read again (the barrier
  // takes them as operands): otherwise the compiler keeps every field read
  // so far live across the check, and runs out of registers.
  asm volatile("" : "+r"(enabled), "+r"(running), "+r"(count)::"memory");
  if (leader->lock != sequence) return false;
  // Stored before the members are read, so that nothing of the leader stays
  // live in registers across their loop.
  block[0] = members;
  block[1] = enabled;
  block[2] = running;
  values[0] = count;
  if (time_copy_word != SoleUserRead::kNoTimeCopy) {
    // task-clock as read() of a one-event group would give it (PerfThreadCounters::CopyTimes).
    uint64_t* time = snapshot + time_copy_word;
    time[0] = 1;
    time[1] = enabled;
    time[2] = enabled;
    time[3] = enabled;
  }
  // Unrolled: the loop's own instructions were an eighth of a member's.
  switch (members) {
    case 8: if (!Member<kFake>(f, pages[7], &values[7])) return false; [[fallthrough]];
    case 7: if (!Member<kFake>(f, pages[6], &values[6])) return false; [[fallthrough]];
    case 6: if (!Member<kFake>(f, pages[5], &values[5])) return false; [[fallthrough]];
    case 5: if (!Member<kFake>(f, pages[4], &values[4])) return false; [[fallthrough]];
    case 4: if (!Member<kFake>(f, pages[3], &values[3])) return false; [[fallthrough]];
    case 3: if (!Member<kFake>(f, pages[2], &values[2])) return false; [[fallthrough]];
    case 2: if (!Member<kFake>(f, pages[1], &values[1])) return false; [[fallthrough]];
    default: break;  // 1: the leader alone (more than kMaxMembers is never offered)
  }
  ++g.reads;
  return true;
}

}  // namespace sole_user_read_internal

// Fills the snapshot's words as ThreadCounters::Read would. False (words
// partly written) when a page forbids a user read now or the kernel updated
// one meanwhile: the caller then reads through ThreadCounters::Read.
__attribute__((always_inline)) inline bool ReadSoleUserGroup(SoleUserRead& g, uint64_t* snapshot) {
  return __builtin_expect(g.fake_pmc == nullptr, 1) ? sole_user_read_internal::Read<false>(g, snapshot)
                                                      : sole_user_read_internal::Read<true>(g, snapshot);
}

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_SOLE_USER_READ_H_

// The markers' read of a thread whose counters are one group of ordinary
// hardware counters read in user space (rdpmc), and at most one task-clock
// taken from that group's time enabled: the common case on a PMU host, done
// inside the markers' own code, with no call into the backend and no
// syscall.
//
// The kernel's mmap-page protocol (rdpmc_reader.h) reads a page's fields
// between two reads of its lock: the same lock value means no update came
// in between. The fields change only when the kernel updates the page
// (the thread was scheduled out and in, another event took a counter, an
// overflow was folded in), so they are copied once, under the lock, and kept
// with the lock value they were copied under (Refresh). A read is then the
// counters, the TSC and one test that the pages' locks still have the copied
// values, after the counters were read: the protocol's first lock read moved
// back to the copy, nothing read in between but the copy and the counter.
// (The locks only move forward, so their sum equals the copied sum exactly
// when none moved, unless 2^32 steps came between the copy and the read.)
// A lock that moved sends the read to the cold path, which copies the pages
// again and reads once more; where a page forbids a user read, or the kernel
// touched one during the copy, the caller takes ThreadCounters::Read, whose
// group reader retries and falls back to read(). Both give the kernel's
// running totals, so mixing them is exact.
//
// What differs from RdpmcGroupReader::ReadOrdinary is what the caller knows
// in advance: the members' counter width (a property of the PMU, read once
// when the group was opened), the pages' fields as of the last update, and
// where the words go. And the instructions are inline: rdpmc and rdtsc, or,
// in tests and the fake-page benchmark, a load from the fakes' memory in
// their place.
#ifndef TD_RUNTIME_COUNTERS_SOLE_USER_READ_H_
#define TD_RUNTIME_COUNTERS_SOLE_USER_READ_H_

#include <linux/perf_event.h>

#include <cstdint>
#include <type_traits>

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
  uint64_t reads = 0;      // served here (ThreadCounters::user_reads adds them)
  uint64_t refreshes = 0;  // copies of the pages taken (the first read's included)

  // A page's fields as of the kernel's last update of it, and the lock value
  // they were copied under.
  struct Copy {
    uint32_t lock = 0;
    uint32_t counter = 0;  // rdpmc's operand: the page's index - 1
    int64_t offset = 0;
    const uint64_t* fake = nullptr;  // tests: the fake counter's word
  };
  Copy copies[kMaxMembers] = {};
  // The leader's time enabled and running as of the update, each plus its
  // time_offset: adding the TSC converted with time_mult and time_shift
  // brings them up to now (the event runs: its index is not 0).
  uint64_t enabled_base = 0;
  uint64_t running_base = 0;
  uint64_t time_mult = 0;  // the page's 32 bits, widened: the multiply's memory operand
  uint32_t time_shift = 0;
  uint32_t copied_members = 0;  // members once copied; 0 before and after a failed copy
  uint32_t lock_sum = 0;        // of the copies' lock values (LocksUnmoved)
};

// A task-clock that is a group's time enabled, as read() of a one-event
// group would give it: one event, enabled = running = the count.
inline void WriteTimeCopy(uint64_t* block, uint64_t enabled) {
  block[0] = 1;
  block[1] = enabled;
  block[2] = enabled;
  block[3] = enabled;
}

namespace sole_user_read_internal {

inline void CompilerBarrier() { asm volatile("" ::: "memory"); }

template <bool kFake>
__attribute__((always_inline)) inline uint64_t Tsc(const uint64_t* fake_tsc) {
  if constexpr (kFake) {
    return *fake_tsc;
  } else {
    return RdtscNow();
  }
}

// The member's count now: its copied offset plus its counter, sign-extended.
template <bool kFake>
__attribute__((always_inline)) inline uint64_t Count(const SoleUserRead::Copy& copy, unsigned shift) {
  uint64_t raw;
  if constexpr (kFake) {
    raw = *copy.fake;
  } else {
    raw = RdpmcNow(copy.counter);
  }
  return static_cast<uint64_t>(copy.offset + (static_cast<int64_t>(raw << shift) >> shift));
}

// Where the group's block starts in a snapshot: g.group_word, or a word
// known in advance (the markers' forms made for a layout).
constexpr int kAnyGroupWord = -1;
template <int kGroupWord>
__attribute__((always_inline)) inline uint32_t GroupWord(const SoleUserRead& g) {
  if constexpr (kGroupWord == kAnyGroupWord) {
    return g.group_word;
  } else {
    return kGroupWord;
  }
}

// Calls read(std::integral_constant<uint32_t, N>) for the group's N members
// (fixed when it was opened: one dispatch per read); false with no copy.
template <typename Read>
__attribute__((always_inline)) inline bool WithCopiedMembers(const SoleUserRead& g, Read read) {
  switch (g.copied_members) {
    case 1: return read(std::integral_constant<uint32_t, 1>{});
    case 2: return read(std::integral_constant<uint32_t, 2>{});
    case 3: return read(std::integral_constant<uint32_t, 3>{});
    case 4: return read(std::integral_constant<uint32_t, 4>{});
    case 5: return read(std::integral_constant<uint32_t, 5>{});
    case 6: return read(std::integral_constant<uint32_t, 6>{});
    case 7: return read(std::integral_constant<uint32_t, 7>{});
    case 8: return read(std::integral_constant<uint32_t, 8>{});
    default: return false;  // 0: no copy yet, or the last one failed
  }
}

// The leader's times have run for this long since the copy: the kernel's
// formula (NanosecondsSinceUpdate), quotient and remainder in one,
// floor(cycles × mult / 2^shift) modulo 2^64. The same number as the
// kernel's where its remainder × mult fits in 64 bits, i.e. a shift of at
// most 32 (Refresh refuses more; x86 writes at most 32).
template <bool kFake>
__attribute__((always_inline)) inline uint64_t NanosecondsSinceCopy(const SoleUserRead& g) {
#if defined(__x86_64__)
  // The full product and one double shift: the count is below 64
  // (Refresh's promise), which the compiler's 128-bit shift would test for.
  uint64_t low = Tsc<kFake>(g.fake_tsc);
  uint64_t high;
  asm("mulq %2\n\tshrdq %%cl, %%rdx, %%rax"
      : "+a"(low), "=&d"(high)
      : "rm"(g.time_mult), "c"(g.time_shift)
      : "cc");
  return low;
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(Tsc<kFake>(g.fake_tsc)) * g.time_mult) >>
                               g.time_shift);
#endif
}

// Whether every page's lock still has the value its copy was taken under,
// tested after the counters and the TSC were read: the sum of the locks
// against the sum of the copied values. A lock only ever moves forward (by
// one as the kernel starts an update, by one as it ends it), so the sums
// differ as soon as any one moved, unless 2^32 steps came between the copy
// and this read. rdpmc and rdtsc are volatile asm statements, which the
// compiler keeps in order with the barrier's; the fakes' loads stay before
// it (it may write any memory); the time is an operand besides. What is
// computed from the counters may come after it: only their reads need to
// come first.
template <uint32_t N>
__attribute__((always_inline)) inline bool LocksUnmoved(const SoleUserRead& g, uint64_t& since) {
  asm volatile("" : "+r"(since)::"memory");
  uint32_t sum = 0;
  // Plain loads: after the barrier they cannot be hoisted, and they may then
  // be folded into the additions.
#pragma GCC unroll 8
  for (uint32_t i = 0; i < N; ++i) sum += const_cast<const perf_event_mmap_page*>(g.pages[i])->lock;
  return __builtin_expect(sum == g.lock_sum, 1);
}

// N members. kTimeCopy false leaves the derived task-clock's words
// unwritten (CompleteSoleUserSnapshot writes them).
template <bool kFake, uint32_t N, bool kTimeCopy = true, int kGroupWord = kAnyGroupWord>
__attribute__((always_inline)) inline bool ReadCopiedMembers(SoleUserRead& g, uint64_t* snapshot) {
  const unsigned shift = g.shift;
  uint64_t* block = snapshot + GroupWord<kGroupWord>(g);
#pragma GCC unroll 8
  for (uint32_t i = 0; i < N; ++i) block[3 + i] = Count<kFake>(g.copies[i], shift);
  uint64_t since = NanosecondsSinceCopy<kFake>(g);
  if (!LocksUnmoved<N>(g, since)) return false;
  const uint64_t enabled = g.enabled_base + since;
  block[0] = N;
  block[1] = enabled;
  block[2] = g.running_base + since;
  if (kTimeCopy && g.time_copy_word != SoleUserRead::kNoTimeCopy) WriteTimeCopy(snapshot + g.time_copy_word, enabled);
  ++g.reads;
  return true;
}

template <bool kFake>
__attribute__((always_inline)) inline bool ReadCopied(SoleUserRead& g, uint64_t* snapshot) {
  return WithCopiedMembers(g, [&](auto n) __attribute__((always_inline)) {
    return ReadCopiedMembers<kFake, decltype(n)::value>(g, snapshot);
  });
}

// END's read, added straight to a node's totals: to[w] += now[w] - start[w]
// for every word ReadCopiedMembers writes, without the snapshot in between.
// The differences stay in registers until the locks are tested, so a moved
// lock leaves `to` untouched. Words 0 of the group's block (its count of
// events) and of the task-clock block (1) differ by 0 and are left alone.
// kTimeCopy false leaves the derived task-clock's words of `to` alone (the
// markers' forms made for a group size: the thread derives them from the
// group's time enabled where it reports them).
template <bool kFake, uint32_t N, bool kTimeCopy = true, int kGroupWord = kAnyGroupWord>
__attribute__((always_inline)) inline bool AddCopiedMembers(SoleUserRead& g, const uint64_t* start, uint64_t* to) {
  const unsigned shift = g.shift;
  const uint64_t* begun = start + GroupWord<kGroupWord>(g);
  uint64_t delta[N];
#pragma GCC unroll 8
  for (uint32_t i = 0; i < N; ++i) delta[i] = Count<kFake>(g.copies[i], shift) - begun[3 + i];
  uint64_t since = NanosecondsSinceCopy<kFake>(g);
  if (!LocksUnmoved<N>(g, since)) return false;
  uint64_t* block = to + GroupWord<kGroupWord>(g);
#pragma GCC unroll 8
  for (uint32_t i = 0; i < N; ++i) block[3 + i] += delta[i];
  const uint64_t enabled = g.enabled_base + since - begun[1];
  block[1] += enabled;
  block[2] += g.running_base + since - begun[2];
  if (kTimeCopy && g.time_copy_word != SoleUserRead::kNoTimeCopy) {
    uint64_t* time = to + g.time_copy_word;
    time[1] += enabled;
    time[2] += enabled;
    time[3] += enabled;
  }
  ++g.reads;
  return true;
}

template <bool kFake>
__attribute__((always_inline)) inline bool AddCopied(SoleUserRead& g, const uint64_t* start, uint64_t* to) {
  return WithCopiedMembers(g, [&](auto n) __attribute__((always_inline)) {
    return AddCopiedMembers<kFake, decltype(n)::value>(g, start, to);
  });
}

// Copies every page's fields under its lock. False where a page forbids a
// user read now, its time needs what the copy does not keep
// (cap_user_time_short: not on x86, where the instructions are), its counter
// is past the fakes' or the kernel updated it meanwhile.
template <bool kFake>
bool Refresh(SoleUserRead& g) {
  g.copied_members = 0;
  g.lock_sum = 0;
  ++g.refreshes;
  if (g.members == 0 || g.members > SoleUserRead::kMaxMembers) return false;
  for (uint32_t i = 0; i < g.members; ++i) {
    const volatile perf_event_mmap_page* page = g.pages[i];
    SoleUserRead::Copy copy;
    copy.lock = page->lock;
    CompilerBarrier();
    if ((copy.lock & 1) != 0) return false;  // the kernel is writing the page (from another CPU)
    const uint32_t index = page->index;
    const uint64_t capabilities = page->capabilities;
    uint64_t needed = kCapUserRdpmc;
    if (i == 0) needed |= kCapUserTime;
    if (index == 0 || (capabilities & needed) != needed || (i == 0 && (capabilities & kCapUserTimeShort) != 0)) {
      return false;
    }
    copy.counter = index - 1;
    copy.offset = page->offset;
    if constexpr (kFake) {
      if (copy.counter >= g.fake_pmc_count) return false;
      copy.fake = g.fake_pmc + copy.counter;
    }
    uint64_t enabled = 0;
    uint64_t running = 0;
    uint32_t mult = 0;
    uint32_t time_shift = 0;
    if (i == 0) {
      enabled = page->time_enabled + page->time_offset;
      running = page->time_running + page->time_offset;
      mult = page->time_mult;
      time_shift = page->time_shift;
      if (time_shift > 32) return false;  // NanosecondsSinceCopy; the group reader takes the rest
    }
    CompilerBarrier();
    if (page->lock != copy.lock) return false;
    g.copies[i] = copy;
    g.lock_sum += copy.lock;
    if (i == 0) {
      g.enabled_base = enabled;
      g.running_base = running;
      g.time_mult = mult;
      g.time_shift = time_shift;
    }
  }
  g.copied_members = g.members;
  return true;
}

// The cold path: a lock moved since the copy (or there is none yet).
template <bool kFake>
__attribute__((noinline)) bool RefreshAndRead(SoleUserRead& g, uint64_t* snapshot) {
  return Refresh<kFake>(g) && ReadCopied<kFake>(g, snapshot);
}

}  // namespace sole_user_read_internal

// Fills the snapshot's words as ThreadCounters::Read would. False (words
// partly written) when a page forbids a user read now or the kernel updated
// one while it was read or copied: the caller then reads through
// ThreadCounters::Read.
__attribute__((always_inline)) inline bool ReadSoleUserGroup(SoleUserRead& g, uint64_t* snapshot) {
  using namespace sole_user_read_internal;
  if (__builtin_expect(g.fake_pmc == nullptr, 1)) {
    return __builtin_expect(ReadCopied<false>(g, snapshot), 1) || RefreshAndRead<false>(g, snapshot);
  }
  return ReadCopied<true>(g, snapshot) || RefreshAndRead<true>(g, snapshot);
}

// The same for a group of N members, fake or real, known in advance (the
// markers' forms chosen when the counters were opened): no dispatch, no
// call, and the derived task-clock's words left for
// CompleteSoleUserSnapshot (1, then the group's time enabled, which END's
// AddSoleUserMemberDeltas reads from the group instead). False where the copies
// cannot serve (none yet, or a lock moved): the caller then takes
// ReadSoleUserGroup, which copies the pages again.
template <bool kFake, uint32_t N, int kGroupWord>
__attribute__((always_inline)) inline bool ReadSoleUserMembers(SoleUserRead& g, uint64_t* snapshot) {
  using namespace sole_user_read_internal;
  return __builtin_expect(g.copied_members == N, 1) && ReadCopiedMembers<kFake, N, false, kGroupWord>(g, snapshot);
}

// Writes the derived task-clock's words of a snapshot ReadSoleUserMembers
// took, as ReadSoleUserGroup would have; a snapshot that has them already
// is left as it is.
inline void CompleteSoleUserSnapshot(const SoleUserRead& g, uint64_t* snapshot) {
  if (g.time_copy_word != SoleUserRead::kNoTimeCopy) {
    WriteTimeCopy(snapshot + g.time_copy_word, snapshot[g.group_word + 1]);
  }
}

// END's form: adds what the counters and times moved since `start` (a
// snapshot as ReadSoleUserGroup or ThreadCounters::Read gives it) to `to`.
// False, with `to` untouched, when the copied fields cannot serve (a lock
// moved, or no copy): the caller then reads a snapshot (ReadSoleUserGroup,
// which copies the pages again) and adds the difference itself.
__attribute__((always_inline)) inline bool AddSoleUserGroupDeltas(SoleUserRead& g, const uint64_t* start,
                                                                  uint64_t* to) {
  using namespace sole_user_read_internal;
  if (__builtin_expect(g.fake_pmc == nullptr, 1)) return AddCopied<false>(g, start, to);
  return AddCopied<true>(g, start, to);
}
template <bool kFake, uint32_t N, int kGroupWord>
__attribute__((always_inline)) inline bool AddSoleUserMemberDeltas(SoleUserRead& g, const uint64_t* start,
                                                                   uint64_t* to) {
  using namespace sole_user_read_internal;
  return __builtin_expect(g.copied_members == N, 1) && AddCopiedMembers<kFake, N, false, kGroupWord>(g, start, to);
}

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_SOLE_USER_READ_H_

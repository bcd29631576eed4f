// The clock markers stamp regions with.
//
// Where the kernel itself keeps time with the TSC (its clocksource is "tsc":
// the counter is invariant and agrees across CPUs, or the kernel would have
// dropped it), or with KVM's paravirtual clock over a TSC the CPU declares
// invariant (kvm-clock is then the guest's TSC scaled by the host's factors,
// so CLOCK_MONOTONIC itself is made from it), a marker reads the TSC: two
// instructions (a fence and the read), where clock_gettime costs ~20
// through the vDSO and a call. The thread state
// keeps ticks and turns them into nanoseconds only when its values leave it,
// at the rate the TSC ran against CLOCK_MONOTONIC from the start of the run
// to then (TickScale). Elsewhere, or with TD_CLOCK=monotonic, ticks are
// CLOCK_MONOTONIC nanoseconds and the conversion is the identity.
#ifndef TD_RUNTIME_REGIONS_MARKER_CLOCK_H_
#define TD_RUNTIME_REGIONS_MARKER_CLOCK_H_

#include <time.h>

#include <cstdint>
#include <string>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace td {

enum class MarkerClock { kMonotonic, kTsc };

inline int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The TSC; only called where ChooseMarkerClock chose it. The fence makes it
// wait for the instructions before it, as the kernel's own ordered read does,
// so that an END's stamp does not run ahead of the region's last work.
inline int64_t TscTicks() {
#if defined(__x86_64__)
  _mm_lfence();
  return static_cast<int64_t>(__rdtsc());
#else
  return MonotonicNs();
#endif
}

// Whether markers may read the TSC on a kernel whose clocksource is
// `clocksource` (its name as sysfs gives it, empty when unknown) and a CPU
// that does or does not declare its TSC invariant; *why_not says why not.
bool TscUsableWith(const std::string& clocksource, bool invariant_tsc, std::string* why_not);

// Picks the process's clock once, before threads record: the TSC when
// `allow_tsc` and TscUsableWith says so for this machine; *why_not says why
// not when it was allowed but not taken (may be null). Takes the first
// reference reading the conversion counts from.
MarkerClock ChooseMarkerClock(bool allow_tsc, std::string* why_not);
MarkerClock ProcessMarkerClock();
const char* MarkerClockName(MarkerClock clock);

// One reading of both clocks at (nearly) the same instant.
struct ClockReference {
  int64_t ticks = 0;
  int64_t monotonic_ns = 0;
};

// Ticks of the process's clock to nanoseconds.
class TickScale {
 public:
  TickScale() = default;  // the identity (ticks are nanoseconds)
  // The TSC's rate between two references (`to` later than `from`).
  static TickScale Between(const ClockReference& from, const ClockReference& to);

  bool identity() const { return identity_; }
  double ns_per_tick() const { return ns_per_tick_; }
  // A duration.
  int64_t Ns(int64_t ticks) const;
  // A moment, as CLOCK_MONOTONIC.
  int64_t MonotonicNsAt(int64_t ticks) const;

 private:
  bool identity_ = true;
  double ns_per_tick_ = 1.0;
  ClockReference origin_;
};

// For thread states that read the TSC: the rate from the start-up reference
// to a reading taken now, at least 1 ms and 20,000 bracket widths later (a
// shorter run waits out the rest), so the rate is known to 1e-4 or better.
// The identity before the TSC was ever chosen, and, with one warning, where
// the TSC did not advance with CLOCK_MONOTONIC.
TickScale CurrentTickScale();

}  // namespace td

#endif  // TD_RUNTIME_REGIONS_MARKER_CLOCK_H_

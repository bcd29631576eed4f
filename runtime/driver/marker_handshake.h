// The marker/finalize handshake: the runtime's state, the gate word the C
// markers check, and the barriers that let finalize read every thread's
// state while threads may still be calling markers
// (docs/reliability.md#how-finalize-stays-safe-while-threads-record).
#ifndef TD_RUNTIME_DRIVER_MARKER_HANDSHAKE_H_
#define TD_RUNTIME_DRIVER_MARKER_HANDSHAKE_H_

#include <atomic>
#include <cstdint>

#include "runtime/regions/thread_state.h"

// ThreadSanitizer sees no inline assembly: there the flag is raised in C++.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TD_HAS_TSAN 1
#endif
#endif
#ifndef TD_HAS_TSAN
#define TD_HAS_TSAN 0
#endif

namespace td {

enum class RuntimeState : int { kUninitialized = 0, kRunning = 1, kOff = 2 };

// Outside the class so that the disabled check needs no object: one relaxed
// load is the whole cost of a marker when td is disabled.
// Hidden in declarations too: the markers then load these directly, not
// through the GOT (one instruction each, in every marker).
#define TD_HIDDEN __attribute__((visibility("hidden")))
extern TD_HIDDEN std::atomic<int> g_runtime_state;

inline bool RuntimeRunning() {
  return g_runtime_state.load(std::memory_order_relaxed) ==
         static_cast<int>(RuntimeState::kRunning);
}

// The marker/finalize handshake. A marker raises its thread's in_marker flag,
// then checks that markers are still on; finalize switches them off, then
// waits for every flag to be down. Each side stores, then loads the other's
// variable, which needs a full barrier on both sides. Where the kernel offers
// membarrier(PRIVATE_EXPEDITED), finalize issues it for both (it makes every
// running thread of the process execute one), and the marker side costs a
// plain store; elsewhere the marker's store is a sequentially consistent
// exchange.
extern TD_HIDDEN std::atomic<bool> g_marker_needs_fence;

// True when the calling thread may record into `thread` until MarkerLeft.
inline bool MarkerEntered(ThreadState* thread) {
  std::atomic<uint32_t>& flag = thread->in_marker();
  if (__builtin_expect(g_marker_needs_fence.load(std::memory_order_relaxed), 0)) {
    flag.exchange(1, std::memory_order_seq_cst);
  } else {
    flag.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the order
  }
  if (__builtin_expect(g_runtime_state.load(std::memory_order_seq_cst) ==
                           static_cast<int>(RuntimeState::kRunning),
                       1)) {
    return true;
  }
  flag.store(0, std::memory_order_release);
  return false;
}

// Nonzero while markers are on and the plain store of MarkerEntered suffices
// (no fence needed), else 0; finalize lowers it before its barrier. It folds
// the two loads of MarkerEntered's common case into one, and its nonzero
// value says which form of the common markers to try first (MarkerForm).
extern TD_HIDDEN std::atomic<int> g_marker_gate;
// Sets g_marker_gate from the state and g_marker_needs_fence; called after
// the fence flag changes (the state changes through SetState and this).
void UpdateMarkerGate();
// Compare-and-swap of the state from `from` to kOff, the gate closed first;
// false when the state was not `from`.
bool SwitchMarkersOff(RuntimeState from);
// Finalize's switch: whatever the state is, kOff from now on, the gate closed
// first; returns the state it found. One compare-and-swap loop, so that a
// start-up finishing meanwhile is either seen (kRunning) or refused
// (SwitchMarkersOn then fails).
RuntimeState SwitchMarkersOffFromAny();

// The open gate's values: how the threads of this process read their
// counters at markers, as the last thread attached with one of the two
// forms does (one read() of one group, or the pages in user space). A
// thread that reads otherwise still records exactly, through its own form's
// or the general path.
enum class MarkerForm : int { kSyscallRead = 1, kUserRead = 2 };
void PreferMarkerForm(MarkerForm form);

// A marker called while this thread is already inside one: from a signal
// handler that interrupted td, whose state is then half-updated. Such a
// marker returns at once (docs/usage.md, "Signal handlers").
inline bool MarkerReentered(ThreadState* thread) {
  return thread->in_marker().load(std::memory_order_relaxed) != 0;
}

// MarkerEntered's common case for the C markers, in two steps. First the
// flag: false for a marker re-entered on its thread, whose flag is then left
// alone (it belongs to the marker interrupted).
inline bool MarkerFlagRaised(ThreadState* thread) {
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !TD_HAS_TSAN
  // One instruction raises the flag and says whether it was up: a marker
  // costs one more instruction than a plain store, not a load and a test.
  // (A signal arrives between instructions, so no lock prefix is needed for
  // this thread; other threads only read the flag.)
  bool was_up;
  asm volatile("btsl $0, %0" : "+m"(*reinterpret_cast<uint32_t*>(&thread->in_marker())), "=@ccc"(was_up));
  return !was_up;
#else
  if (__builtin_expect(MarkerReentered(thread), 0)) return false;
  thread->in_marker().store(1, std::memory_order_relaxed);
  return true;
#endif
}

// Then, with the flag up, whether the gate is open for `kForm`. Otherwise
// the flag stays up and the caller reads the gate's value (MarkerGateValue).
template <MarkerForm kForm>
inline bool MarkerGateOpenFor() {
  std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the order
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !TD_HAS_TSAN
  // The gate compared in memory: one instruction, where the atomic load
  // takes a load and a compare (a load is all a sequentially consistent
  // load is on x86-64; the barrier is on finalize's side).
  bool open;
  asm volatile("cmpl %1, %2"
               : "=@ccz"(open)
               : "i"(static_cast<int>(kForm)), "m"(*reinterpret_cast<const int*>(&g_marker_gate))
               : "memory");  // the thread's state is read after it, as after the atomic load
  return open;
#else
  return g_marker_gate.load(std::memory_order_seq_cst) == static_cast<int>(kForm);
#endif
}

// The gate's value for a marker whose flag is up (0: closed, or a fence needed).
inline int MarkerGateValue() {
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return g_marker_gate.load(std::memory_order_seq_cst);
}

// Publishes what the marker wrote to a finalize that waits for the flag.
inline void MarkerLeft(ThreadState* thread) { thread->in_marker().store(0, std::memory_order_release); }

// Start, and a forked child: registers for membarrier where it works (the
// markers' side is then a plain store) and sets the fence flag.
void ChooseMarkerBarrier();
// Finalize's half of the handshake: after it, a thread that had not yet
// raised its flag sees markers off, and one that had shows its flag.
void FullBarrierOnEveryThread();
// The state, with the gate and td_markers_off kept in step.
void SetState(RuntimeState state);
// Start's last step: kUninitialized -> kRunning. False when finalize switched
// markers off while td was starting: they then stay off.
bool SwitchMarkersOn();
RuntimeState LoadState();
// Held across fork() (the runtime's atfork handlers), so that the child
// never inherits the gate's lock taken.
void LockMarkerGateForFork();
void UnlockMarkerGateAfterFork();

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_MARKER_HANDSHAKE_H_

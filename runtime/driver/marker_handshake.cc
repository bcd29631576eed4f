#include "runtime/driver/marker_handshake.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>

extern "C" {
int td_markers_off = 0;
}

namespace td {

std::atomic<int> g_runtime_state{static_cast<int>(RuntimeState::kUninitialized)};
// True until membarrier is known to work: a marker that reads a stale true
// only pays for a stronger store.
std::atomic<bool> g_marker_needs_fence{true};
std::atomic<int> g_marker_gate{0};

namespace {
// Serialises the writers of the gate, the state and the fence flag.
std::mutex& GateMutex() {
  static std::mutex* mu = new std::mutex;  // never destroyed: exit may race threads
  return *mu;
}
bool MarkersMayPassTheGate() {
  return g_runtime_state.load(std::memory_order_seq_cst) == static_cast<int>(RuntimeState::kRunning) &&
         !g_marker_needs_fence.load(std::memory_order_seq_cst);
}
// The gate's value while open; written under the lock.
MarkerForm g_open_gate_form = MarkerForm::kSyscallRead;
void UpdateMarkerGateLocked() {
  const bool open = MarkersMayPassTheGate();
  g_marker_gate.store(open ? static_cast<int>(g_open_gate_form) : 0, std::memory_order_seq_cst);
  // A switch-off that could not wait for the lock (below) may have run
  // meanwhile: never leave the gate open on a state that is not running.
  if (open && !MarkersMayPassTheGate()) g_marker_gate.store(0, std::memory_order_seq_cst);
}
}  // namespace

void UpdateMarkerGate() {
  std::lock_guard<std::mutex> lock(GateMutex());
  UpdateMarkerGateLocked();
}

void PreferMarkerForm(MarkerForm form) {
  std::lock_guard<std::mutex> lock(GateMutex());
  if (g_open_gate_form == form) return;
  g_open_gate_form = form;
  UpdateMarkerGateLocked();
}

// The gate closes before the state leaves kRunning: a marker that passes the
// gate and one that checks the state (MarkerEntered) then never disagree
// about markers being on, so no thread records an inner region whose outer
// one was already refused.
// The lock is waited for 100 ms at most: a finalize on the signal-flush
// thread must not hang on a thread that the signal interrupted while it held
// the lock (it is held for a few stores only, so that wait is already the
// pathological case). Closing the gate is safe without it; a writer that
// reopens it re-checks the state after its store.
bool SwitchMarkersOff(RuntimeState from) {
  std::unique_lock<std::mutex> lock(GateMutex(), std::defer_lock);
  for (int attempt = 0; attempt < 1000 && !lock.try_lock(); ++attempt) usleep(100);
  g_marker_gate.store(0, std::memory_order_seq_cst);
  int expected = static_cast<int>(from);
  const bool switched = g_runtime_state.compare_exchange_strong(expected, static_cast<int>(RuntimeState::kOff));
  if (lock.owns_lock()) UpdateMarkerGateLocked();
  return switched;
}

namespace {
// ThreadSanitizer does not know membarrier: there the markers use the
// exchange, whose ordering it understands.
#if defined(__SANITIZE_THREAD__)
#define TD_MEMBARRIER_USABLE 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TD_MEMBARRIER_USABLE 0
#endif
#endif
#ifndef TD_MEMBARRIER_USABLE
#define TD_MEMBARRIER_USABLE 1
#endif

long Membarrier(int command) { return syscall(SYS_membarrier, command, 0, 0); }

}  // namespace

// Registration is per address space: at start and again in a forked child.
void ChooseMarkerBarrier() {
  const bool registered =
      TD_MEMBARRIER_USABLE != 0 && Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
  g_marker_needs_fence.store(!registered, std::memory_order_relaxed);
  UpdateMarkerGate();
}

void FullBarrierOnEveryThread() {
  // Without membarrier both sides use sequentially consistent operations
  // (the markers' exchange and state load, finalize's compare-exchange of the
  // state and its loads of the flags), which order themselves.
  if (g_marker_needs_fence.load(std::memory_order_relaxed)) return;
  if (Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0) {
    // Registered, so this should not fail; make markers use the exchange from
    // now on and give those already past their store a moment to finish.
    g_marker_needs_fence.store(true, std::memory_order_seq_cst);
    UpdateMarkerGate();
    usleep(10000);
  }
}

void SetState(RuntimeState state) {
  {
    std::lock_guard<std::mutex> lock(GateMutex());
    if (state != RuntimeState::kRunning) g_marker_gate.store(0, std::memory_order_seq_cst);
    g_runtime_state.store(static_cast<int>(state), std::memory_order_release);
    UpdateMarkerGateLocked();
  }
  __atomic_store_n(&td_markers_off, state == RuntimeState::kOff ? 1 : 0, __ATOMIC_RELAXED);
}
RuntimeState SwitchMarkersOffFromAny() {
  std::unique_lock<std::mutex> lock(GateMutex(), std::defer_lock);
  for (int attempt = 0; attempt < 1000 && !lock.try_lock(); ++attempt) usleep(100);
  g_marker_gate.store(0, std::memory_order_seq_cst);
  int found = g_runtime_state.load(std::memory_order_seq_cst);
  while (found != static_cast<int>(RuntimeState::kOff) &&
         !g_runtime_state.compare_exchange_weak(found, static_cast<int>(RuntimeState::kOff))) {
  }
  if (lock.owns_lock()) UpdateMarkerGateLocked();
  return static_cast<RuntimeState>(found);
}

bool SwitchMarkersOn() {
  bool switched = false;
  {
    std::lock_guard<std::mutex> lock(GateMutex());
    int expected = static_cast<int>(RuntimeState::kUninitialized);
    switched = g_runtime_state.compare_exchange_strong(expected, static_cast<int>(RuntimeState::kRunning),
                                                       std::memory_order_acq_rel);
    UpdateMarkerGateLocked();
  }
  if (switched) __atomic_store_n(&td_markers_off, 0, __ATOMIC_RELAXED);
  return switched;
}

RuntimeState LoadState() {
  return static_cast<RuntimeState>(g_runtime_state.load(std::memory_order_acquire));
}

void LockMarkerGateForFork() { GateMutex().lock(); }  // a leaf lock: its holders take no other
void UnlockMarkerGateAfterFork() { GateMutex().unlock(); }

}  // namespace td

// The C entry points. Markers stay tiny: the common case is one state check,
// one thread-local load, one cached id load and the thread's own bookkeeping.
#include "runtime/base/diagnostics.h"
#include "runtime/core/runtime.h"
#include "td/td.h"

using td::Runtime;
using td::ThreadState;

namespace {

// The whole fast path: one thread-local load and the handshake with finalize
// (a store, a load, a compare). A thread that never recorded (td disabled,
// or a thread's first marker) checks the state and goes through the slow
// path once.
ThreadState* RecordingThreadSlow() {
  if (td::g_runtime_state.load(std::memory_order_relaxed) == static_cast<int>(td::RuntimeState::kOff)) {
    return nullptr;
  }
  ThreadState* thread = Runtime::Get().ThisThreadSlow();
  return thread != nullptr && td::MarkerEntered(thread) ? thread : nullptr;
}

inline ThreadState* RecordingThread() {
  ThreadState* thread = td::t_thread_state;
  if (__builtin_expect(thread != nullptr, 1)) return td::MarkerEntered(thread) ? thread : nullptr;
  return RecordingThreadSlow();
}

// Every path that got a thread from RecordingThread ends here.
class MarkerScope {
 public:
  explicit MarkerScope(ThreadState* thread) : thread_(thread) {}
  ~MarkerScope() {
    if (thread_ != nullptr) td::MarkerLeft(thread_);
  }
  MarkerScope(const MarkerScope&) = delete;
  MarkerScope& operator=(const MarkerScope&) = delete;

 private:
  ThreadState* thread_;
};

// A null name cannot be paired with anything: ignored, said once.
bool NullName(const char* name, const char* function) {
  if (name != nullptr) return false;
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    td::Report(td::Severity::kWarning, std::string(function) + "(NULL): a null name is ignored (said once)");
  }
  return true;
}

}  // namespace

extern "C" {

void td_region_begin(td_site* site) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  thread->Begin(thread->registry().IdForSite(site), site);
}

void td_region_end(td_site* site) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  thread->End(thread->registry().IdForSite(site), site);
}

void td_region_begin_p(td_site* site, long long parameter) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  thread->Begin(thread->ParameterRegion(thread->registry().IdForSite(site), parameter), site);
}

void td_region_end_p(td_site* site, long long parameter) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  thread->End(thread->ParameterRegion(thread->registry().IdForSite(site), parameter), site);
}

void td_region_begin_name(const char* name) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  if (NullName(name, "td_region_begin_name")) return;
  td_site* site = thread->registry().SiteForName(name);
  thread->Begin(static_cast<uint32_t>(site->region_id_plus_one - 1), site);
}

void td_region_end_name(const char* name) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  if (NullName(name, "td_region_end_name")) return;
  td_site* site = thread->registry().SiteForName(name);
  thread->End(static_cast<uint32_t>(site->region_id_plus_one - 1), site);
}

void td_init(void) { Runtime::Get().EnsureStarted(); }

void td_finalize(void) { Runtime::Get().Finalize(); }

int td_is_active(void) { return td::RuntimeRunning() ? 1 : 0; }

}  // extern "C"

// The C entry points. Markers stay tiny: the common case is one state check,
// one thread-local load, one cached id load and the thread's own bookkeeping.
#include "runtime/core/runtime.h"
#include "td/td.h"

using td::Runtime;
using td::ThreadState;

namespace {

// The whole fast path: one relaxed load, one thread-local load, two compares.
// Disabled or finalized returns at the first compare; a first call on the
// process or thread goes through the slow path once.
inline ThreadState* RecordingThread() {
  const int state = td::g_runtime_state.load(std::memory_order_relaxed);
  ThreadState* thread = td::t_thread_state;
  if (__builtin_expect(state == static_cast<int>(td::RuntimeState::kRunning) && thread != nullptr,
                       1)) {
    return thread;
  }
  if (state == static_cast<int>(td::RuntimeState::kOff)) return nullptr;
  return Runtime::Get().ThisThreadSlow();
}

// Dynamic names get a per-name site so that warnings still say where.
td_site DynamicSite(const char* name) { return td_site{name, "(dynamic name)", 0, 0, 1}; }

}  // namespace

extern "C" {

void td_region_begin(td_site* site) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  thread->Begin(thread->registry().IdForSite(site), site);
}

void td_region_end(td_site* site) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  thread->End(thread->registry().IdForSite(site), site);
}

void td_region_begin_p(td_site* site, long long parameter) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  thread->Begin(thread->ParameterRegion(thread->registry().IdForSite(site), parameter), site);
}

void td_region_end_p(td_site* site, long long parameter) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  thread->End(thread->ParameterRegion(thread->registry().IdForSite(site), parameter), site);
}

void td_region_begin_name(const char* name) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr || name == nullptr) return;
  static td_site dynamic = DynamicSite("(dynamic)");
  thread->Begin(Runtime::Get().regions().IdForName(name), &dynamic);
}

void td_region_end_name(const char* name) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr || name == nullptr) return;
  td_site site = DynamicSite(name);
  thread->End(Runtime::Get().regions().IdForName(name), &site);
}

void td_init(void) { Runtime::Get().EnsureStarted(); }

void td_finalize(void) { Runtime::Get().Finalize(); }

int td_is_active(void) { return td::RuntimeRunning() ? 1 : 0; }

}  // extern "C"

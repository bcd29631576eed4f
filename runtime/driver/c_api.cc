// The C entry points. Markers stay tiny: the common case is one state check,
// one thread-local load, one cached id load and the thread's own bookkeeping.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/diagnostics.h"
#include "runtime/driver/compat_api.h"
#include "runtime/driver/config.h"
#include "runtime/driver/marker_handshake.h"
#include "runtime/driver/mpi_api.h"
#include "runtime/driver/runtime.h"
#include "runtime/regions/marker_forms.h"
#include "td/td.h"

using td::Runtime;
using td::ThreadState;

namespace {

// The whole fast path: one thread-local load and the handshake with finalize
// (a store, a load, a compare). A thread that never recorded (td disabled,
// or a thread's first marker) checks the state and goes through the slow
// path once.
ThreadState* RecordingThreadSlow() {
  if (td::g_runtime_state.load(std::memory_order_relaxed) == static_cast<int>(td::RuntimeState::kOff) ||
      td::t_in_slow_path) {  // a signal handler's marker that interrupted td's slow path
    return nullptr;
  }
  const td::InSlowPath marked;
  ThreadState* thread = Runtime::Get().ThisThreadSlow();
  return thread != nullptr && td::MarkerEntered(thread) ? thread : nullptr;
}

inline ThreadState* RecordingThread() {
  ThreadState* thread = td::t_thread_state;
  if (__builtin_expect(thread != nullptr, 1)) {
    return !td::MarkerReentered(thread) && td::MarkerEntered(thread) ? thread : nullptr;
  }
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

// The markers' slow path: the thread's first marker, a site's first use, or
// the handshake's uncommon case (a fence needed, markers off). `thread` is
// the thread's state if it has one (its in_marker flag may be up).
__attribute__((noinline)) ThreadState* EnterSlow(ThreadState* thread) {
  if (thread == nullptr) return RecordingThreadSlow();
  return td::MarkerEntered(thread) ? thread : nullptr;
}
// The scope lowers the flag also when registering the site throws.
__attribute__((noinline)) void BeginSlow(ThreadState* thread, td_site* site) {
  thread = EnterSlow(thread);
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  thread->Begin(thread->registry().IdForSite(site), site);
}
__attribute__((noinline)) void EndSlow(ThreadState* thread, td_site* site) {
  thread = EnterSlow(thread);
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  thread->End(thread->registry().IdForSite(site), site);
}

// A null name cannot be paired with anything: ignored, said once.
bool NullName(const char* name, const char* function) {
  if (name != nullptr) return false;
  static std::atomic<bool> said{false};
  if (!said.exchange(true)) {
    td::ReportProblem(td::Severity::kWarning, std::string(function) + "(NULL): a null name is ignored (said once)");
  }
  return true;
}

// The compat entry points: the calling thread's state when it has one and
// td is recording (the same handshake as a marker), without attaching a
// thread that never recorded.
ThreadState* OwnRecordingThread() {
  ThreadState* thread = td::t_thread_state;
  return thread != nullptr && !td::MarkerReentered(thread) && td::MarkerEntered(thread) ? thread : nullptr;
}

// The region `site` names, without registering it.
std::optional<uint32_t> RegionNamed(ThreadState* thread, const td_site* site) {
  const int cached = __atomic_load_n(&site->region_id_plus_one, __ATOMIC_ACQUIRE);
  if (cached != 0) return static_cast<uint32_t>(cached - 1);
  return thread->registry().Find(site->name != nullptr ? site->name : "");
}

// A common marker whose flag is up but whose gate was not the syscall
// form's: the user-read form, or (gate 0: markers off, or a fence needed)
// the slow path, which lowers the flag itself.
__attribute__((noinline)) void BeginOffTheGate(ThreadState* thread, uint32_t region, td_site* site) {
  if (td::MarkerGateValue() == static_cast<int>(td::MarkerForm::kUserRead)) {
    return thread->BeginUserReadAndLeave(region, site);
  }
  BeginSlow(thread, site);
}
__attribute__((noinline)) void EndOffTheGate(ThreadState* thread, uint32_t region, td_site* site) {
  if (td::MarkerGateValue() == static_cast<int>(td::MarkerForm::kUserRead)) {
    return thread->EndUserReadAndLeave(region, site);
  }
  EndSlow(thread, site);
}

}  // namespace

extern "C" {

// The two common markers: a thread that recorded before and markers on, in
// which case the thread state does the rest (inline for the syscall form,
// out of line for the user-read form, as the gate's value says) and ends
// the handshake itself (a site not yet registered reaches it as region
// kUnregistered, which its general path registers); anything else takes the
// slow path.
void td_region_begin(td_site* site) {
  ThreadState* thread = td::t_thread_state;
  if (__builtin_expect(thread == nullptr, 0)) return BeginSlow(thread, site);
  if (__builtin_expect(!td::MarkerFlagRaised(thread), 0)) return;  // re-entered from a signal handler
  const auto region = static_cast<uint32_t>(__atomic_load_n(&site->region_id_plus_one, __ATOMIC_ACQUIRE) - 1);
  if (__builtin_expect(td::MarkerGateOpenFor<td::MarkerForm::kSyscallRead>(), 1)) {
    return thread->BeginAndLeave(region, site);
  }
  return BeginOffTheGate(thread, region, site);
}

void td_region_end(td_site* site) {
  ThreadState* thread = td::t_thread_state;
  if (__builtin_expect(thread == nullptr, 0)) return EndSlow(thread, site);
  if (__builtin_expect(!td::MarkerFlagRaised(thread), 0)) return;  // re-entered from a signal handler
  const auto region = static_cast<uint32_t>(__atomic_load_n(&site->region_id_plus_one, __ATOMIC_ACQUIRE) - 1);
  if (__builtin_expect(td::MarkerGateOpenFor<td::MarkerForm::kSyscallRead>(), 1)) {
    return thread->EndAndLeave(region, site);
  }
  return EndOffTheGate(thread, region, site);
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

void td_region_sample(const char* name, unsigned every) {
  ThreadState* thread = RecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  if (NullName(name, "td_region_sample")) return;
  try {
    Runtime::Get().SampleRegion(name, every);
  } catch (...) {  // out of memory registering the name: the region stays as TD_SAMPLE says
    td::WriteToStderr("td: warning: td_region_sample: out of memory; the interval is not set\n");
  }
}

// libtd-mpi's wrappers, around every wrapped MPI call: the marker handshake
// and a few adds to the thread's innermost node, as cheap as a marker.
long long td_mpi_now(void) {
  ThreadState* thread = td::t_thread_state;
  if (__builtin_expect(thread == nullptr, 0)) {
    thread = RecordingThreadSlow();  // the thread's first MPI call attaches it, as a first marker would
    if (thread == nullptr) return TD_MPI_NOT_TIMED;
    td::MarkerLeft(thread);
  }
  return thread->ClockNow();  // the thread's own clock: AddMpiCall subtracts in it
}

void td_mpi_account(long long start, unsigned long long bytes) {
  if (start == TD_MPI_NOT_TIMED) return;
  ThreadState* thread = OwnRecordingThread();  // markers off (finalized): dropped
  if (thread == nullptr) return;
  thread->AddMpiCall(start, bytes);
  td::MarkerLeft(thread);
}

void td_init(void) {
  if (td::t_in_slow_path) return;  // called from a signal handler that interrupted td's start-up
  const td::InSlowPath marked;
  Runtime::Get().EnsureStarted();
}

void td_finalize(void) { Runtime::Get().Finalize(); }

void td_set_program_name(const char* name) {
  try {
    Runtime::Get().SetProgramName(name);
  } catch (...) {  // out of memory copying the name: the process's name stays
    td::WriteToStderr("td: warning: td_set_program_name: out of memory; the program keeps its name\n");
  }
}

int td_is_active(void) { return td::RuntimeRunning() ? 1 : 0; }

void td_compat_region_totals(td_site* site, double* events, int capacity, td_compat_totals* out) {
  if (out == nullptr) return;
  *out = td_compat_totals{0, 0.0, 0};
  if (site == nullptr) return;
  ThreadState* thread = OwnRecordingThread();
  if (thread == nullptr) return;
  const MarkerScope scope(thread);
  try {
    const std::optional<uint32_t> region = RegionNamed(thread, site);
    if (!region) return;
    std::vector<uint64_t> words(thread->words(), 0);
    int64_t wall_ns = 0;
    out->calls = static_cast<long long>(thread->EndedTotals(*region, &wall_ns, words.data()));
    out->seconds = static_cast<double>(wall_ns) * 1e-9;
    const td::CounterLayout& layout = Runtime::Get().layout();
    // As the JSON has them: none where the thread's counters were not measured.
    if (events == nullptr || capacity <= 0 || !thread->counters_measured() || thread->words() != layout.words) return;
    int n = 0;
    for (size_t g = 0; g < layout.groups.size() && n < capacity; ++g) {
      for (size_t i = 0; i < layout.groups[g].num_events && n < capacity; ++i) {
        events[n++] = static_cast<double>(words[layout.ValueWord(g, i)]);
      }
    }
    out->nevents = n;
  } catch (...) {
    *out = td_compat_totals{0, 0.0, 0};
  }
}

int td_compat_region_reset(td_site* site) {
  if (site == nullptr) return 0;
  ThreadState* thread = OwnRecordingThread();
  if (thread == nullptr) return 0;
  const MarkerScope scope(thread);
  try {
    const std::optional<uint32_t> region = RegionNamed(thread, site);
    if (!region) return 0;
    return thread->ResetRegion(*region) ? 0 : -1;
  } catch (...) {
    return -1;
  }
}

long td_compat_setting(const char* name, char* buffer, size_t size) {
  if (name == nullptr) return -1;
  try {
    // Its problems are the runtime's to report, when it starts.
    const td::Config config = td::ReadConfigFromEnvironment().config;
    const std::string* value = nullptr;
    if (std::strcmp(name, "PAPI_EVENTS") == 0) {
      value = &config.papi_events;
    } else if (std::strcmp(name, "LIKWID_EVENTS") == 0) {
      value = &config.likwid_events;
    } else if (std::strcmp(name, "TD_EVENTS") == 0) {
      value = &config.events;
    } else {
      return -1;
    }
    if (buffer != nullptr && size > 0) {
      const size_t n = std::min(value->size(), size - 1);
      std::memcpy(buffer, value->data(), n);
      buffer[n] = '\0';
    }
    return static_cast<long>(value->size());
  } catch (...) {
    return -1;
  }
}

}  // extern "C"

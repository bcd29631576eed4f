#include "bindings/common/compat_state.h"

#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

namespace td::compat {
namespace {

// Constant-initialised and trivially destructible, like the name cache's
// table; freed by the key's destructor at thread exit.
thread_local ThreadState t_state __attribute__((tls_model("initial-exec"))) = {
    nullptr, 0, PapiState::kNeverUsed, nullptr, 0, 0};

pthread_key_t g_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;

void FreeState(void*) {
  std::free(t_state.regions);
  std::free(t_state.papi_stack);
  t_state = ThreadState{nullptr, 0, t_state.papi, nullptr, 0, 0};
}
void MakeKey() { pthread_key_create(&g_key, FreeState); }

// The key's value only has to be non-null for its destructor to run.
void Register() {
  pthread_once(&g_key_once, MakeKey);
  pthread_setspecific(g_key, &t_state);
}

}  // namespace

ThreadState& ThisThread() { return t_state; }

RegionState* RegionFor(const bindings::NamedSite* site) {
  ThreadState& state = t_state;
  if (__builtin_expect(site->index < state.capacity, 1)) return &state.regions[site->index];
  uint32_t capacity = state.capacity == 0 ? 16 : state.capacity;
  while (capacity <= site->index) capacity *= 2;
  auto* regions = static_cast<RegionState*>(std::realloc(state.regions, capacity * sizeof(RegionState)));
  if (regions == nullptr) return nullptr;
  std::memset(static_cast<void*>(regions + state.capacity), 0, (capacity - state.capacity) * sizeof(RegionState));
  if (state.regions == nullptr && state.papi_stack == nullptr) Register();
  state.regions = regions;
  state.capacity = capacity;
  return &regions[site->index];
}

bool PushPapi(bindings::NamedSite* site) {
  ThreadState& state = t_state;
  if (state.papi_depth == state.papi_stack_capacity) {
    const uint32_t capacity = state.papi_stack_capacity == 0 ? 8 : 2 * state.papi_stack_capacity;
    auto* stack =
        static_cast<bindings::NamedSite**>(std::realloc(state.papi_stack, capacity * sizeof(bindings::NamedSite*)));
    if (stack == nullptr) return false;
    if (state.regions == nullptr && state.papi_stack == nullptr) Register();
    state.papi_stack = stack;
    state.papi_stack_capacity = capacity;
  }
  state.papi_stack[state.papi_depth++] = site;
  return true;
}

void PopPapi(const bindings::NamedSite* site) {
  ThreadState& state = t_state;
  for (uint32_t i = state.papi_depth; i-- > 0;) {
    if (state.papi_stack[i] == site) {
      std::memmove(&state.papi_stack[i], &state.papi_stack[i + 1],
                   (state.papi_depth - i - 1) * sizeof(bindings::NamedSite*));
      --state.papi_depth;
      return;
    }
  }
}

void WarnOnce(bindings::NamedSite* site, uint32_t bit, const char* function, const char* problem) {
  if ((site->warned.fetch_or(bit, std::memory_order_relaxed) & bit) != 0) return;
  std::fprintf(stderr, "td: warning: %s(\"%s\"): %s (said once for this name)\n", function, site->site.name,
               problem);
}

void WarnOnceGlobal(const char* key, const char* function, const char* problem) {
  static auto* mu = new std::mutex;
  static auto* said = new std::set<std::string>;
  {
    std::lock_guard<std::mutex> lock(*mu);
    if (!said->insert(key).second) return;
  }
  std::fprintf(stderr, "td: warning: %s: %s (said once)\n", function, problem);
}

}  // namespace td::compat

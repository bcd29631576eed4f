#include "runtime/driver/periodic_flush.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_format.h"

namespace td {
namespace {

void (*g_flush)() = nullptr;
int64_t g_interval_s = 0;
// stop is raised before busy is read, and busy before stop is read: with
// both sequentially consistent, either the thread sees the stop before it
// begins a flush, or the stopper sees that flush under way and waits.
std::atomic<bool> g_stop{false};
std::atomic<bool> g_busy{false};
std::atomic<bool> g_started{false};

void SleepSeconds(int64_t seconds) {
  timespec left{static_cast<time_t>(seconds), 0};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

void* FlushThread(void*) {
  for (;;) {
    SleepSeconds(g_interval_s);
    g_busy.store(true);
    if (g_stop.load()) {
      g_busy.store(false);
      return nullptr;
    }
    g_flush();
    g_busy.store(false);
  }
}

bool StartThread() {
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);  // the new thread inherits the mask
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  const int failed = pthread_create(&thread, &attributes, &FlushThread, nullptr);
  pthread_attr_destroy(&attributes);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (failed != 0) {
    errno = failed;
    return false;
  }
  pthread_setname_np(thread, "td-flush");
  g_started.store(true);
  return true;
}

}  // namespace

std::string StartPeriodicFlush(void (*flush)(), int64_t interval_s) {
  g_flush = flush;
  g_interval_s = interval_s;
  if (StartThread()) return "";
  return absl::StrFormat("TD_FLUSH_INTERVAL=%d: no thread to flush from could be started (%s); the run's file is "
                         "written at its end only",
                         interval_s, std::strerror(errno));
}

bool StopPeriodicFlush(int wait_ms) {
  g_stop.store(true);
  if (!g_started.load()) return true;
  for (int waited_ms = 0; g_busy.load(); ++waited_ms) {
    if (waited_ms >= wait_ms) return false;
    usleep(1000);
  }
  return true;
}

bool PeriodicFlushRunning() { return g_started.load() && !g_stop.load(); }

void RestartPeriodicFlushInChild() {
  g_busy.store(false);
  g_started.store(false);
  if (g_flush == nullptr || g_stop.load()) return;
  StartThread();
}

}  // namespace td

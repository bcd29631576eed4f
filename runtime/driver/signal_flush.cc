#include "runtime/driver/signal_flush.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <csignal>
#include <cstring>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace td {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

void (*g_write_reports)() = nullptr;
int g_request[2] = {-1, -1};  // handler -> writer thread
int g_done[2] = {-1, -1};     // writer thread -> handler
std::atomic<bool> g_flushing{false};
std::atomic<int> g_signal{0};
int g_linger_ms = 0;  // the signal being flushed; lock-free, so the handler may set it

void* WriterThread(void*) {
  char byte = 0;
  ssize_t got;
  do {
    got = read(g_request[0], &byte, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) return nullptr;  // the pipe is gone: nothing to do
  g_write_reports();
  byte = 1;
  while (write(g_done[1], &byte, 1) < 0 && errno == EINTR) {
  }
  return nullptr;
}

int64_t MonotonicMs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1000000;
}

// Only async-signal-safe calls: write, poll, clock_gettime, sigaction, raise.
void OnSignal(int signal_number) {
  const int saved_errno = errno;
  if (!g_flushing.exchange(true)) {  // a second signal during the flush ends the program now
    const int64_t start = MonotonicMs();
    g_signal.store(signal_number);
    char byte = 1;
    if (write(g_request[1], &byte, 1) == 1) {
      pollfd done{g_done[0], POLLIN, 0};
      while (poll(&done, 1, kSignalFlushWaitMs) < 0 && errno == EINTR) {
      }
    }
    // Lingering (MPI jobs): this process's end would tell the launcher to
    // kill the job's other ranks at once, cutting their own writes short.
    for (int64_t left = start + g_linger_ms - MonotonicMs(); left > 0; left = start + g_linger_ms - MonotonicMs()) {
      poll(nullptr, 0, static_cast<int>(left));
    }
  }
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, nullptr);
  raise(signal_number);  // blocked until this handler returns, then the default action
  errno = saved_errno;
}

bool StartWriter() {
  if (pipe2(g_request, O_CLOEXEC) != 0) return false;
  if (pipe2(g_done, O_CLOEXEC) != 0) return false;
  // The writer must never run a handler itself: it blocks every signal, and
  // the new thread inherits that mask.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  const bool started = pthread_create(&thread, &attributes, &WriterThread, nullptr) == 0;
  pthread_attr_destroy(&attributes);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (started) pthread_setname_np(thread, "td-signals");
  return started;
}

}  // namespace

std::string InstallSignalFlush(void (*write_reports)(), int linger_ms) {
  g_write_reports = write_reports;
  g_linger_ms = linger_ms;
  if (!StartWriter()) {
    return absl::StrFormat("TD_SIGNALS=1: no thread to write reports from could be started (%s); signals "
                           "end the program without reports",
                           std::strerror(errno));
  }
  std::vector<std::string> installed, left_alone;
  for (int signal_number : kSignals) {
    struct sigaction current {};
    sigaction(signal_number, nullptr, &current);
    const bool has_default = (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_DFL;
    if (!has_default) {
      left_alone.push_back(sigabbrev_np(signal_number));
      continue;
    }
    struct sigaction action {};
    action.sa_handler = &OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(signal_number, &action, nullptr);
    installed.push_back(sigabbrev_np(signal_number));
  }
  if (installed.empty()) {
    return "TD_SIGNALS=1: SIGTERM, SIGINT, SIGHUP and SIGQUIT all have the program's own handlers; td installs none";
  }
  std::string line = absl::StrFormat("TD_SIGNALS=1: SIG%s write the reports before ending the program",
                                     absl::StrJoin(installed, ", SIG"));
  if (!left_alone.empty()) {
    absl::StrAppendFormat(&line, "; SIG%s left to the program's own handler", absl::StrJoin(left_alone, ", SIG"));
  }
  return line;
}

int FlushingSignal() { return g_signal.load(); }

void RestartSignalFlushInChild() {
  if (g_write_reports == nullptr) return;
  for (int* fd : {&g_request[0], &g_request[1], &g_done[0], &g_done[1]}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
  g_flushing = false;
  g_signal = 0;
  StartWriter();
}

}  // namespace td

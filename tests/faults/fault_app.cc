// A host program that does to td what real programs do to a library they
// link: threads still recording when the program exits or calls
// td_finalize(), longjmp across markers, signals, fork variants, very deep
// and very wide region trees, too few file descriptors, huge traces.
// tests/faults/faults_test.cc runs one row of the fault matrix per scenario
// and checks that the exit code is the program's own and the files are right.
//
// Every scenario but the signal ones returns kExitCode, so a test can tell
// the program's own exit from one td caused.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "td/td.hpp"
#include "tests/support/build_paths.h"
#include "tests/support/sanitizers.h"

namespace {

constexpr int kExitCode = 7;

thread_local volatile double g_sink = 0;

void Work(int n) {
  for (int i = 0; i < n; ++i) g_sink = g_sink + i * 0.5;
}

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : fallback;
}

std::atomic<bool> g_stop{false};
std::atomic<long> g_pairs{0};

// The workers have started td and recorded a while: the race is with their
// markers, not with td's start-up.
void WaitForWorkersThenSleep() {
  while (g_pairs.load() < 200) usleep(100);
  usleep(static_cast<useconds_t>(EnvInt("FAULT_DELAY_US", 5000)));
}

// Dynamic names (a new region now and then) nested around a static one: the
// per-thread node vectors grow while the worker records.
void* RecordUntilStopped(void* arg) {
  const int worker = static_cast<int>(reinterpret_cast<intptr_t>(arg));
  for (long i = 0; !g_stop.load(std::memory_order_relaxed); ++i) {
    const std::string name = "w" + std::to_string(worker) + "_" + std::to_string(i % 2048);
    td_region_begin_name(name.c_str());
    TD_REGION_BEGIN("inner");
    Work(50);
    TD_REGION_END("inner");
    td_region_end_name(name.c_str());
    g_pairs.fetch_add(1, std::memory_order_relaxed);
  }
  return nullptr;
}

// main returns (exit() runs td's finalize) while two detached threads record.
int ExitRace() {
  for (intptr_t w = 0; w < 2; ++w) {
    pthread_t thread;
    pthread_create(&thread, nullptr, &RecordUntilStopped, reinterpret_cast<void*>(w));
    pthread_detach(thread);
  }
  WaitForWorkersThenSleep();
  return kExitCode;
}

// td_finalize() while two threads record, and they keep calling markers after it.
int FinalizeRace() {
  std::vector<pthread_t> threads(2);
  for (size_t w = 0; w < threads.size(); ++w) {
    pthread_create(&threads[w], nullptr, &RecordUntilStopped, reinterpret_cast<void*>(w));
  }
  WaitForWorkersThenSleep();
  td_finalize();
  usleep(5000);
  g_stop = true;
  for (pthread_t thread : threads) pthread_join(thread, nullptr);
  return kExitCode;
}

// td_finalize() on the main thread while a worker's first marker starts td
// (FAULT_DELAY_US apart): whichever comes first, a marker after finalize
// has returned is never recorded.
void* StartTd(void*) {
  TD_REGION_BEGIN("first");
  TD_REGION_END("first");
  return nullptr;
}

int FinalizeDuringStart() {
  pthread_t worker;
  if (pthread_create(&worker, nullptr, &StartTd, nullptr) != 0) return 2;
  usleep(static_cast<useconds_t>(EnvInt("FAULT_DELAY_US", 0)));
  td_finalize();
  const bool active_after = td_is_active() != 0;
  // Through the entry points the macros' inline flag does not guard.
  td_region_begin_name("after_finalize");
  td_region_end_name("after_finalize");
  pthread_join(worker, nullptr);
  td_region_begin_name("after_finalize");
  td_region_end_name("after_finalize");
  return active_after ? 4 : kExitCode;
}

// A library begins regions and is unloaded while they are open; a later
// END of another name, thread exit and finalize must not read the markers'
// records, which went with the library. FAULT_PLUGIN_THREAD=1: the regions
// are open on a thread that then ends.
void* PluginRegionsThenUnload(void*) {
  void* plugin = dlopen(TD_FAULT_PLUGIN.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (plugin == nullptr) {
    std::fprintf(stderr, "fault_app: %s\n", dlerror());
    return reinterpret_cast<void*>(1);
  }
  auto begin = reinterpret_cast<void (*)()>(dlsym(plugin, "fault_plugin_begin"));
  auto nested = reinterpret_cast<void (*)()>(dlsym(plugin, "fault_plugin_nested"));
  if (begin == nullptr || nested == nullptr) return reinterpret_cast<void*>(1);
  begin();
  nested();
  dlclose(plugin);
  TD_REGION_END("not_open");  // a mismatched END: its warning names the open region's site
  return nullptr;
}

int DlcloseOpenRegion() {
  TD_REGION_BEGIN("main");
  void* failed = nullptr;
  if (EnvInt("FAULT_PLUGIN_THREAD", 0) != 0) {
    pthread_t thread;
    if (pthread_create(&thread, nullptr, &PluginRegionsThenUnload, nullptr) != 0) return 2;
    pthread_join(thread, &failed);
  } else {
    failed = PluginRegionsThenUnload(nullptr);
  }
  TD_REGION_END("main");
  return failed == nullptr ? kExitCode : 2;
}

// Markers in a SIGALRM handler at 10 kHz while the program runs marker
// pairs: a handler that interrupts td (inside a marker, or td's start-up on
// this thread) finds its markers ignored; one that interrupts the program
// records them. FAULT_TIMER_FIRST=1 starts the timer before td's first use.
void TickHandler(int) {
  const int saved_errno = errno;
  TD_REGION_BEGIN("tick");
  TD_REGION_END("tick");
  errno = saved_errno;
}

int SignalMarkers() {
  struct sigaction action {};
  action.sa_handler = &TickHandler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  if (sigaction(SIGALRM, &action, nullptr) != 0) return 2;
  const itimerval every_100us{{0, 100}, {0, 100}};
  const itimerval stop{};
  const bool timer_first = EnvInt("FAULT_TIMER_FIRST", 0) != 0;
  if (timer_first) setitimer(ITIMER_REAL, &every_100us, nullptr);
  if (EnvInt("FAULT_INIT_FIRST", 0) != 0) td_init();  // start-up without a marker, ticking
  TD_REGION_BEGIN("work");
  if (!timer_first) setitimer(ITIMER_REAL, &every_100us, nullptr);
  const int pairs = EnvInt("FAULT_PAIRS", 50000);
  for (int i = 0; i < pairs; ++i) {
    TD_REGION_BEGIN("pair");
    TD_REGION_END("pair");
  }
  setitimer(ITIMER_REAL, &stop, nullptr);
  TD_REGION_END("work");
  return kExitCode;
}

jmp_buf g_jump;

// longjmp out of two open regions to a point inside the outer one.
int LongjmpAcrossMarkers() {
  TD_REGION_BEGIN("outer");
  if (setjmp(g_jump) == 0) {
    TD_REGION_BEGIN("inner");
    TD_REGION_BEGIN("innermost");
    Work(1000);
    longjmp(g_jump, 1);
  }
  TD_REGION_END("outer");
  TD_REGION_BEGIN("after");
  TD_REGION_END("after");
  return kExitCode;
}

// 10,000 distinct regions nested in one another.
void Nest(int depth, int limit) {
  if (depth == limit) return;
  const std::string name = "d" + std::to_string(depth);
  td_region_begin_name(name.c_str());
  Nest(depth + 1, limit);
  td_region_end_name(name.c_str());
}

int Deep() {
  Nest(0, EnvInt("FAULT_REGIONS", 10000));
  return kExitCode;
}

// 10,000 sibling regions of one call each, under one parent.
int Wide() {
  TD_REGION_BEGIN("parent");
  const int regions = EnvInt("FAULT_REGIONS", 10000);
  for (int i = 0; i < regions; ++i) {
    const std::string name = "r" + std::to_string(i);
    td_region_begin_name(name.c_str());
    td_region_end_name(name.c_str());
  }
  TD_REGION_END("parent");
  return kExitCode;
}

void* OneRegion(void*) {
  TD_REGION_BEGIN("work");
  Work(1000);
  TD_REGION_END("work");
  return nullptr;
}

pthread_barrier_t g_all_attached;

void* OneRegionThenWait(void* arg) {
  OneRegion(arg);
  pthread_barrier_wait(&g_all_attached);  // keeps this thread's descriptors until every thread has tried
  return nullptr;
}

// 150 threads alive together with 16 file descriptors: most cannot open counters.
int FewFileDescriptors() {
  // td starts, and this thread records, before the limit: under UBSan the
  // first check of a virtual call reads /proc/self/maps, which needs a
  // descriptor; it is then cached for the threads that follow.
  OneRegion(nullptr);
  rlimit limit{16, 16};
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return 3;
  std::vector<pthread_t> threads(150);
  pthread_barrier_init(&g_all_attached, nullptr, static_cast<unsigned>(threads.size()));
  for (pthread_t& thread : threads) pthread_create(&thread, nullptr, &OneRegionThenWait, nullptr);
  for (pthread_t thread : threads) pthread_join(thread, nullptr);
  pthread_barrier_destroy(&g_all_attached);
  return kExitCode;
}

// At exit no descriptor can be opened (soft limit 3: stdin, stdout and
// stderr), so the JSON file can be created neither in TD_OUTPUT_DIR nor in
// the fallback directory. The limit comes back after td finalized, before
// the sanitizers' exit checks, which read /proc.
rlimit g_descriptors_before{};
void RestoreDescriptors() { setrlimit(RLIMIT_NOFILE, &g_descriptors_before); }

int NoDescriptorAtExit() {
  if (getrlimit(RLIMIT_NOFILE, &g_descriptors_before) != 0) return 3;
  std::atexit(&RestoreDescriptors);  // before td starts: runs after td's own exit handler
  OneRegion(nullptr);
  rlimit limit = g_descriptors_before;
  limit.rlim_cur = 3;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return 3;
  return kExitCode;
}

// The child leaves by exit(), _exit() or exec; the parent reports its own.
int ForkThen(const std::string& how) {
  TD_REGION_BEGIN("before_fork");
  Work(1000);
  const pid_t child = fork();
  if (child == 0) {
    TD_REGION_BEGIN("in_child");
    Work(1000);
    TD_REGION_END("in_child");
    TD_REGION_END("before_fork");
    if (how == "exit") std::exit(kExitCode + 1);
    if (how == "_exit") _exit(kExitCode + 2);
    execl("/bin/sh", "sh", "-c", "exit 10", static_cast<char*>(nullptr));
    _exit(99);
  }
  int status = 0;
  waitpid(child, &status, 0);
  TD_REGION_END("before_fork");
  std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return kExitCode;
}

// fork() again and again while two threads record (their per-thread vectors
// grow under their markers): every child records a region of its own and
// exits by exit(), so td writes its file; the parent prints how many
// children exited with their own status.
int ForkWhileThreadsRecord() {
  std::vector<pthread_t> threads(2);
  for (size_t w = 0; w < threads.size(); ++w) {
    pthread_create(&threads[w], nullptr, &RecordUntilStopped, reinterpret_cast<void*>(w));
  }
  while (g_pairs.load() < 200) usleep(100);
  const int forks = EnvInt("FAULT_FORKS", 20);
  int kept = 0;
  for (int i = 0; i < forks; ++i) {
    const pid_t child = fork();
    if (child == 0) {
      TD_REGION_BEGIN("in_child");
      Work(1000);
      TD_REGION_END("in_child");
      std::exit(kExitCode + 1);
    }
    int status = 0;
    if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
        WEXITSTATUS(status) == kExitCode + 1) {
      ++kept;
    }
  }
  g_stop = true;
  for (pthread_t thread : threads) pthread_join(thread, nullptr);
  std::printf("children kept their status: %d of %d\n", kept, forks);
  return kExitCode;
}

// Closes every descriptor from 3 to 1023 once td's counters are open, then
// opens a file of its own, once or (FAULT_FILL=1) on every free number, td's
// old numbers among them, and records on. The program's offsets must stay
// where it left them; the files it reads are its own.
int ReuseClosedDescriptors() {
  // FAULT_NOFILE: too low a limit for td to move its descriptors up, so the
  // program's file gets td's very number.
  if (const int limit = EnvInt("FAULT_NOFILE", 0); limit > 0) {
    const rlimit low{static_cast<rlim_t>(limit), static_cast<rlim_t>(limit)};
    setrlimit(RLIMIT_NOFILE, &low);
  }
  const char* data = "fault_app_data.txt";
  if (FILE* f = std::fopen(data, "w")) {
    std::fputs("the program's own bytes, which td must neither read nor move\n", f);
    std::fclose(f);
  }
  TD_REGION_BEGIN("before_closing");
  Work(1000);
  TD_REGION_END("before_closing");
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  const int wanted = EnvInt("FAULT_FILL", 0) != 0 ? 1021 : 1;
  std::vector<int> fds;
  for (int i = 0; i < wanted; ++i) {
    const int fd = open(data, O_RDONLY);
    if (fd < 0) break;
    fds.push_back(fd);
  }
  for (int i = 0; i < 100; ++i) {
    TD_REGION_BEGIN("after_closing");
    Work(100);
    TD_REGION_END("after_closing");
  }
  int moved = 0;
  for (int fd : fds) moved += lseek(fd, 0, SEEK_CUR) != 0;
  char first[8] = {};
  const bool intact = !fds.empty() && read(fds.back(), first, 7) == 7 && std::strcmp(first, "the pro") == 0;
  for (int fd : fds) close(fd);
  std::printf("descriptors %zu, offsets moved %d, content %s\n", fds.size(), moved, intact ? "intact" : "changed");
  return kExitCode;
}

// A name per item (FAULT_NAMES of them, dynamic), and as many values of a
// parameterised region: the program that would fill memory with names.
int ManyNames() {
  const int names = EnvInt("FAULT_NAMES", 5000);
  for (int i = 0; i < names; ++i) {
    const std::string name = "item_" + std::to_string(i);
    td_region_begin_name(name.c_str());
    td_region_end_name(name.c_str());
  }
  for (int i = 0; i < names; ++i) {
    TD_REGION_BEGIN_P("size", i);
    TD_REGION_END_P("size", i);
  }
  return kExitCode;
}

// Killed by a signal while a region is open.
int Signal(int signal_number) {
  TD_REGION_BEGIN("done");
  Work(1000);
  TD_REGION_END("done");
  TD_REGION_BEGIN("interrupted");
  Work(1000);
  std::fflush(stdout);
  std::raise(signal_number);
  usleep(100000);  // a handler that returns lets the signal's default action happen here
  return kExitCode;
}

// Many begin/end pairs traced on one thread; with TD_TRACE_MEMORY small,
// the ring stops growing and keeps the newest events.
int ManyTracedPairs() {
  const bool sanitized = td::sanitizers::kAddress || td::sanitizers::kThread;
  // Sanitizers reserve terabytes of address space: an address-space limit
  // would stop them, not td.
  if (EnvInt("FAULT_ADDRESS_SPACE_MB", 0) > 0 && !sanitized) {
    const rlim_t bytes = static_cast<rlim_t>(EnvInt("FAULT_ADDRESS_SPACE_MB", 0)) << 20;
    rlimit limit{bytes, bytes};
    if (setrlimit(RLIMIT_AS, &limit) != 0) return 3;
  }
  const int pairs = EnvInt("FAULT_PAIRS", 100000);
  for (int i = 0; i < pairs; ++i) {
    TD_REGION_BEGIN("pair");
    TD_REGION_END("pair");
  }
  // FAULT_HEADROOM_AT_EXIT_MB: the address space capped at what is mapped
  // now plus this much, so that the trace's text cannot be made at exit.
  if (EnvInt("FAULT_HEADROOM_AT_EXIT_MB", 0) > 0 && !sanitized) {
    long pages = 0;
    if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
      std::fclose(statm);
    }
    if (pages <= 0) return 3;
    const rlim_t bytes = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) +
                         (static_cast<rlim_t>(EnvInt("FAULT_HEADROOM_AT_EXIT_MB", 0)) << 20);
    rlimit limit{bytes, bytes};
    if (setrlimit(RLIMIT_AS, &limit) != 0) return 3;
  }
  return kExitCode;
}

// A thread blocked inside a marker: its warning goes to a full pipe that
// nobody reads. Finalize must not wait for it for ever, nor deadlock on the
// lock or the stream that thread holds.
int g_saved_stderr = -1;

void* EndWithNothingOpen(void*) {
  TD_REGION_END("never_begun");  // warns, and the write to the full pipe blocks
  return nullptr;
}

int StuckMarker() {
  td_init();  // start-up lines go to the real stderr
  TD_REGION_BEGIN("main_work");
  TD_REGION_END("main_work");
  g_saved_stderr = dup(STDERR_FILENO);
  int full[2];
  if (g_saved_stderr < 0 || pipe(full) != 0) return 3;
  fcntl(full[1], F_SETFL, O_NONBLOCK);
  char block[4096] = {};
  while (write(full[1], block, sizeof block) > 0) {
  }
  fcntl(full[1], F_SETFL, 0);
  dup2(full[1], STDERR_FILENO);
  pthread_t thread;
  pthread_create(&thread, nullptr, &EndWithNothingOpen, nullptr);
  pthread_detach(thread);
  usleep(200000);
  dup2(g_saved_stderr, STDERR_FILENO);  // td's finalize lines reach the test again
  td_finalize();
  return kExitCode;
}

// The program handles SIGTERM itself; TD_SIGNALS must leave that alone.
volatile sig_atomic_t g_own_handler_ran = 0;
void OwnHandler(int) { g_own_handler_ran = 1; }

int OwnSigtermHandler() {
  std::signal(SIGTERM, &OwnHandler);
  TD_REGION_BEGIN("before");  // td starts here, after the program's handler is in place
  TD_REGION_END("before");
  std::raise(SIGTERM);
  return g_own_handler_ran ? kExitCode : 3;
}

// Names td cannot use as they are.
int OddNames() {
  td_region_begin_name(nullptr);
  td_region_end_name(nullptr);
  td_region_begin_name(nullptr);
  td_region_begin_name("");
  td_region_end_name("");
  TD_REGION_BEGIN("");
  TD_REGION_END("");
  return kExitCode;
}

// A thread whose cancellation is pending when its first marker starts td:
// td's start-up reaches cancellation points (files opened, lines written),
// where the thread must not be unwound half-way through td; it is cancelled
// at its own next cancellation point instead, after td is done.
pthread_barrier_t g_cancel_barrier;

void* CancelledWorker(void*) {
  pthread_barrier_wait(&g_cancel_barrier);
  pthread_barrier_wait(&g_cancel_barrier);  // no cancellation point: the cancel stays pending
  TD_REGION_BEGIN("cancelled");
  Work(100);
  pthread_testcancel();  // the thread's own cancellation point
  TD_REGION_END("cancelled");
  return nullptr;
}

int CancelInStartUp() {
  pthread_barrier_init(&g_cancel_barrier, nullptr, 2);
  pthread_t worker;
  if (pthread_create(&worker, nullptr, CancelledWorker, nullptr) != 0) return 2;
  pthread_barrier_wait(&g_cancel_barrier);
  pthread_cancel(worker);
  pthread_barrier_wait(&g_cancel_barrier);
  void* result = nullptr;
  pthread_join(worker, &result);
  TD_REGION_BEGIN("after");
  TD_REGION_END("after");
  return result == PTHREAD_CANCELED ? kExitCode : 3;
}

// TD_FLUSH_INTERVAL: two workers record (their node vectors growing) while
// the main thread works in "working" for FAULT_WORK_MS, then the process
// names its threads on stdout and is killed outright, as by the OOM killer:
// all that is left of the run is what the periodic flush wrote.
int FlushThenKill() {
  TD_REGION_BEGIN("working");
  pthread_t workers[2];
  for (intptr_t w = 0; w < 2; ++w) pthread_create(&workers[w], nullptr, &RecordUntilStopped, reinterpret_cast<void*>(w));
  timespec start{}, now{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  const long work_ns = EnvInt("FAULT_WORK_MS", 2500) * 1000000L;
  do {
    TD_REGION_BEGIN("step");
    Work(10000);
    TD_REGION_END("step");
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < work_ns);
  DIR* tasks = opendir("/proc/self/task");
  for (const dirent* task = tasks != nullptr ? readdir(tasks) : nullptr; task != nullptr; task = readdir(tasks)) {
    char name[32] = {0};
    const int fd = open(("/proc/self/task/" + std::string(task->d_name) + "/comm").c_str(), O_RDONLY);
    if (fd < 0) continue;
    if (read(fd, name, sizeof name - 1) > 0) std::printf("thread: %s", name);
    close(fd);
  }
  std::fflush(stdout);
  std::raise(SIGKILL);
  return kExitCode;
}

int Nested() {
  TD_REGION_BEGIN("outer");
  TD_REGION_BEGIN("inner");
  Work(1000);
  TD_REGION_END("inner");
  TD_REGION_END("outer");
  return kExitCode;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "exit_race") return ExitRace();
  if (scenario == "finalize_race") return FinalizeRace();
  if (scenario == "longjmp") return LongjmpAcrossMarkers();
  if (scenario == "deep") return Deep();
  if (scenario == "wide") return Wide();
  if (scenario == "few_fds") return FewFileDescriptors();
  if (scenario == "no_fd_at_exit") return NoDescriptorAtExit();
  if (scenario == "fork_exit") return ForkThen("exit");
  if (scenario == "fork__exit") return ForkThen("_exit");
  if (scenario == "fork_exec") return ForkThen("exec");
  if (scenario == "fork_while_recording") return ForkWhileThreadsRecord();
  if (scenario == "reuse_closed_fds") return ReuseClosedDescriptors();
  if (scenario == "many_names") return ManyNames();
  if (scenario == "sigterm") return Signal(SIGTERM);
  if (scenario == "sigint") return Signal(SIGINT);
  if (scenario == "traced_pairs") return ManyTracedPairs();
  if (scenario == "odd_names") return OddNames();
  if (scenario == "stuck_marker") return StuckMarker();
  if (scenario == "own_sigterm_handler") return OwnSigtermHandler();
  if (scenario == "nested") return Nested();
  if (scenario == "cancel_in_start_up") return CancelInStartUp();
  if (scenario == "finalize_during_start") return FinalizeDuringStart();
  if (scenario == "dlclose_open_region") return DlcloseOpenRegion();
  if (scenario == "signal_markers") return SignalMarkers();
  if (scenario == "flush_then_kill") return FlushThenKill();
  std::fprintf(stderr, "fault_app: unknown scenario \"%s\"\n", scenario.c_str());
  return 2;
}

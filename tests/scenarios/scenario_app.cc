// A user program with one behaviour per scenario name. The scenario tests run
// it as a child process against the shared library, exactly as a user would,
// and check the JSON it leaves behind.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <omp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "td/td.hpp"

namespace {

// Per thread: a result nobody reads, so the compiler keeps the work; one
// shared variable would be a data race between spinning threads.
thread_local volatile double g_sink = 0;

int64_t ThreadCpuNs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Burns `duration` of this thread's CPU time (not wall time), so that the
// thread really ran that long however loaded the machine is; wall time is
// then at least as long.
void Spin(std::chrono::microseconds duration) {
  const int64_t end = ThreadCpuNs() + duration.count() * 1000;
  double x = 1.0;
  while (ThreadCpuNs() < end) {
    for (int i = 0; i < 1000; ++i) x = x * 1.0000001 + 1e-9;
  }
  g_sink = x;
}

void Nested() {
  TD_REGION_BEGIN("outer");
  Spin(std::chrono::milliseconds(5));
  TD_REGION_BEGIN("inner_a");
  Spin(std::chrono::milliseconds(10));
  TD_REGION_BEGIN("leaf");
  Spin(std::chrono::milliseconds(5));
  TD_REGION_END("leaf");
  TD_REGION_END("inner_a");
  for (int i = 0; i < 3; ++i) {
    TD_REGION_BEGIN("inner_b");
    Spin(std::chrono::milliseconds(2));
    TD_REGION_END("inner_b");
  }
  TD_REGION_END("outer");
}

int Recurse(int depth) {
  TD_SCOPE("recurse");
  Spin(std::chrono::milliseconds(2));
  return depth == 0 ? 0 : 1 + Recurse(depth - 1);
}

void* ThreadBody(void* result) {
  long sum = 0;
  for (int i = 0; i < 100; ++i) {
    TD_REGION_BEGIN("work");
    sum += i;
    TD_REGION_END("work");
  }
  *static_cast<long*>(result) = sum;
  return nullptr;
}

void Pthreads() {
  std::vector<pthread_t> threads(8);
  std::vector<long> sums(threads.size());
  for (size_t i = 0; i < threads.size(); ++i) {
    pthread_create(&threads[i], nullptr, &ThreadBody, &sums[i]);
  }
  for (auto& t : threads) pthread_join(t, nullptr);
  for (long s : sums) g_sink = g_sink + static_cast<double>(s);
}

void OpenMp() {
  omp_set_num_threads(4);
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    for (int i = 0; i < 50; ++i) {
      TD_REGION_BEGIN("omp_work");
      total += omp_get_thread_num() + i;
      TD_REGION_END("omp_work");
    }
  }
  g_sink = total;
}

// Regions around `omp parallel` on the calling thread (docs/hpc.md#openmp-teams),
// a team of 4: the same name inside and around it; a region ("solve") around a
// team region of another name ("step"); and one with no markers inside.
void OpenMpOuter() {
  omp_set_num_threads(4);
  TD_REGION_BEGIN("team");
#pragma omp parallel
  {
    TD_REGION_BEGIN("team");
    Spin(std::chrono::milliseconds(1 + omp_get_thread_num()));
    TD_REGION_END("team");
  }
  TD_REGION_END("team");
  TD_REGION_BEGIN("solve");
  for (int i = 0; i < 2; ++i) {
#pragma omp parallel
    {
      TD_REGION_BEGIN("step");
      Spin(std::chrono::milliseconds(1 + omp_get_thread_num()));
      TD_REGION_END("step");
    }
  }
  TD_REGION_END("solve");
  TD_REGION_BEGIN("unmarked");
#pragma omp parallel
  Spin(std::chrono::milliseconds(2));
  TD_REGION_END("unmarked");
}

void ThreadExitsEarly() {
  std::thread early([] {
    TD_REGION_BEGIN("early_work");
    Spin(std::chrono::milliseconds(3));
    TD_REGION_END("early_work");
    TD_REGION_BEGIN("left_open");  // never ended: closed when the thread exits
    Spin(std::chrono::milliseconds(1));
  });
  early.join();
  TD_REGION_BEGIN("main_work");
  Spin(std::chrono::milliseconds(3));
  TD_REGION_END("main_work");
}

void Mismatch() {
  for (int i = 0; i < 10; ++i) {
    TD_REGION_BEGIN("a");
    TD_REGION_BEGIN("b");
    Spin(std::chrono::microseconds(200));
    TD_REGION_END("a");  // b forgotten: a closes it
  }
  TD_REGION_END("zzz");  // nothing open
  TD_REGION_BEGIN("good");
  Spin(std::chrono::milliseconds(1));
  TD_REGION_END("good");
}

void Unterminated() {
  TD_REGION_BEGIN("never_closed");
  Spin(std::chrono::milliseconds(2));
}

// Exactly two instructions per iteration (dec, jnz): 20,000,000 in all, for
// checking hardware instruction counts to 1 %.
void KnownLoop() {
  TD_REGION_BEGIN("known_loop");
#if defined(__x86_64__)
  uint64_t n = 10000000;
  asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#endif
  TD_REGION_END("known_loop");
}

// td's own cost (TD_COMPENSATE): 20,000 empty regions, then a fixed piece of
// arithmetic timed once without markers (its time printed on stdout as
// "work_cpu_ns N", thread CPU time) and once inside "work" split by 10,000
// empty "tick" pairs.
double g_marker_sink = 0;
void WorkChunk(int chunk) {
  double x = 1.0 + chunk;
  for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 0.5 / (x + i);
  g_marker_sink = g_marker_sink + x;
}
void MarkerCost() {
  for (int i = 0; i < 20000; ++i) {
    TD_REGION_BEGIN("empty");
    TD_REGION_END("empty");
  }
  constexpr int kChunks = 10000;
  for (int c = 0; c < kChunks; ++c) WorkChunk(c);  // warm up
  // CPU time, not wall time: what a busy machine's other processes do not change.
  timespec start{}, end{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  for (int c = 0; c < kChunks; ++c) WorkChunk(c);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
  std::printf("work_cpu_ns %lld\n", static_cast<long long>(end.tv_sec - start.tv_sec) * 1000000000LL +
                                         (end.tv_nsec - start.tv_nsec));
  TD_REGION_BEGIN("work");
  for (int c = 0; c < kChunks; ++c) {
    WorkChunk(c);
    TD_REGION_BEGIN("tick");
    TD_REGION_END("tick");
  }
  TD_REGION_END("work");
}

// MarkerCost with its tick region read on one call in ten (td_region_sample),
// and a second interval asked for once tick has run: refused with one line.
void MarkerCostTickSampled() {
  td_region_sample("tick", 10);
  MarkerCost();
  td_region_sample("tick", 5);
}

void Sleep50() {
  TD_REGION_BEGIN("sleep");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  TD_REGION_END("sleep");
}

void FirstTouch64MiB() {
  const size_t bytes = size_t{64} << 20;
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return;
  madvise(memory, bytes, MADV_NOHUGEPAGE);  // one fault per 4 KiB page
  auto* bytes_ptr = static_cast<volatile char*>(memory);
  // The kernel's own per-thread count, taken inside the region, is the
  // baseline the test compares td's count with: sanitizers' shadow memory
  // adds faults in amounts that differ between machines.
  struct rusage before, after;
  TD_REGION_BEGIN("first_touch");
  getrusage(RUSAGE_THREAD, &before);
  for (size_t i = 0; i < bytes; i += 4096) bytes_ptr[i] = 1;
  getrusage(RUSAGE_THREAD, &after);
  TD_REGION_END("first_touch");
  munmap(memory, bytes);
  std::printf("minflt=%ld\n", after.ru_minflt - before.ru_minflt);
}

int Fork() {
  TD_REGION_BEGIN("before_fork");
  Spin(std::chrono::milliseconds(2));
  TD_REGION_END("before_fork");
  TD_REGION_BEGIN("around_fork");
  const pid_t child = fork();
  if (child == 0) {
    TD_REGION_BEGIN("child_work");
    Spin(std::chrono::milliseconds(2));
    TD_REGION_END("child_work");
    TD_REGION_END("around_fork");
    std::exit(0);  // normal exit: the child writes its own report
  }
  int status = 0;
  waitpid(child, &status, 0);
  TD_REGION_END("around_fork");
  std::printf("child=%d\n", static_cast<int>(child));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

void AfterFinalize() {
  TD_REGION_BEGIN("counted");
  TD_REGION_END("counted");
  td_finalize();
  td_finalize();
  TD_REGION_BEGIN("ignored");
  TD_REGION_END("ignored");
  std::printf("active=%d\n", td_is_active());
}

// Makes perf_event_open fail with EPERM, as a container's seccomp profile does.
bool BlockPerfEventOpen() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program = {static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
  return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

void ScopeWithException() {
  try {
    TD_SCOPE("throws");
    Spin(std::chrono::milliseconds(1));
    throw std::runtime_error("boom");
  } catch (const std::exception&) {
  }
  TD_SCOPE("after");
}

void Sweep() {
  for (int block = 1; block <= 3; ++block) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      TD_REGION_BEGIN_P("block", block * 16);
      Spin(std::chrono::microseconds(1000 * block));
      TD_REGION_END_P("block", block * 16);
    }
    TD_SCOPE_P("scoped", -block);
  }
}

void DynamicNames() {
  for (int i = 0; i < 3; ++i) {
    const std::string name = "phase_" + std::to_string(i);
    td_region_begin_name(name.c_str());
    Spin(std::chrono::microseconds(300));
    td_region_end_name(name.c_str());
  }
}

// Four threads, each burning CPU time in a region of its own: every thread
// opens counters, and task-clock has something to count on each.
void* SpinInRegion(void*) {
  TD_REGION_BEGIN("spin");
  Spin(std::chrono::milliseconds(5));
  TD_REGION_END("spin");
  return nullptr;
}

void FourThreads() {
  std::vector<pthread_t> threads(4);
  for (auto& t : threads) pthread_create(&t, nullptr, &SpinInRegion, nullptr);
  for (auto& t : threads) pthread_join(t, nullptr);
}

// Names that are byte strings, not text: invalid UTF-8, a '/', control
// bytes, a backslash sequence that reads like an escape, a would-be formula.
void OddNames() {
  TD_REGION_BEGIN("\xff\xfe");
  Spin(std::chrono::microseconds(200));
  TD_REGION_END("\xff\xfe");
  const char lone[] = {'x', static_cast<char>(0xc3), 0};
  td_region_begin_name(lone);
  Spin(std::chrono::microseconds(200));
  td_region_end_name(lone);
  TD_REGION_BEGIN("a/b");
  TD_REGION_BEGIN("c");
  Spin(std::chrono::microseconds(200));
  TD_REGION_END("c");
  TD_REGION_END("a/b");
  TD_REGION_BEGIN("a");
  TD_REGION_BEGIN("b/c");
  Spin(std::chrono::microseconds(200));
  TD_REGION_END("b/c");
  TD_REGION_END("a");
  TD_REGION_BEGIN("\x1b[31mred\x1b[0m\a");
  Spin(std::chrono::microseconds(200));
  TD_REGION_END("\x1b[31mred\x1b[0m\a");
  TD_REGION_BEGIN("lit\\xe9\\");
  Spin(std::chrono::microseconds(200));
  TD_REGION_END("lit\\xe9\\");
  TD_REGION_BEGIN("=HYPERLINK(\"http://x\")");
  Spin(std::chrono::microseconds(200));
  TD_REGION_END("=HYPERLINK(\"http://x\")");
}

// One rank of an MPI job with uneven work, as the launcher's variables say:
// rank r spends (r + 1) ms of CPU per call of "solve"; ranks above 0 also "halo".
void RankWork() {
  const char* rank_text = std::getenv("OMPI_COMM_WORLD_RANK");
  const int rank = rank_text != nullptr ? std::atoi(rank_text) : 0;
  for (int step = 0; step < 3; ++step) {
    TD_REGION_BEGIN("solve");
    Spin(std::chrono::microseconds(1000 * (rank + 1)));
    TD_REGION_END("solve");
    if (rank > 0) {
      TD_REGION_BEGIN("halo");
      Spin(std::chrono::microseconds(300));
      TD_REGION_END("halo");
    }
  }
}

// Per-call times (docs/usage.md#per-call-times): "step" takes 1 ms of CPU
// on 36 calls and 8 ms on every 10th of 40; "steady" 500 µs on each of 20.
void Jitter() {
  for (int call = 0; call < 40; ++call) {
    TD_REGION_BEGIN("step");
    Spin(std::chrono::microseconds(call % 10 == 9 ? 8000 : 1000));
    TD_REGION_END("step");
  }
  for (int call = 0; call < 20; ++call) {
    TD_REGION_BEGIN("steady");
    Spin(std::chrono::microseconds(500));
    TD_REGION_END("steady");
  }
}

// A process with this pid in another pid namespace (a container sharing the
// output directory) already wrote its report under the name td picks.
void PidTwin() {
  const std::string name = "td-td_scenario_app-" + std::to_string(getpid());
  for (const char* suffix : {".json", ".trace.json"}) {
    if (std::FILE* twin = std::fopen((name + suffix).c_str(), "wx")) {
      std::fputs("{\"twin\": \"not td's file from this run\"}\n", twin);
      std::fclose(twin);
    }
  }
  Nested();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc > 1 ? argv[1] : "nested";
  if (scenario == "nested") Nested();
  else if (scenario == "recursion") g_sink = Recurse(5);
  else if (scenario == "pthreads") Pthreads();
  else if (scenario == "openmp") OpenMp();
  else if (scenario == "openmp_outer") OpenMpOuter();
  else if (scenario == "thread_exit") ThreadExitsEarly();
  else if (scenario == "mismatch") Mismatch();
  else if (scenario == "unterminated") Unterminated();
  else if (scenario == "sleep50") Sleep50();
  else if (scenario == "marker_cost") MarkerCost();
  else if (scenario == "marker_cost_tick_sampled") MarkerCostTickSampled();
  else if (scenario == "pagefaults") FirstTouch64MiB();
  else if (scenario == "fork") return Fork();
  else if (scenario == "after_finalize") AfterFinalize();
  else if (scenario == "seccomp") {
    if (!BlockPerfEventOpen()) return 3;
    Nested();
  } else if (scenario == "scope") ScopeWithException();
  else if (scenario == "dynamic") DynamicNames();
  else if (scenario == "sweep") Sweep();
  else if (scenario == "known_loop") KnownLoop();
  else if (scenario == "odd_names") OddNames();
  else if (scenario == "pid_twin") PidTwin();
  else if (scenario == "four_threads") FourThreads();
  else if (scenario == "rank_work") RankWork();
  else if (scenario == "jitter") Jitter();
  else if (scenario == "exit3") {  // td run passes a failing program's status on
    Nested();
    return 3;
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", scenario.c_str());
    return 2;
  }
  return 0;
}

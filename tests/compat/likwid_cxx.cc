// A C++ program instrumented for LIKWID's marker API (likwid-marker.h,
// -DLIKWID_PERFMON), built against the real liblikwid: the markers behind a
// scope guard, two std::threads with regions of their own, and GET on each
// thread, which must answer that thread's figures alone. Lines starting "get"
// depend on who answers GET; every other line and the exit status 5 must not
// change under td (compat_test.sh preload-cxx, td-run-cxx).
#include <likwid-marker.h>

#include <cstdio>
#include <thread>
#include <vector>

namespace {

volatile double sink;

void Work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.25;
  sink = s;
}

// What C++ code often wraps around LIKWID's macros.
class MarkerScope {
 public:
  explicit MarkerScope(const char* name) : name_(name) { LIKWID_MARKER_START(name_); }
  ~MarkerScope() { LIKWID_MARKER_STOP(name_); }
  MarkerScope(const MarkerScope&) = delete;
  MarkerScope& operator=(const MarkerScope&) = delete;

 private:
  const char* name_;
};

// Thread `id` runs its region 3 + id times, then asks GET for it.
void Worker(int id, int* count) {
  LIKWID_MARKER_THREADINIT;
  for (int i = 0; i < 3 + id; ++i) {
    MarkerScope scope("thread_work");
    Work(50000);
  }
  int nevents = 16;
  double events[16];
  double time = 0;
  *count = -1;
  LIKWID_MARKER_GET("thread_work", &nevents, events, &time, count);
}

}  // namespace

int main() {
  LIKWID_MARKER_INIT;
  int counts[2] = {-1, -1};
  {
    MarkerScope all("cxx_main");
    std::vector<std::thread> threads;
    for (int id = 0; id < 2; ++id) threads.emplace_back(Worker, id, &counts[id]);
    for (std::thread& t : threads) t.join();
    for (int i = 0; i < 5; ++i) {
      MarkerScope serial("serial");
      Work(20000);
    }
  }
  std::printf("get: thread 0 count=%d thread 1 count=%d\n", counts[0], counts[1]);
  int nevents = 16;
  double events[16];
  double time = 0;
  int count = -1;
  LIKWID_MARKER_GET("thread_work", &nevents, events, &time, &count);
  std::printf("get: main thread thread_work count=%d\n", count);
  nevents = 16;
  LIKWID_MARKER_GET("serial", &nevents, events, &time, &count);
  std::printf("getv: path=cxx_main/serial cap=16 count=%d nevents=%d time=%.17g events=", count, nevents, time);
  for (int i = 0; i < nevents; ++i) std::printf("%s%.17g", i != 0 ? "," : "", events[i]);
  std::printf("\n");
  LIKWID_MARKER_CLOSE;
  std::printf("likwid_cxx done\n");
  return 5;
}

// A C++ program instrumented for PAPI's high-level API, built against the
// real libpapi: regions behind a scope guard, nested, in two std::threads,
// and a reading. Lines starting "rc:" report what the API returned (real
// PAPI on a machine where it cannot count fails every call); every other
// line and the exit status 6 must not change under td (compat_test.sh
// preload-cxx, td-run-cxx).
#include <papi.h>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

volatile double sink;
std::atomic<int> failures{0};
std::atomic<int> calls{0};

void Work(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.75;
  sink = s;
}

void Check(int rc) {
  ++calls;
  if (rc != PAPI_OK) ++failures;
}

class HlRegion {
 public:
  explicit HlRegion(const char* name) : name_(name) { Check(PAPI_hl_region_begin(name_)); }
  ~HlRegion() { Check(PAPI_hl_region_end(name_)); }
  HlRegion(const HlRegion&) = delete;
  HlRegion& operator=(const HlRegion&) = delete;

 private:
  const char* name_;
};

void Worker() {
  for (int i = 0; i < 4; ++i) {
    HlRegion region("worker");
    Work(30000);
  }
}

}  // namespace

int main() {
  {
    HlRegion all("cxx_main");
    for (int i = 0; i < 2; ++i) {
      HlRegion phase("phase");
      Work(20000);
      Check(PAPI_hl_read("phase"));
    }
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) threads.emplace_back(Worker);
    for (std::thread& t : threads) t.join();
  }
  std::printf("rc: %d calls, %d not PAPI_OK\n", calls.load(), failures.load());
  std::printf("papi_hl_cxx done\n");
  return 6;
}

// What finalize costs when many threads each ran many regions (docs/
// performance.md, "Many threads and regions at exit"): THREADS threads each
// enter and leave REGIONS distinct regions once, all under the top level;
// then the main thread calls td_finalize() and prints how long it took and
// how much the process' peak resident memory grew, per (thread, region).
//
//   td_finalize_scale [THREADS [REGIONS]]     (default 64 × 10,000)
//
// TD_OUTPUT / TD_JSON / TD_OUTPUT_DIR choose the outputs as for any program.
#include <sys/resource.h>
#include <td/td.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

long PeakRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 64;
  const int regions = argc > 2 ? std::atoi(argv[2]) : 10000;
  if (threads < 1 || regions < 1) {
    std::fprintf(stderr, "usage: %s [THREADS [REGIONS]]\n", argv[0]);
    return 2;
  }
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(regions));
  for (int r = 0; r < regions; ++r) names.push_back("region_" + std::to_string(r));
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&names] {
      for (const std::string& name : names) {
        td_region_begin_name(name.c_str());
        td_region_end_name(name.c_str());
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  const long before_kib = PeakRssKib();
  const auto start = std::chrono::steady_clock::now();
  td_finalize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long after_kib = PeakRssKib();
  const double parts = static_cast<double>(threads) * regions;
  std::printf("%d threads x %d regions: td_finalize %.3f s, peak RSS %ld -> %ld MiB, %.0f B added per (thread, region)\n",
              threads, regions, seconds, before_kib / 1024, after_kib / 1024,
              static_cast<double>(after_kib - before_kib) * 1024.0 / parts);
  return 0;
}

// What finalize costs when many threads each ran many regions (docs/
// performance.md, "Many threads and regions at exit"): THREADS threads each
// enter and leave REGIONS distinct regions once, all under the top level;
// then the main thread calls td_finalize() and prints how long it took and
// how much the process' peak resident memory grew, per (thread, region).
//
//   td_finalize_scale [THREADS [REGIONS [flush]]]     (default 64 × 10,000)
//
// With `flush` (and TD_FLUSH_INTERVAL=1 in the environment), the threads
// stay alive after their regions while the periodic flush writes the
// partial file twice more, and it prints what the last flush took: from
// its start (the file's partial.flushed_unix_ns) to the file's last write
// (its modification time), the partial file's size, and the peak RSS then.
//
// TD_OUTPUT / TD_JSON / TD_OUTPUT_DIR choose the outputs as for any program.
#include <errno.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/stat.h>
#include <td/td.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

long PeakRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// The partial file of this process in TD_OUTPUT_DIR (or .): how long its
// flush took and its size, one line; "" when there is none.
std::string DescribeLastFlush() {
  const char* dir = std::getenv("TD_OUTPUT_DIR");
  const std::string path = std::string(dir != nullptr ? dir : ".") + "/td-" + program_invocation_short_name + "-" +
                           std::to_string(getpid()) + ".json";
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("\"flushed_unix_ns\": ");
  struct stat st {};
  if (at == std::string::npos || stat(path.c_str(), &st) != 0) return "";
  const long long flushed_ns = std::atoll(text.c_str() + at + 19);
  const long long written_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  char line[256];
  std::snprintf(line, sizeof line, "last periodic flush: %.1f ms (start to last write), %.1f MB file, peak RSS %ld MiB",
                static_cast<double>(written_ns - flushed_ns) / 1e6, static_cast<double>(text.size()) / 1e6,
                PeakRssKib() / 1024);
  return line;
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
  const bool flush = argc > 3 && std::string(argv[3]) == "flush";
  std::atomic<int> done{0};
  std::atomic<bool> leave{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (const std::string& name : names) {
        td_region_begin_name(name.c_str());
        td_region_end_name(name.c_str());
      }
      ++done;
      while (flush && !leave.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    });
  }
  if (flush) {
    while (done.load() < threads) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // two flushes at TD_FLUSH_INTERVAL=1
    const std::string line = DescribeLastFlush();
    std::printf("%s\n", line.empty() ? "no partial file: is TD_FLUSH_INTERVAL=1 set?" : line.c_str());
    leave = true;
  }
  for (std::thread& worker : workers) worker.join();
  const long before_kib = PeakRssKib();
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = ProcessCpuSeconds();  // the workers are joined: this is finalize's
  td_finalize();
  const double cpu = ProcessCpuSeconds() - cpu_start;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long after_kib = PeakRssKib();
  const double parts = static_cast<double>(threads) * regions;
  std::printf("%d threads x %d regions: td_finalize %.3f s wall, %.3f s CPU, peak RSS %ld -> %ld MiB, "
              "%.0f B per (thread, region) counted whole, %.0f B of them added by finalize\n",
              threads, regions, seconds, cpu, before_kib / 1024, after_kib / 1024,
              static_cast<double>(after_kib) * 1024.0 / parts, static_cast<double>(after_kib - before_kib) * 1024.0 / parts);
  return 0;
}

// One rank of the job-view scale benchmark (benchmarks/job_view_scale.sh,
// docs/hpc.md "Scale"): 200 regions, each run on 8 threads, so that the run
// file it writes at exit is what a rank of a real job with that many regions
// and threads writes. Run it with a launcher's rank variables set
// (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, PMIX_NAMESPACE) and the file is
// a rank's; job_rank_files.py derives the other ranks' files from it.
// `td_job_rank_program THREADS` runs that many threads instead (16 make the
// derived files about 1 MB each).
//
// The regions: main > 9 phases > 21 kernels each, and main > io
// (1 + 9 + 189 + 1 = 200), every thread running every one of them a few
// times with a little CPU work inside.
#include <td/td.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kDefaultThreads = 8;
constexpr int kPhases = 9;
constexpr int kKernelsPerPhase = 21;
constexpr int kCallsPerKernel = 3;

volatile double g_sink = 0;

// About `units` × a microsecond of arithmetic, different per thread.
void Work(int units, int thread) {
  double x = 1.0 + thread;
  for (int i = 0; i < units * 200; ++i) x = x * 1.0000001 + 0.5 / (x + i);
  g_sink = g_sink + x;
}

void Thread(int thread) {
  td_region_begin_name("main");
  for (int p = 0; p < kPhases; ++p) {
    const std::string phase = "phase_" + std::to_string(p);
    td_region_begin_name(phase.c_str());
    for (int k = 0; k < kKernelsPerPhase; ++k) {
      const std::string kernel = "kernel_" + std::to_string(p) + "_" + std::to_string(k);
      for (int c = 0; c < kCallsPerKernel; ++c) {
        td_region_begin_name(kernel.c_str());
        Work(1 + (k + thread) % 7, thread);
        td_region_end_name(kernel.c_str());
      }
    }
    td_region_end_name(phase.c_str());
  }
  td_region_begin_name("io");
  Work(5, thread);
  td_region_end_name("io");
  td_region_end_name("main");
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : kDefaultThreads;
  std::vector<std::thread> threads;
  for (int t = 0; t < (count > 0 && count <= 256 ? count : kDefaultThreads); ++t) threads.emplace_back(Thread, t);
  for (std::thread& t : threads) t.join();
  return 0;
}

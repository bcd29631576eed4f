#include "runtime/machine/bandwidth_calibration.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "runtime/report/output_files.h"

namespace td {
namespace {

// Barrier for the worker threads: every repetition starts together.
class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    const int generation = generation_;
    if (++waiting_ == count_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation != generation_; });
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_;
  int waiting_ = 0;
  int generation_ = 0;
};

size_t LastLevelCacheBytes() {
  size_t best = 0;
  for (int index = 0; index < 8; ++index) {
    const std::string dir = absl::StrFormat("/sys/devices/system/cpu/cpu0/cache/index%d/", index);
    std::ifstream size_file(dir + "size");
    std::string size;
    if (!(size_file >> size)) continue;
    size_t value = 0;
    const char unit = size.back();
    if (unit == 'K' || unit == 'M') size.pop_back();
    if (!absl::SimpleAtoi(size, &value)) continue;
    value *= unit == 'M' ? (1 << 20) : unit == 'K' ? 1024 : 1;
    best = std::max(best, value);
  }
  return best;
}

}  // namespace

size_t DefaultTriadArrayBytes() {
  return std::max<size_t>(size_t{64} << 20, 4 * LastLevelCacheBytes());
}

absl::StatusOr<Calibration> MeasureTriad(int threads, size_t array_bytes, int repetitions) {
  if (threads < 1 || repetitions < 1 || array_bytes < 4096) {
    return absl::InvalidArgumentError("triad needs threads >= 1, repetitions >= 1, arrays >= 4 KiB");
  }
  const size_t n = array_bytes / sizeof(double);
  std::unique_ptr<double[]> a(new (std::nothrow) double[n]);
  std::unique_ptr<double[]> b(new (std::nothrow) double[n]);
  std::unique_ptr<double[]> c(new (std::nothrow) double[n]);
  if (!a || !b || !c) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot allocate 3 × %d MiB for the triad", array_bytes >> 20));
  }
  // Every thread, the calling one included, times its own slice: a separate
  // timing thread would compete for the CPUs and could take its "start"
  // after the work was done. A repetition lasts from the first start to the
  // last end.
  using Clock = std::chrono::steady_clock;
  std::vector<std::vector<Clock::time_point>> starts(threads, std::vector<Clock::time_point>(repetitions));
  std::vector<std::vector<Clock::time_point>> ends = starts;
  Barrier barrier(threads);
  const double scalar = 3.0;
  auto work = [&](int t) {
    const size_t begin = n * t / threads, end = n * (t + 1) / threads;
    for (size_t i = begin; i < end; ++i) {  // first touch: pages land near this thread
      a[i] = 0.0;
      b[i] = 1.0;
      c[i] = 2.0;
    }
    for (int r = 0; r < repetitions; ++r) {
      barrier.Wait();
      starts[t][r] = Clock::now();
      for (size_t i = begin; i < end; ++i) a[i] = b[i] + scalar * c[i];
      ends[t][r] = Clock::now();
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work, t);
  work(0);
  for (auto& w : workers) w.join();
  double best_seconds = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    Clock::time_point first = starts[0][r], last = ends[0][r];
    for (int t = 1; t < threads; ++t) {
      first = std::min(first, starts[t][r]);
      last = std::max(last, ends[t][r]);
    }
    best_seconds = std::min(best_seconds, std::chrono::duration<double>(last - first).count());
  }
  if (a[n / 2] != 7.0) return absl::InternalError("triad produced a wrong result");

  const MachineInfo machine = DescribeThisMachine();
  Calibration cal;
  cal.hostname = machine.hostname;
  cal.cpu_model_name = machine.cpu_model_name;
  cal.logical_cpus = machine.logical_cpus;
  cal.threads = threads;
  cal.array_bytes = n * sizeof(double);
  cal.triad_gbps = 3.0 * static_cast<double>(cal.array_bytes) / best_seconds / 1e9;
  cal.measured_unix = static_cast<int64_t>(std::time(nullptr));
  return cal;
}

std::string CalibrationPath() {
  const char* cache = std::getenv("XDG_CACHE_HOME");
  if (cache != nullptr && *cache == '/') return std::string(cache) + "/td/calibration.json";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/tmp") + "/.cache/td/calibration.json";
}

absl::StatusOr<Calibration> LoadCalibration(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("no calibration at " + path + "; run `td calibrate`");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("triad_gbps") || !j["triad_gbps"].is_number()) {
    return absl::InvalidArgumentError(path + ": not a td calibration file; run `td calibrate --refresh`");
  }
  Calibration cal;
  cal.hostname = j.value("hostname", "");
  cal.cpu_model_name = j.value("cpu_model_name", "");
  cal.logical_cpus = j.value("logical_cpus", 0);
  cal.threads = j.value("threads", 0);
  cal.array_bytes = j.value("array_bytes", size_t{0});
  cal.triad_gbps = j["triad_gbps"].get<double>();
  cal.measured_unix = j.value("measured_unix", int64_t{0});
  return cal;
}

absl::Status SaveCalibration(const std::string& path, const Calibration& cal) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const nlohmann::json j = {{"hostname", cal.hostname},       {"cpu_model_name", cal.cpu_model_name},
                            {"logical_cpus", cal.logical_cpus}, {"threads", cal.threads},
                            {"array_bytes", cal.array_bytes},   {"triad_gbps", cal.triad_gbps},
                            {"measured_unix", cal.measured_unix}};
  return WriteFileAtomically(path, j.dump(1) + "\n");
}

std::optional<double> CachedPeakGbps(const MachineInfo& machine) {
  auto cal = LoadCalibration(CalibrationPath());
  if (!cal.ok() || cal->hostname != machine.hostname || cal->cpu_model_name != machine.cpu_model_name) {
    return std::nullopt;
  }
  return cal->triad_gbps;
}

}  // namespace td

#include "runtime/machine/bandwidth_calibration.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "runtime/base/json_fields.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/byte_strings.h"
#include "runtime/machine/kernel_files.h"
#include "runtime/base/output_files.h"

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

// The last-level caches of all CPUs together: the largest cache level's size
// times its number of distinct instances (one per CCD or socket), since a
// multi-threaded triad spread over them could keep that much resident.
size_t TotalLastLevelCacheBytes() {
  int best_level = 0;
  size_t instance_bytes = 0;
  std::set<std::string> instances;  // shared_cpu_list names an instance
  std::error_code ec;
  for (const auto& cpu : std::filesystem::directory_iterator("/sys/devices/system/cpu", ec)) {
    const std::string name = cpu.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    for (int index = 0; index < 16; ++index) {
      const std::string dir = absl::StrFormat("%s/cache/index%d/", cpu.path().string(), index);
      const std::optional<int64_t> level = ReadIntegerFile(dir + "level");
      const std::optional<std::string> size = ReadFirstLine(dir + "size");
      const std::optional<std::string> type = ReadFirstLine(dir + "type");
      const std::optional<std::string> shared = ReadFirstLine(dir + "shared_cpu_list");
      if (!level || !size || size->empty() || (type && *type == "Instruction")) continue;
      std::string digits = *size;
      const char unit = digits.back();
      if (unit == 'K' || unit == 'M' || unit == 'G') digits.pop_back();
      size_t value = 0;
      if (!absl::SimpleAtoi(digits, &value)) continue;
      value <<= unit == 'G' ? 30 : unit == 'M' ? 20 : unit == 'K' ? 10 : 0;
      if (*level > best_level) {
        best_level = static_cast<int>(*level);
        instance_bytes = value;
        instances.clear();
      }
      if (*level == best_level) instances.insert(shared.value_or(name));
    }
  }
  return instance_bytes * instances.size();
}

// Doubles per 64-byte cache line: slices start on line boundaries so that no
// two threads store into the same line of a.
constexpr size_t kLineDoubles = 64 / sizeof(double);

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using TriadArray = std::unique_ptr<double[], FreeDeleter>;

// The three arrays, line-aligned; malloc leaves them untouched, so no page is
// placed until the owning thread writes its slice.
struct TriadArrays {
  explicit TriadArrays(size_t n) : a(Allocate(n)), b(Allocate(n)), c(Allocate(n)) {}
  bool ok() const { return a && b && c; }
  static double* Allocate(size_t n) {
    const size_t bytes = (n * sizeof(double) + 63) / 64 * 64;  // aligned_alloc wants a multiple
    return static_cast<double*>(std::aligned_alloc(64, bytes));
  }
  TriadArray a, b, c;
};

// Thread t's slice of n elements: [SliceStart(t), SliceStart(t + 1)).
size_t SliceStart(size_t n, int t, int threads) {
  return t == threads ? n : n * t / threads / kLineDoubles * kLineDoubles;
}

// Restrict pointers and a cache line per step: with no aliasing to rule out
// and a fixed-size block, the compiler emits vector loads and stores at the
// plain -O2 of a release build, as it does for the td_triad sample's loop
// (whose trip count it can see); a scalar loop here could fall behind the
// single-threaded program it is meant to bound.
void TriadSlice(double* __restrict a, const double* __restrict b, const double* __restrict c,
                double scalar, size_t begin, size_t end) {
  size_t i = begin;
  for (; i + kLineDoubles <= end; i += kLineDoubles) {
    for (size_t k = 0; k < kLineDoubles; ++k) a[i + k] = b[i + k] + scalar * c[i + k];
  }
  for (; i < end; ++i) a[i] = b[i] + scalar * c[i];
}

}  // namespace

size_t TriadBytesCounted(size_t array_bytes) {
  return array_bytes / sizeof(double) * kTriadBytesPerElement;
}

std::vector<int> TriadThreadCounts(int max_threads) {
  std::vector<int> counts;
  for (int t = 1; t < max_threads; t *= 2) counts.push_back(t);
  counts.push_back(std::max(1, max_threads));
  return counts;
}

size_t DefaultTriadArrayBytes() {
  size_t bytes = std::max<size_t>(size_t{256} << 20, 4 * TotalLastLevelCacheBytes());
  const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_bytes > 0) {
    bytes = std::min(bytes, static_cast<size_t>(pages) * static_cast<size_t>(page_bytes) / 8);
  }
  return bytes >> 20 << 20;  // whole MiB, as printed
}

absl::StatusOr<TriadRun> RunTriad(int threads, size_t array_bytes, int repetitions, double min_seconds) {
  if (threads < 1 || repetitions < 1 || repetitions > kTriadMaxPasses || array_bytes < 4096) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "triad needs threads >= 1, 1 <= repetitions <= %d, arrays >= 4 KiB", kTriadMaxPasses));
  }
  const size_t n = array_bytes / sizeof(double);
  // Fresh arrays for every thread count: pages belong to whoever touched them
  // first, and each configuration splits the arrays differently.
  TriadArrays arrays(n);
  if (!arrays.ok()) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot allocate 3 × %d MiB for the triad", array_bytes >> 20));
  }
  // Every thread, the calling one included, times its own slice: a separate
  // timing thread would compete for the CPUs and could take its "start"
  // after the work was done. A pass lasts from the first start to the last
  // end.
  using Clock = std::chrono::steady_clock;
  std::vector<std::vector<Clock::time_point>> starts(threads), ends(threads);
  // go_on[r]: thread 0's decision, taken after its pass r, whether pass r+1
  // runs. One slot per pass, written before the barrier and read after it,
  // so no thread can see a later decision in place of the one it waits for.
  std::vector<char> go_on(kTriadMaxPasses, 0);
  Barrier barrier(threads);
  const double scalar = 3.0;
  auto work = [&](int t) {
    const size_t begin = SliceStart(n, t, threads), end = SliceStart(n, t + 1, threads);
    double* a = arrays.a.get();
    double* b = arrays.b.get();
    double* c = arrays.c.get();
    for (size_t i = begin; i < end; ++i) {  // first touch: pages land near this thread
      a[i] = 0.0;
      b[i] = 1.0;
      c[i] = 2.0;
    }
    starts[t].reserve(kTriadMaxPasses);
    ends[t].reserve(kTriadMaxPasses);
    for (int r = 0; r < kTriadMaxPasses; ++r) {
      barrier.Wait();
      if (r > 0 && !go_on[r - 1]) break;
      starts[t].push_back(Clock::now());
      TriadSlice(a, b, c, scalar, begin, end);
      ends[t].push_back(Clock::now());
      if (t == 0) {
        const double spent = std::chrono::duration<double>(ends[0].back() - starts[0].front()).count();
        go_on[r] = r + 1 < repetitions || spent < min_seconds;
      }
    }
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work, t);
  work(0);
  for (auto& w : workers) w.join();
  const size_t passes = starts[0].size();
  double best_seconds = 1e30;
  for (size_t r = 0; r < passes; ++r) {
    Clock::time_point first = starts[0][r], last = ends[0][r];
    for (int t = 1; t < threads; ++t) {
      first = std::min(first, starts[t][r]);
      last = std::max(last, ends[t][r]);
    }
    best_seconds = std::min(best_seconds, std::chrono::duration<double>(last - first).count());
  }
  if (arrays.a[0] != 7.0 || arrays.a[n / 2] != 7.0 || arrays.a[n - 1] != 7.0) {
    return absl::InternalError("triad produced a wrong result");
  }
  // A pass too short for the clock would make an absurd rate; a
  // nanosecond floor keeps the division finite.
  best_seconds = std::max(best_seconds, 1e-9);
  TriadRun run;
  run.threads = threads;
  run.passes = static_cast<int>(passes);
  run.best_seconds = best_seconds;
  run.gbps = static_cast<double>(TriadBytesCounted(array_bytes)) / best_seconds / 1e9;
  return run;
}

absl::StatusOr<Calibration> MeasureTriad(int max_threads, size_t array_bytes, int repetitions,
                                         double min_seconds_per_count) {
  if (max_threads < 1) return absl::InvalidArgumentError("triad needs threads >= 1");
  Calibration cal;
  for (int threads : TriadThreadCounts(max_threads)) {
    TD_ASSIGN_OR_RETURN(const TriadRun run, RunTriad(threads, array_bytes, repetitions, min_seconds_per_count));
    cal.runs.push_back(run);
    if (run.gbps > cal.triad_gbps) {
      cal.triad_gbps = run.gbps;
      cal.threads = run.threads;
    }
  }
  const MachineInfo machine = DescribeThisMachine();
  cal.hostname = machine.hostname;
  cal.cpu_model_name = machine.cpu_model_name;
  cal.logical_cpus = machine.logical_cpus;
  cal.max_threads = max_threads;
  cal.array_bytes = array_bytes / sizeof(double) * sizeof(double);
  cal.repetitions = repetitions;
  cal.measured_unix = static_cast<int64_t>(std::time(nullptr));
  return cal;
}

namespace {

absl::StatusOr<Calibration> CalibrationFromJson(const nlohmann::json& j);

}  // namespace

absl::StatusOr<Calibration> LoadCalibration(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("no calibration at " + path + "; run `td calibrate`");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("triad_gbps") || !j["triad_gbps"].is_number()) {
    return absl::InvalidArgumentError(path + ": not a td calibration file; run `td calibrate --refresh`");
  }
  // value() throws when a field is there with another type: a hand-edited or
  // damaged cache is a stale calibration, never a crash of the program.
  try {
    absl::StatusOr<Calibration> cal = CalibrationFromJson(j);
    if (!cal.ok()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: %s; run `td calibrate --refresh`", path, cal.status().message()));
    }
    return cal;
  } catch (const nlohmann::json::exception&) {
    return absl::InvalidArgumentError(path + ": a field has the wrong type; run `td calibrate --refresh`");
  }
}

namespace {

absl::StatusOr<Calibration> CalibrationFromJson(const nlohmann::json& j) {
  using json_fields::GetOptionalInteger;
  using json_fields::GetOptionalNumber;
  Calibration cal;
  cal.hostname = j.value("hostname", "");
  cal.cpu_model_name = j.value("cpu_model_name", "");
  // Fields are checked one by one: a fraction or a number past an int's range
  // must not reach a conversion (that is undefined behaviour, not a throw).
  TD_RETURN_IF_ERROR(GetOptionalInteger(j, "logical_cpus", 0, &cal.logical_cpus, "calibration", 0, 1 << 20));
  TD_RETURN_IF_ERROR(GetOptionalInteger(j, "threads", 0, &cal.threads, "calibration", 0, 1 << 20));
  // Files from before the thread sweep lack max_threads.
  TD_RETURN_IF_ERROR(GetOptionalInteger(j, "max_threads", 0, &cal.max_threads, "calibration", 0, 1 << 20));
  TD_RETURN_IF_ERROR(GetOptionalInteger(j, "array_bytes", size_t{0}, &cal.array_bytes, "calibration"));
  TD_RETURN_IF_ERROR(GetOptionalInteger(j, "repetitions", 0, &cal.repetitions, "calibration", 0, 1 << 30));
  TD_RETURN_IF_ERROR(GetOptionalNumber(j, "triad_gbps", 0.0, &cal.triad_gbps, "calibration"));
  if (j.contains("runs") && j["runs"].is_array()) {
    for (const nlohmann::json& r : j["runs"]) {
      if (!r.is_object()) continue;
      TriadRun run{};
      TD_RETURN_IF_ERROR(GetOptionalInteger(r, "threads", 0, &run.threads, "calibration.runs[]", 0, 1 << 20));
      TD_RETURN_IF_ERROR(GetOptionalInteger(r, "passes", 0, &run.passes, "calibration.runs[]", 0, 1 << 30));
      TD_RETURN_IF_ERROR(GetOptionalNumber(r, "best_seconds", 0.0, &run.best_seconds, "calibration.runs[]"));
      TD_RETURN_IF_ERROR(GetOptionalNumber(r, "gbps", 0.0, &run.gbps, "calibration.runs[]"));
      cal.runs.push_back(run);
    }
  }
  TD_RETURN_IF_ERROR(GetOptionalInteger(j, "measured_unix", int64_t{0}, &cal.measured_unix, "calibration"));
  return cal;
}

}  // namespace

absl::Status SaveCalibration(const std::string& path, const Calibration& cal) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  nlohmann::json runs = nlohmann::json::array();
  for (const TriadRun& r : cal.runs) {
    runs.push_back(
        {{"threads", r.threads}, {"passes", r.passes}, {"best_seconds", r.best_seconds}, {"gbps", r.gbps}});
  }
  // bytes_per_element says how triad_gbps counts, for whoever reads the file
  // without this source at hand.
  const nlohmann::json j = {{"hostname", cal.hostname},       {"cpu_model_name", cal.cpu_model_name},
                            {"logical_cpus", cal.logical_cpus}, {"threads", cal.threads},
                            {"max_threads", cal.max_threads},   {"array_bytes", cal.array_bytes},
                            {"repetitions", cal.repetitions},   {"bytes_per_element", kTriadBytesPerElement},
                            {"triad_gbps", cal.triad_gbps},     {"runs", runs},
                            {"measured_unix", cal.measured_unix}};
  return WriteFileAtomically(path, DumpJson(j, 1) + "\n");  // never throws on a strange host name
}

std::optional<double> CachedPeakGbps(const MachineInfo& machine, const std::string& calibration_file) {
  auto cal = LoadCalibration(calibration_file);
  if (!cal.ok() || cal->hostname != machine.hostname || cal->cpu_model_name != machine.cpu_model_name) {
    return std::nullopt;
  }
  return cal->triad_gbps;
}

}  // namespace td

// The machine's sustainable memory bandwidth, measured once with a STREAM
// triad (a[i] = b[i] + s * c[i]) and cached per machine, so that a region's
// bytes per second can be compared with what this machine can actually do.
//
// Method (docs/analysis.md, "Bandwidth"): the triad runs with 1, 2, 4, …
// and finally every logical CPU's worth of threads, and the fastest
// configuration is the peak. One thread is always among them, so the peak is
// never below what a single-threaded loop over the same arrays reaches; more
// threads only count when they really add bandwidth (on a shared or
// oversubscribed machine they may not).
#ifndef TD_RUNTIME_MACHINE_BANDWIDTH_CALIBRATION_H_
#define TD_RUNTIME_MACHINE_BANDWIDTH_CALIBRATION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/machine/machine_info.h"

namespace td {

// Bytes a triad pass is credited with, STREAM's convention: per element 8
// bytes read from b, 8 from c and 8 written to a. The write-allocate read of
// a (a plain store first brings the line in, so DRAM really moves 32 bytes
// per element) is not counted, and no non-temporal stores are used to avoid
// it: figures are comparable with published STREAM results.
inline constexpr size_t kTriadBytesPerElement = 3 * sizeof(double);
size_t TriadBytesCounted(size_t array_bytes);

// One configuration of the triad: best of its passes.
struct TriadRun {
  int threads = 0;
  int passes = 0;           // timed passes run
  double best_seconds = 0;  // fastest pass: first thread's start to last thread's end
  double gbps = 0;          // TriadBytesCounted(array_bytes) / best_seconds / 1e9
};

struct Calibration {
  std::string hostname;
  std::string cpu_model_name;
  int logical_cpus = 0;
  int threads = 0;           // thread count of the fastest configuration
  int max_threads = 0;       // the largest thread count tried
  size_t array_bytes = 0;    // each of the three arrays
  int repetitions = 0;       // the fewest passes per thread count (runs[].passes: how many ran)
  double triad_gbps = 0;     // the fastest configuration's rate, STREAM's byte count
  std::vector<TriadRun> runs;  // every thread count tried, in the order run
  int64_t measured_unix = 0;
};

// 1, 2, 4, … up to max_threads, with max_threads itself last: a handful of
// runs even on a large machine, always starting with one thread.
std::vector<int> TriadThreadCounts(int max_threads);

// Timed passes per thread count go on until they add up to this, past the
// requested repetitions: on a shared machine another process can spoil any
// one pass, and the peak wants a clean one. Also bounds the whole run: a
// handful of thread counts, each this long plus the first touch.
inline constexpr double kTriadMinSecondsPerCount = 1.0;
inline constexpr int kTriadMaxPasses = 1000;  // stops tiny arrays from running forever

// The triad on `threads` threads over three fresh arrays of `array_bytes`
// each (rounded down to whole doubles); each thread first-touches the slice
// it will stream, so its pages sit on its NUMA node. Best of at least
// `repetitions` passes, more while they took less than `min_seconds`.
absl::StatusOr<TriadRun> RunTriad(int threads, size_t array_bytes, int repetitions, double min_seconds);

// The calibration: RunTriad for each of TriadThreadCounts(max_threads), the
// fastest kept as the peak.
absl::StatusOr<Calibration> MeasureTriad(int max_threads, size_t array_bytes, int repetitions,
                                         double min_seconds_per_count = kTriadMinSecondsPerCount);

// Per array: 4 × the last-level caches of all CPUs together (STREAM's rule),
// at least 256 MiB so a pass lasts long enough to time well, at most 1/8 of
// the physical memory so the three arrays leave room for everything else.
size_t DefaultTriadArrayBytes();

absl::StatusOr<Calibration> LoadCalibration(const std::string& path);
absl::Status SaveCalibration(const std::string& path, const Calibration& calibration);

// The peak cached in `calibration_file` (Config::calibration_file:
// $XDG_CACHE_HOME/td/calibration.json, else $HOME/.cache/td/calibration.json)
// if it was measured on this machine (same host and CPU).
std::optional<double> CachedPeakGbps(const MachineInfo& machine, const std::string& calibration_file);

}  // namespace td

#endif  // TD_RUNTIME_MACHINE_BANDWIDTH_CALIBRATION_H_

// The machine's sustainable memory bandwidth, measured once with a STREAM
// triad (a[i] = b[i] + s * c[i]) and cached per machine, so that a region's
// bytes per second can be compared with what this machine can actually do.
#ifndef TD_RUNTIME_MACHINE_BANDWIDTH_CALIBRATION_H_
#define TD_RUNTIME_MACHINE_BANDWIDTH_CALIBRATION_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/machine/machine_info.h"

namespace td {

struct Calibration {
  std::string hostname;
  std::string cpu_model_name;
  int logical_cpus = 0;
  int threads = 0;
  size_t array_bytes = 0;  // each of the three arrays
  double triad_gbps = 0;   // best of the repetitions, STREAM's byte count (2 reads + 1 write)
  int64_t measured_unix = 0;
};

// Runs the triad on `threads` threads over three arrays of `array_bytes`
// each (each thread first-touches its own slice), best of `repetitions`.
absl::StatusOr<Calibration> MeasureTriad(int threads, size_t array_bytes, int repetitions);

// Four times the last-level cache (STREAM's rule), at least 64 MiB.
size_t DefaultTriadArrayBytes();

// $XDG_CACHE_HOME/td/calibration.json, else $HOME/.cache/td/calibration.json.
std::string CalibrationPath();
absl::StatusOr<Calibration> LoadCalibration(const std::string& path);
absl::Status SaveCalibration(const std::string& path, const Calibration& calibration);

// The cached peak if it was measured on this machine (same host and CPU).
std::optional<double> CachedPeakGbps(const MachineInfo& machine);

}  // namespace td

#endif  // TD_RUNTIME_MACHINE_BANDWIDTH_CALIBRATION_H_

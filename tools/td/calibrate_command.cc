// td calibrate: this machine's memory bandwidth peak, measured once and cached.
#include "tools/td/commands.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "runtime/machine/bandwidth_calibration.h"
#include "runtime/machine/machine_info.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

int Calibrate(const Command& self, const Args& args) {
  bool refresh = false;
  Args operands;
  if (const auto done = Flags(self).Switch("--refresh", &refresh).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  const std::string path = Environment().calibration_file;
  const td::MachineInfo machine = td::DescribeThisMachine();
  if (!refresh) {
    if (auto cached = td::LoadCalibration(path);
        cached.ok() && cached->hostname == machine.hostname &&
        cached->cpu_model_name == machine.cpu_model_name) {
      std::printf("triad peak %.2f GB/s (cached in %s; --refresh measures again)\n",
                  cached->triad_gbps, path.c_str());
      return 0;
    }
  }
  const int threads = std::max(1, machine.logical_cpus);
  const size_t bytes = td::DefaultTriadArrayBytes();
  std::fprintf(stderr,
               "td: measuring the STREAM triad: 1 to %d threads, 3 × %zu MiB, best of at least 5 passes "
               "per thread count\n",
               threads, bytes >> 20);
  auto cal = td::MeasureTriad(threads, bytes, 5);
  if (!cal.ok()) return Fail(std::string(cal.status().message()));
  if (auto saved = td::SaveCalibration(path, *cal); !saved.ok()) {
    std::fprintf(stderr, "td: error: %s; the result is not cached\n",
                 std::string(saved.message()).c_str());
  }
  std::printf("triad peak %.2f GB/s (%d thread%s, 3 × %zu MiB arrays), saved in %s\n", cal->triad_gbps,
              cal->threads, cal->threads == 1 ? "" : "s", cal->array_bytes >> 20, path.c_str());
  return 0;
}

}  // namespace

const cli::Command kCalibrateCommand = {
    "calibrate", "calibrate [--refresh]", "this machine's memory bandwidth peak, measured once and cached",
    "Measures the STREAM triad bandwidth of this machine, which reports compare a\n"
    "region's bandwidth with, and caches it; later runs print the cached value.\n"
    "\n"
    "  --refresh  measure again",
    Calibrate};

}  // namespace td::tool

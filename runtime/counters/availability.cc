#include "runtime/counters/availability.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "absl/strings/str_format.h"
#include "runtime/machine/kernel_files.h"

namespace td {

int RealPerfEventOpen(perf_event_attr* attr, pid_t pid, int cpu, int group_fd,
                      unsigned long flags) {
  return static_cast<int>(syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags));
}

std::string ErrnoName(int err) {
  switch (err) {
    case ENOENT: return "ENOENT";
    case ENODEV: return "ENODEV";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOSYS: return "ENOSYS";
    case EINVAL: return "EINVAL";
    case EMFILE: return "EMFILE";
    case EBUSY: return "EBUSY";
    default: return absl::StrFormat("errno %d", err);
  }
}

namespace {

constexpr char kSoftwareMeasured[] =
    "wall time, calls, task-clock, page faults, context switches, CPU migrations";
constexpr char kTimeOnly[] = "wall time and calls only";

bool IsPermissionError(int err) { return err == EACCES || err == EPERM; }
bool IsMissingPmuError(int err) {
  return err == ENOENT || err == ENODEV || err == EOPNOTSUPP;
}

std::string ParanoidFix(int paranoid) {
  return absl::StrFormat(
      "kernel.perf_event_paranoid=%d forbids it; fix: sudo sysctl -w "
      "kernel.perf_event_paranoid=2 (user-space counting of your own threads) or give "
      "the program CAP_PERFMON",
      paranoid);
}

}  // namespace

Availability DescribeAvailability(const ProbeFacts& facts) {
  Availability a;
  a.software_counters = facts.software_errno == 0;
  a.hardware_counters = facts.hardware_errno == 0;
  a.hardware_errno = a.hardware_counters ? "" : ErrnoName(facts.hardware_errno);
  a.measured = a.software_counters ? kSoftwareMeasured : kTimeOnly;

  if (!a.software_counters) {
    const int err = facts.software_errno;
    if (err == ENOSYS) {
      a.software_reason =
          "perf_event_open is not available (ENOSYS): the kernel lacks perf events or a "
          "seccomp filter hides the call";
    } else if (IsPermissionError(err) && facts.paranoid >= 3) {
      a.software_reason = "perf_event_open refused (" + ErrnoName(err) + "): " +
                          ParanoidFix(facts.paranoid);
    } else if (IsPermissionError(err)) {
      a.software_reason = "perf_event_open refused (" + ErrnoName(err) +
                          ") although kernel.perf_event_paranoid=" +
                          std::to_string(facts.paranoid) +
                          " allows it: a container's seccomp profile probably blocks the "
                          "call; allow perf_event_open in the profile or run outside it";
    } else {
      a.software_reason = "perf_event_open(task-clock) failed with " + ErrnoName(err) + " (" +
                          std::strerror(err) + ")";
    }
  }

  if (!a.hardware_counters) {
    const int err = facts.hardware_errno;
    if (!a.software_counters) {
      a.hardware_reason = a.software_reason;
    } else if (IsMissingPmuError(err)) {
      a.hardware_reason = absl::StrFormat(
          "no hardware PMU is exposed to this machine (perf_event_open(cycles) failed with "
          "%s%s); usual in virtual machines without PMU passthrough",
          ErrnoName(err),
          facts.cpu_pmu_in_sysfs ? "" : ", /sys/bus/event_source/devices has no cpu PMU");
    } else if (IsPermissionError(err)) {
      a.hardware_reason = "hardware counters refused (" + ErrnoName(err) + "): " +
                          ParanoidFix(facts.paranoid);
    } else {
      a.hardware_reason = "perf_event_open(cycles) failed with " + ErrnoName(err) + " (" +
                          std::strerror(err) + ")";
    }
  }
  return a;
}

namespace {

int TryOpen(PerfEventOpenFn open_fn, uint32_t type, uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = type;
  attr.config = config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.disabled = 1;
  const int fd = open_fn(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return errno != 0 ? errno : EINVAL;
  close(fd);
  return 0;
}

bool CpuPmuInSysfs() {
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator("/sys/bus/event_source/devices", ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "cpu" || name.rfind("cpu_", 0) == 0 || name.rfind("armv8", 0) == 0) return true;
  }
  return false;
}

}  // namespace

ProbeFacts ProbeMachine(PerfEventOpenFn open_fn) {
  ProbeFacts facts;
  facts.hardware_errno = TryOpen(open_fn, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  facts.software_errno = TryOpen(open_fn, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
  facts.paranoid = static_cast<int>(ReadIntegerFile("/proc/sys/kernel/perf_event_paranoid").value_or(-1));
  facts.cpu_pmu_in_sysfs = CpuPmuInSysfs();
  return facts;
}

}  // namespace td

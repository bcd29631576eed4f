#include "runtime/counters/descriptor_guard.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

namespace td {
namespace {

// td's numbers: [top - kRange, top), top = min(1024, RLIMIT_NOFILE). A
// program that opens fewer than top - kRange files never meets them.
constexpr rlim_t kTop = 1024;
constexpr rlim_t kRange = 256;
constexpr rlim_t kLowestFloor = 64;

}  // namespace

int MoveAboveProgramDescriptors(int fd) {
  if (fd < 0) return fd;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return fd;
  const rlim_t top = std::min(limit.rlim_cur, kTop);
  if (top < kLowestFloor + kRange || static_cast<rlim_t>(fd) >= top - kRange) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, static_cast<int>(top - kRange));
  if (moved < 0) return fd;
  close(fd);
  return moved;
}

uint64_t PerfEventId(int fd) {
  uint64_t id = 0;
  if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) return 0;
  return id;
}

bool DescriptorLost(int fd, uint64_t id, ssize_t got) {
  if (PerfEventId(fd) == id) return false;
  // A regular file's offset goes back; a pipe's or socket's data cannot.
  if (got > 0) lseek(fd, -static_cast<off_t>(got), SEEK_CUR);
  return true;
}

void CloseIfStillOurs(int fd, uint64_t id) {
  if (fd >= 0 && PerfEventId(fd) == id) close(fd);
}

}  // namespace td

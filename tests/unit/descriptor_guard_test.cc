#include "runtime/counters/descriptor_guard.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "runtime/counters/perf_syscall.h"

namespace td {
namespace {

int OpenTaskClock() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  return RealPerfEventOpen(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

// A file with known bytes, opened for reading; its path is removed at once.
int OpenOwnFile() {
  char path[] = "descriptor_guard_test_XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  const std::string text = "sixteen bytes!!\n";
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  lseek(fd, 0, SEEK_SET);
  unlink(path);
  return fd;
}

TEST(DescriptorGuard, MovesADescriptorToTheTopOfTheFirst1024) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_cur < 1024) GTEST_SKIP() << "RLIMIT_NOFILE is " << limit.rlim_cur;
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int moved = MoveAboveProgramDescriptors(fd);
  EXPECT_GE(moved, 768);
  EXPECT_LT(moved, 1024);
  EXPECT_EQ(fcntl(fd, F_GETFD), -1) << "the low number is free again";
  EXPECT_EQ(fcntl(moved, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  close(moved);
}

TEST(DescriptorGuard, StaysWhereItIsUnderALowLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 100;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  const int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(MoveAboveProgramDescriptors(fd), fd);
  close(fd);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
}

TEST(DescriptorGuard, AReusedNumberIsLostAndTheProgramsOffsetIsPutBack) {
  const int event = OpenTaskClock();
  if (event < 0) GTEST_SKIP() << "perf_event_open(task-clock): " << std::strerror(errno);
  const uint64_t id = PerfEventId(event);
  ASSERT_NE(id, 0u);
  EXPECT_FALSE(DescriptorLost(event, id, 0)) << "still td's event";
  // The program closes it and its own file gets the number.
  close(event);
  const int own = OpenOwnFile();  // usually the very number, as open() gives the lowest
  if (own != event) {
    ASSERT_EQ(dup2(own, event), event);
    close(own);
  }
  char block[48];
  const ssize_t got = read(event, block, sizeof(block));
  ASSERT_EQ(got, 16);
  EXPECT_TRUE(DescriptorLost(event, id, got));
  EXPECT_EQ(lseek(event, 0, SEEK_CUR), 0) << "the read's 16 bytes are given back";
  CloseIfStillOurs(event, id);
  EXPECT_NE(fcntl(event, F_GETFD), -1) << "the program's file stays open";
  close(event);
  EXPECT_TRUE(DescriptorLost(event, id, -EBADF)) << "closed and not reused";
}

TEST(DescriptorGuard, ClosesItsOwnEvent) {
  const int event = OpenTaskClock();
  if (event < 0) GTEST_SKIP() << "perf_event_open(task-clock): " << std::strerror(errno);
  CloseIfStillOurs(event, PerfEventId(event));
  EXPECT_EQ(fcntl(event, F_GETFD), -1);
}

}  // namespace
}  // namespace td

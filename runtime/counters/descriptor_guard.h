// td's counter descriptors live inside someone else's program, and programs
// close descriptors they did not open (daemons, closefrom() before exec) and
// then get those numbers back from open(). A read() of such a number would
// read the program's file and move its offset, or take its pipe's data; a
// close() would close the program's file. These helpers keep td's
// descriptors out of the way and tell whether a number is still td's event.
#ifndef TD_RUNTIME_COUNTERS_DESCRIPTOR_GUARD_H_
#define TD_RUNTIME_COUNTERS_DESCRIPTOR_GUARD_H_

#include <sys/types.h>

#include <cstdint>

namespace td {

// Moves a descriptor just opened to the top of the first 1,024 numbers (the
// ones select() and most programs use), where open() hands numbers out last;
// returns the descriptor to use (fd itself when it cannot move: a low
// RLIMIT_NOFILE, or that range is full).
int MoveAboveProgramDescriptors(int fd);

// The kernel's id of the perf event behind fd (PERF_EVENT_IOC_ID); 0 when fd
// is closed or not a perf event.
uint64_t PerfEventId(int fd);

// After a read of fd went wrong (`got`: bytes read, or -errno): true when fd
// is no longer the event `id` td opened. A file offset that read moved is
// then put back, so the program reads its file as if td had not.
bool DescriptorLost(int fd, uint64_t id, ssize_t got);

// Closes fd only while it is still the event `id`.
void CloseIfStillOurs(int fd, uint64_t id);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_DESCRIPTOR_GUARD_H_

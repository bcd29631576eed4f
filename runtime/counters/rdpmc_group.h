// One perf_event group read in user space at each marker (the rdpmc fast
// path), filling the same block a read() of the group would:
// [nr, time_enabled, time_running, value_0 .. value_nr-1].
//
// Ordinary groups: each member is offset + counter from its mmap page, the
// times come from the leader's page brought up to now with the TSC. Whenever
// a page forbids a user read (the group is multiplexed out, or rdpmc is off)
// the group is read() instead; both give the kernel's running totals, so
// mixing them is exact.
//
// Groups led by SLOTS with PERF_METRICS members (Ice Lake and later): rdpmc
// gives the raw SLOTS counter and the PERF_METRICS register (eight 8-bit
// fractions) since the kernel last reset them, while read() gives converted
// totals and resets both registers. So every read() of this group re-bases:
// value = totals at the last read() + fraction × SLOTS since. td read()s the
// group when the kernel touched the page (a reschedule may have reset the
// registers), when no base exists yet, and once SLOTS since the base passes
// kMetricsRebaseSlots, which bounds the 8-bit rounding to about that many
// slots / 255 per snapshot while most markers stay syscall-free.
#ifndef TD_RUNTIME_COUNTERS_RDPMC_GROUP_H_
#define TD_RUNTIME_COUNTERS_RDPMC_GROUP_H_

#include <linux/perf_event.h>
#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "runtime/counters/backend.h"
#include "runtime/counters/rdpmc_reader.h"

namespace td {

// The PERF_METRICS field an event reads (0 retiring … 7 memory bound), or -1
// for an ordinary counter (SLOTS included).
int PerfMetricsField(const EventInfo& event);

struct UserReadHooks {
  ReadPmcFn read_pmc = &ReadPmcInstruction;
  ReadTscFn read_tsc = &ReadTscInstruction;
  ssize_t (*read_fd)(int fd, void* buffer, size_t bytes) = nullptr;  // nullptr: read(2)
  // Fakes only: read_pmc's and read_tsc's answers as memory (counter i at
  // pmc_values[i], i < pmc_count), so that the markers' inline read
  // (sole_user_read.h) can use them in place of the instructions. Fakes
  // without them leave the markers on RdpmcGroupReader.
  const uint64_t* pmc_values = nullptr;
  uint32_t pmc_count = 0;
  const uint64_t* tsc_value = nullptr;
};

class RdpmcGroupReader {
 public:
  static constexpr int64_t kMetricsRebaseSlots = int64_t{1} << 16;

  // `pages[i]` is member i's mapped page (leader first); `metric_fields[i]`
  // its PerfMetricsField. `leader_fd` is read() when user reads cannot serve.
  RdpmcGroupReader(std::vector<const volatile perf_event_mmap_page*> pages, std::vector<int> metric_fields,
                   int leader_fd, UserReadHooks hooks);

  bool Read(uint64_t* block);

  // Members' pages, leader first; the hooks; whether it is a PERF_METRICS group.
  const std::vector<const volatile perf_event_mmap_page*>& pages() const { return pages_; }
  const UserReadHooks& hooks() const { return hooks_; }
  bool reads_metrics() const { return first_metric_ >= 0; }

  uint64_t user_reads() const { return user_reads_; }
  uint64_t kernel_reads() const { return kernel_reads_; }

 private:
  bool ReadOrdinary(uint64_t* block);
  bool ReadOrdinaryWithRetries(uint64_t* block);
  bool ReadMetrics(uint64_t* block);
  bool ReadKernel(uint64_t* block);
  bool Rebase(uint64_t* block);
  bool FinishUserRead(const RdpmcSample& leader, uint64_t* block);

  std::vector<const volatile perf_event_mmap_page*> pages_;
  std::vector<int> metric_fields_;
  int first_metric_ = -1;  // member whose page gives the PERF_METRICS register
  int leader_fd_;
  UserReadHooks hooks_;
  // Metrics groups: totals from the last read() and the leader page's stamp then.
  std::vector<uint64_t> base_;
  uint64_t base_stamp_ = 0;
  bool based_ = false;
  uint64_t user_reads_ = 0;
  uint64_t kernel_reads_ = 0;
};

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_RDPMC_GROUP_H_

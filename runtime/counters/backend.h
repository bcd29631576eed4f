// What a counter backend provides to the region runtime.
//
// A snapshot is a flat array of uint64 words laid out exactly as the kernel
// returns a PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING read,
// one block per group:  [nr, time_enabled, time_running, value_0 .. value_nr-1].
// Keeping the kernel's layout lets the hot path read() straight into the
// snapshot, and lets the runtime subtract two snapshots word by word without
// knowing anything about groups.
#ifndef TD_RUNTIME_COUNTERS_BACKEND_H_
#define TD_RUNTIME_COUNTERS_BACKEND_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace td {

struct EventInfo {
  std::string name;      // as users write it, e.g. "task-clock"
  std::string unit;      // "ns", "count"
  uint32_t perf_type = 0;
  uint64_t perf_config = 0;
  uint64_t perf_config1 = 0;  // offcore / extra-register value
  bool hardware = false;
  std::string pmu;            // "cpu", "skl", "software": where the encoding came from
  // Memory traffic: counted system-wide on CPU `cpu` (≥ 0; socket-wide, read
  // by one thread), bytes = count × bytes_per_count, traffic read/write/total.
  int cpu = -1;
  double bytes_per_count = 0;
  std::string traffic;
  // Hybrid CPUs: the core-type PMU ("cpu_core", "cpu_atom") whose counters
  // these are; its counts are analysed apart from the other type's.
  std::string core_type;
  // ≥ 0: not opened; its value is that group's time enabled, which for a
  // per-thread group is the thread's time on a CPU: task-clock without a
  // software group to read at every marker (TaskClockFromHardwareGroup).
  int time_of_group = -1;
  bool system_wide() const { return cpu >= 0; }
};

struct GroupInfo {
  size_t word_offset = 0;  // where the group's block starts in a snapshot
  size_t first_event = 0;  // index into CounterLayout::events
  size_t num_events = 0;
};

struct CounterLayout {
  std::vector<EventInfo> events;
  std::vector<GroupInfo> groups;
  size_t words = 0;  // snapshot size

  static constexpr size_t kHeaderWords = 3;  // nr, time_enabled, time_running
  size_t ValueWord(size_t group, size_t index_in_group) const {
    return groups[group].word_offset + kHeaderWords + index_in_group;
  }
  // The group holding event `event_index` (groups.size() if none).
  size_t GroupOf(size_t event_index) const;
  // Appends a group of events and returns its index.
  size_t AddGroup(std::vector<EventInfo> group_events);
};

// What the backend could and could not measure, for reports and JSON.
struct Availability {
  bool software_counters = false;
  std::string software_reason;   // why not, when false
  bool hardware_counters = false;
  std::string hardware_reason;   // one line: why not, and the fix if there is one
  std::string hardware_errno;    // e.g. "ENOENT"; empty when not probed or available
  std::string measured;          // one line: what is measured instead
  std::string memory;            // how memory traffic is measured; "" = not measured
  // Hardware events the selection left out because they did not open on this
  // machine, name -> errno name ("ENOENT"): the analysis says so for the
  // nodes that needed them.
  std::map<std::string, std::string> events_not_opened;
};

struct SoleUserRead;  // sole_user_read.h

// Counters of one thread. Read() is the hot path.
class ThreadCounters {
 public:
  virtual ~ThreadCounters() = default;
  // Fills layout().words words. Returns false when a read failed.
  virtual bool Read(uint64_t* snapshot) = 0;
  // The same words, read from a thread other than the owner (finalize
  // closing that thread's open regions). False where the backend cannot.
  virtual bool ReadFromAnotherThread(uint64_t* /*snapshot*/) { return false; }
  // The same while the owner may be reading them too (the periodic flush):
  // nothing of these counters changes, not even a descriptor found lost.
  virtual bool PeekFromAnotherThread(uint64_t* /*snapshot*/) const { return false; }
  // When Read() is exactly one read() of one group into the whole snapshot
  // (the software group alone), that group's fd, and *bytes the size: the
  // markers then make that call themselves. -1 otherwise.
  virtual int SoleKernelRead(size_t* /*bytes*/) const { return -1; }
  // When that group holds software events only, task-clock among them: the
  // snapshot word of task-clock (SIZE_MAX otherwise). Such a group is never
  // multiplexed: its time enabled and time running are task-clock's value.
  virtual size_t SoleSoftwareTaskClockWord() const { return SIZE_MAX; }
  // When Read() is one group read in user space (rdpmc) and at most a
  // task-clock copied from its time enabled, what the markers need to do
  // that read inline (ReadSoleUserGroup); they call Read() when it cannot
  // serve. Null otherwise. Lives as long as these counters.
  virtual SoleUserRead* SoleUserGroup() { return nullptr; }
  // After the markers' own read of SoleKernelRead's descriptor went wrong
  // (`got`: bytes, or -errno): true when the program closed or reused that
  // descriptor, which is then never read again (Lost() says so).
  virtual bool SoleDescriptorLost(ssize_t /*got*/) { return false; }
  // The first descriptor the program took from td, one line; empty if none.
  virtual std::string Lost() const { return ""; }
  // Groups that could not be opened on this thread (their words stay 0, so
  // they read as "not measured"), one line; empty when all opened.
  virtual std::string Unopened() const { return ""; }
  // Groups read through their mmap pages (rdpmc), and how many of their reads
  // so far were served in user space and how many fell back to read().
  virtual size_t mapped_groups() const { return 0; }
  virtual uint64_t user_reads() const { return 0; }
  virtual uint64_t fallback_reads() const { return 0; }
};

class CounterBackend {
 public:
  virtual ~CounterBackend() = default;
  virtual std::string_view name() const = 0;
  virtual const CounterLayout& layout() const = 0;
  virtual const Availability& availability() const = 0;
  // Opens the counters of the calling thread.
  virtual absl::StatusOr<std::unique_ptr<ThreadCounters>> OpenForCurrentThread() = 0;
};

// Measures wall time and call counts only.
std::unique_ptr<CounterBackend> MakeNullBackend(Availability availability);

}  // namespace td

#endif  // TD_RUNTIME_COUNTERS_BACKEND_H_

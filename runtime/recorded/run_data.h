// One run's results, merged across threads by region path: what every report
// and the JSON file are made from, and what the JSON file reads back into.
#ifndef TD_RUNTIME_RECORDED_RUN_DATA_H_
#define TD_RUNTIME_RECORDED_RUN_DATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "runtime/base/diagnostics.h"
#include "runtime/counters/backend.h"
#include "runtime/machine/machine_info.h"
#include "runtime/recorded/part_block.h"
#include "runtime/regions/call_times.h"

namespace td {

// 3: as 2, but a part's "recursive_calls", "unterminated" and
// "closed_implicitly" are written only when not 0 (they are 0 in nearly every
// part: ~30 % of a large file). 2: a thread's counts as arrays in the order
// of "events" ("inclusive", "exclusive", "groups" as [enabled, running]
// pairs); 1: an object keyed by event name per thread. Files of all three
// are read; 3 is written.
inline constexpr int kSchemaVersion = 3;
// The first version whose parts may leave out their zero counts.
inline constexpr int kZeroCountsOmittedSince = 3;
inline constexpr int kOldestSchemaVersion = 1;

struct ProgramInfo {
  std::string name;
  int64_t pid = 0;
  std::vector<std::string> argv;
  int64_t start_unix_ns = 0;
  int64_t end_unix_ns = 0;
};

// The run's place in an MPI job, as its launcher said (docs/hpc.md).
struct MpiRank {
  int64_t rank = 0;
  int64_t size = 0;      // 0: the launcher did not say
  std::string job;       // "": the launcher did not say
  std::string host;
  std::string launcher;  // "Open MPI", "PMIx", "PMI", "Slurm", "MVAPICH2"
  bool aborted = false;  // the rank called MPI_Abort (libtd-mpi wrote this file then)
  int signal = 0;        // the rank was ended by this signal (TD_SIGNALS wrote this file then); 0: not
};

// A file the periodic flush wrote while the program ran (TD_FLUSH_INTERVAL,
// docs/usage.md#lifecycle): the run as it stood then, its open regions
// counted up to that moment. The final write at exit replaces it; a file
// that still says so is what a process killed before its end left.
struct PartialFlush {
  int64_t flushed_unix_ns = 0;
  std::string reason;  // "periodic flush"
};

// What libtd-mpi's wrapped MPI calls took (docs/hpc.md#mpi-time-per-region):
// their wall time, how many, and the bytes their buffers named.
struct MpiTime {
  int64_t ns = 0;
  uint64_t calls = 0;
  uint64_t bytes = 0;
  void Add(const MpiTime& other) {
    ns += other.ns;
    calls += other.calls;
    bytes += other.bytes;
  }
};

struct ThreadInfo {
  uint32_t index = 0;  // 0 is the first thread that used a marker
  int64_t tid = 0;
  bool exited_before_finalize = false;
  bool counters_measured = false;
  std::string counters_error;  // why not, when not measured
  int openmp_thread = -1;      // its number in the OpenMP team it first used a marker in; -1: not known
};

// Counter deltas of one event in one region on one thread.
struct EventDelta {
  uint64_t inclusive = 0;
  uint64_t exclusive = 0;
};

// Time the kernel had the group enabled and running during the region; the
// scaled count is raw × enabled / running.
struct GroupTimes {
  uint64_t enabled_ns = 0;
  uint64_t running_ns = 0;
};
// A part's group times: nearly every run has one group, which then needs
// no allocation of its own (no bigger than a std::vector: finalize makes
// one per thread and region, 640,000 at 64 threads × 10,000 regions).
using PartGroupTimes = absl::InlinedVector<GroupTimes, 1>;
// A part's counts: the software group's 4 fit inside (72 bytes, where a
// std::vector is 24 plus a block of 80 on the heap).
using PartEvents = absl::InlinedVector<EventDelta, 4>;

struct RegionOnThread {
  uint32_t thread = 0;  // ThreadInfo::index
  uint64_t calls = 0;
  uint64_t recursive_calls = 0;
  uint64_t unterminated = 0;
  uint64_t closed_implicitly = 0;
  int64_t wall_inclusive_ns = 0;
  int64_t wall_exclusive_ns = 0;
  // Empty when the thread's counters were not measured. Index = event index.
  PartEvents events;
  PartGroupTimes groups;  // inclusive times, index = group index
  // MPI calls made in the region on this thread, nested regions included
  // (calls 0: none, or no libtd-mpi).
  MpiTime mpi;
  // Its read calls' wall times, raw (call_times.h; call_time_summary.h):
  // empty where it had one read call (its time is the inclusive one).
  CallTimeCounts call_times;
  // What TakeOutMarkerCost took from the part's inclusive time, per read
  // call: the reports take it from each call's time.
  double call_time_taken_out_ns = 0;
};

// A region's parts, one per thread that entered it; a merged run's lists
// share one block of memory (part_block.h).
using PartList = std::vector<RegionOnThread, PartAllocator<RegionOnThread>>;

struct Region {
  std::string name;  // "copy[12]" for a parameterised region; bytes as the program gave them
  // Names from the outermost region, each written as a PathComponent (a '/'
  // in a name becomes \x2f, invalid UTF-8 and control bytes \xHH), joined
  // by '/': unique, printable, and what --region and merging match on.
  std::string path;
  int parent = -1;   // index into RunData::regions, -1 at top level
  std::vector<int> children;
  PartList threads;
  std::string base_name;  // "copy"; equal to name when there is no parameter
  std::optional<long long> parameter;
  // td_region_sample: this region's calls were read one in this many, not
  // in RunData::sample_every; 0 where the run's applies (SampleEveryOf).
  uint32_t sample_every = 0;
};

// What td's own marker work adds to what it reports, per BEGIN/END pair,
// measured at exit on the thread that finalized (runtime/driver/runtime.cc)
// with the run's counters, over `pairs` nested pairs. `inside`: what an
// empty region reports for itself (the part of td's work between its two
// clock and counter readings). `around`: what one pair adds to the region
// enclosing it beyond that (the rest of the pair's work). Per event, in the
// order of the run's events; empty where the counters were not measured.
struct MarkerCost {
  uint64_t pairs = 0;
  double inside_wall_ns = 0;
  double around_wall_ns = 0;
  std::vector<double> inside;
  std::vector<double> around;
  // This RunData's values have it taken out already (never written to a file:
  // files keep raw values).
  bool taken_out = false;
  // Wall times (region × thread, inclusive or exclusive) that taking it out
  // would have left below 0 or below their children's, held there instead:
  // the reports say so, as the cost then exceeds what those pairs cost.
  uint64_t wall_times_held = 0;
};

struct RunData {
  int schema_version = kSchemaVersion;
  std::string td_version;
  ProgramInfo program;
  std::optional<MpiRank> mpi;  // absent outside MPI jobs
  std::optional<PartialFlush> partial;  // absent in a complete file
  MachineInfo machine;
  std::string backend;
  std::string marker_clock;  // "tsc" or "monotonic"; "" when the file did not say
  CounterLayout layout;
  Availability availability;
  std::vector<ThreadInfo> threads;
  std::vector<Region> regions;  // parents before children, siblings in first-use order
  std::vector<Diagnostic> diagnostics;
  std::optional<MarkerCost> marker_cost;  // absent in files from before it and in replayed runs
  // TD_SAMPLE: times and counts were read on one call in this many per region
  // and thread and scaled to all calls; MeasuredCalls(calls, recursive,
  // SampleEveryOf(region)) of a part's calls were read. 1: every call.
  uint32_t sample_every = 1;
  // MPI calls made outside every region, over all threads; present where
  // libtd-mpi timed any MPI call of the run (docs/hpc.md#mpi-time-per-region).
  std::optional<MpiTime> mpi_outside_regions;

  // Index of the event named `name` in layout.events, if measured.
  std::optional<size_t> EventIndex(const std::string& name) const;
  // The N region `r` was read with: its own (td_region_sample), else the run's.
  uint32_t SampleEveryOf(const Region& r) const { return r.sample_every != 0 ? r.sample_every : sample_every; }
  // Whether any region's calls were read one in more than one.
  bool Sampled() const;
};

// Sums over a region's threads; wall time is the longest thread's.
struct RegionTotals {
  uint64_t calls = 0;
  uint64_t unterminated = 0;
  int64_t wall_inclusive_ns = 0;
  int64_t wall_exclusive_ns = 0;
  MpiTime mpi;                     // summed over the threads
  bool counters_measured = false;  // at least one thread measured
  std::vector<EventDelta> events;
};
RegionTotals Totals(const Region& region, size_t num_events);

// The run with td's own marker cost taken out of every region on every
// thread (docs/performance.md, "td's cost inside what it reports"): a region
// called c times (outermost activations) loses c × inside, and its
// inclusive values also lose every pair run inside it (the descendants'
// calls, recursive activations included) × (inside + around); its exclusive
// values lose c × inside plus its direct children's calls × around, so
// exclusive stays inclusive minus the children's inclusive. Values stop at
// 0, and inclusive values are raised to at least the sum of the children's on
// the same thread. Nothing changes without marker_cost or when it was taken
// out already.
void TakeOutMarkerCost(RunData* run);

}  // namespace td

#endif  // TD_RUNTIME_RECORDED_RUN_DATA_H_

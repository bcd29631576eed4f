// Reading a run file without building its JSON tree: the regions (nearly all
// of a file's bytes) are decoded straight from the text, and only the small
// rest goes through nlohmann and RunFromJson. It exists for `td report DIR`
// of a large MPI job (docs/hpc.md, "Scale"), where building a JSON tree of
// every rank's file cost twenty times what decoding does.
//
// It never decides about a file on its own: whatever is not the plain shape
// td writes (an escape it does not decode, a number with a fraction, a key
// it does not know, a key twice, a syntax error, any field the full reader
// would refuse) makes ScanRunText give up, and RunFromText then reads the
// file the full way, which accepts or refuses it with its own message. So
// the two agree on every file (tests/unit/run_file_reader_test.cc compares
// them on mutated files).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_file.h"
#include "runtime/recorded/json_cursor.h"
#include "runtime/recorded/run_file.h"

namespace td {
namespace {

using json_scan::Cursor;
using json_scan::KeyIndex;
using json_scan::SameBytes;

constexpr std::string_view kRegionKeys[] = {"index",  "name",     "base_name", "parameter",
                                            "path",   "parent",   "children",  "threads", "sample_every"};
enum RegionKey { kIndex, kName, kBaseName, kParameter, kPath, kParent, kChildren, kThreads, kSampleEvery };
constexpr unsigned kRegionRequired = 1u << kName | 1u << kPath | 1u << kParent | 1u << kChildren | 1u << kThreads;

constexpr std::string_view kPartKeys[] = {"thread",           "calls",          "recursive_calls",
                                          "unterminated",     "closed_implicitly", "wall_inclusive_ns",
                                          "wall_exclusive_ns", "inclusive",      "exclusive",
                                          "groups",           "mpi",            "call_times"};
enum PartKey {
  kThread,
  kCalls,
  kRecursiveCalls,
  kUnterminated,
  kClosedImplicitly,
  kWallInclusive,
  kWallExclusive,
  kInclusive,
  kExclusive,
  kGroups,
  kMpi,  // libtd-mpi's [ns, calls, bytes]; only where the region made MPI calls
  kCallTimes  // [[bucket, calls, ns], ...]; only where the part had two read calls or more
};
// The counts that schema 3 leaves out when 0 (kZeroCountsOmittedSince).
constexpr unsigned kPartZeroCounts = 1u << kRecursiveCalls | 1u << kUnterminated | 1u << kClosedImplicitly;
constexpr unsigned kPartRequired = ((1u << kInclusive) - 1) & ~kPartZeroCounts;

// The order in which td writes each object's keys (sorted, as nlohmann's
// objects keep them): kRegionKeys and kPartKeys indices.
constexpr int kRegionKeyOrder[] = {2, 6, 0, 1, 3, 5, 4, 8, 7};  // sample_every only where set
constexpr int kPartKeyOrder[] = {11, 1, 4, 8, 9, 7, 10, 2, 0, 3, 6, 5};

}  // namespace

namespace run_scan {

// One thread's part of a region before the run's events and threads are
// known (they come after "regions" in the file): each list of counts as a
// span of counts.
struct CountSpan {
  size_t first = 0;
  size_t count = 0;
};
struct RawPart {
  RegionOnThread part;  // its vectors stay empty until Finish
  unsigned listed = 0;  // bits 1 << kInclusive, kExclusive, kGroups: a list, not null
  bool all_counts = false;  // all of kPartZeroCounts came (schema 2 requires them)
  CountSpan inclusive;
  CountSpan exclusive;
  CountSpan groups;  // in group_times: one vector per part is made once, at its final size
  CountSpan call_times;  // in call_times
};

}  // namespace run_scan

struct RunScanBuffers::Vectors {
  std::vector<size_t> parts_of_region;
  std::vector<run_scan::RawPart> parts;
  std::vector<uint64_t> counts;  // every part's listed counts, inclusive then exclusive
  std::vector<GroupTimes> group_times;  // every part's listed group times
  std::vector<CallTimeBucketTotal> call_times;  // every part's per-call times
  std::string head;  // the members but "regions", for RunFromJson
  // The parts' lists of runs given back (Recycle), emptied, for the next
  // file's parts: with thousands of parts per file, allocating them anew
  // was a quarter of td report DIR's time.
  std::vector<PartEvents> spare_events;
  std::vector<PartGroupTimes> spare_groups;
  std::vector<CallTimeCounts> spare_call_times;
};
RunScanBuffers::RunScanBuffers() : vectors_(std::make_unique<Vectors>()) {}
RunScanBuffers::~RunScanBuffers() = default;

void RunScanBuffers::Recycle(RunData* run) {
  Vectors& v = *vectors_;
  for (Region& region : run->regions) {
    for (RegionOnThread& part : region.threads) {
      if (part.events.capacity() > 0) {
        part.events.clear();
        v.spare_events.push_back(std::move(part.events));
      }
      if (part.groups.capacity() > 0) {
        part.groups.clear();
        v.spare_groups.push_back(std::move(part.groups));
      }
      if (part.call_times.capacity() > 0) {
        part.call_times.clear();
        v.spare_call_times.push_back(std::move(part.call_times));
      }
    }
  }
}

namespace {

using run_scan::CountSpan;
using run_scan::RawPart;

class RegionsScan {
 public:
  // `buffers`: emptied here; their memory is used again.
  RegionsScan(Cursor* in, RunScanBuffers::Vectors* buffers)
      : in_(*in),
        parts_of_region_(buffers->parts_of_region),
        parts_(buffers->parts),
        counts_(buffers->counts),
        group_times_(buffers->group_times),
        call_times_(buffers->call_times),
        spare_events_(buffers->spare_events),
        spare_groups_(buffers->spare_groups),
        spare_call_times_(buffers->spare_call_times) {
    parts_of_region_.clear();
    parts_.clear();
    counts_.clear();
    group_times_.clear();
    call_times_.clear();
  }

  bool Regions() {
    if (!in_.Take('[')) return false;
    if (in_.Take(']')) return true;
    for (bool more = true; more;) {
      if (!ScanRegion() || !in_.Separator(']', &more)) return false;
    }
    return true;
  }

  // The parts' counters and threads checked against the run's layout and
  // threads, as ReadThreadPart does, into data->regions; then the tree.
  bool Finish(RunData* data) {
    // Schema 2 is 3's layout with every count written; 1 is the full reader's.
    if (data->schema_version != kSchemaVersion && data->schema_version != 2) return false;
    const bool counts_required = data->schema_version < kZeroCountsOmittedSince;
    const CounterLayout& layout = data->layout;
    const size_t num_events = layout.events.size();
    constexpr unsigned kAllListed = 1u << kInclusive | 1u << kExclusive | 1u << kGroups;
    size_t next_part = 0;
    // Each region's list of parts first, then the parts' small lists: the
    // allocator then merges its freed small blocks once per file, not once
    // per region.
    for (size_t r = 0; r < regions_.size(); ++r) regions_[r].threads.reserve(parts_of_region_[r]);
    for (size_t r = 0; r < regions_.size(); ++r) {
      td::Region& region = regions_[r];
      for (const int child : region.children) {
        if (static_cast<size_t>(child) >= regions_.size()) return false;
      }
      std::vector<bool> thread_seen(data->threads.size(), false);
      for (size_t t = 0; t < parts_of_region_[r]; ++t, ++next_part) {
        RawPart& raw = parts_[next_part];
        RegionOnThread& part = raw.part;
        if (part.thread >= data->threads.size() || thread_seen[part.thread]) return false;
        if (counts_required && !raw.all_counts) return false;
        thread_seen[part.thread] = true;
        if (raw.listed == kAllListed) {
          if (raw.inclusive.count != num_events || raw.exclusive.count != num_events ||
              raw.groups.count != layout.groups.size()) {
            return false;
          }
          const auto times = group_times_.begin() + static_cast<ptrdiff_t>(raw.groups.first);
          if (!spare_groups_.empty()) {
            part.groups = std::move(spare_groups_.back());
            spare_groups_.pop_back();
          }
          part.groups.assign(times, times + static_cast<ptrdiff_t>(raw.groups.count));
          if (!spare_events_.empty()) {
            part.events = std::move(spare_events_.back());
            spare_events_.pop_back();
          }
          part.events.resize(num_events);
          for (size_t e = 0; e < num_events; ++e) {
            part.events[e].inclusive = counts_[raw.inclusive.first + e];
            part.events[e].exclusive = counts_[raw.exclusive.first + e];
          }
        } else if (raw.listed != 0) {
          return false;  // some lists, some null: the full reader says what is wrong
        }
        if (raw.call_times.count > 0) {
          if (!spare_call_times_.empty()) {
            part.call_times = std::move(spare_call_times_.back());
            spare_call_times_.pop_back();
          }
          const auto times = call_times_.begin() + static_cast<ptrdiff_t>(raw.call_times.first);
          part.call_times.assign(times, times + static_cast<ptrdiff_t>(raw.call_times.count));
          if (!CallTimeCountsValid(part.call_times)) return false;
        }
        region.threads.push_back(std::move(part));
      }
    }
    data->regions = std::move(regions_);
    return CheckRegionTree(data->regions).ok();
  }

 private:
  // A JSON object of members named in `keys`, each at most once, and all of
  // `required`: on_member(k) reads the value of keys[k]. *seen says which
  // came. `order`: the keys' indices in the order td writes them.
  template <size_t N, typename OnMember>
  bool Object(const std::string_view (&keys)[N], const int (&order)[N], unsigned required, unsigned* seen,
              OnMember on_member) {
    *seen = 0;
    if (!in_.Take('{') || in_.Take('}')) return false;
    bool more = true;
    // td writes the keys in `order`, leaving some out (a region's
    // sample_every, a part's zero counts): the keys after the last one in
    // that order are tried first, each compared in place; any other key is
    // read as a string and looked up.
    size_t rank = 0;
    while (more) {
      int k = -1;
      for (size_t next = rank; next < N; ++next) {
        if (in_.TakeKey(keys[order[next]])) {
          k = order[next];
          rank = next;
          break;
        }
      }
      if (k < 0) {
        std::string_view key;
        if (!in_.RawString(&key) || !in_.Take(':')) return false;
        k = KeyIndex(key, keys, -1);
        if (k < 0) return false;
        rank = 0;
        while (order[rank] != k) ++rank;
      }
      if (*seen & (1u << k)) return false;
      *seen |= 1u << k;
      ++rank;
      if (!on_member(k) || !in_.Separator('}', &more)) return false;
    }
    return (*seen & required) == required;
  }

  bool ScanRegion() {
    td::Region region;
    size_t parts = 0;
    unsigned seen = 0;
    const bool read = Object(kRegionKeys, kRegionKeyOrder, kRegionRequired, &seen, [&](int k) {
      bool ok = true;
      switch (k) {
        case kIndex: {
          uint64_t index = 0;
          ok = in_.Unsigned(&index) && index == regions_.size();
          break;
        }
        case kName:
          ok = in_.String(&region.name);
          if (ok) region.name = UnescapeBytes(region.name);
          break;
        case kBaseName:
          ok = in_.String(&region.base_name);
          if (ok) region.base_name = UnescapeBytes(region.base_name);
          break;
        case kParameter: {
          if (in_.Null()) break;
          int64_t parameter = 0;
          ok = in_.Signed(&parameter, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
          region.parameter = parameter;
          break;
        }
        case kPath: ok = in_.String(&region.path); break;
        case kParent: {
          int64_t parent = 0;
          ok = in_.Signed(&parent, -1, INT_MAX);
          region.parent = static_cast<int>(parent);
          break;
        }
        case kChildren: ok = Children(&region.children); break;
        case kSampleEvery: {
          uint64_t every = 0;
          ok = in_.Unsigned(&every, uint64_t{1} << 20) && every >= 1;
          region.sample_every = static_cast<uint32_t>(every);
          break;
        }
        case kThreads: ok = Parts(&parts); break;
        default: ok = false;
      }
      return ok;
    });
    if (!read) return false;
    if (!(seen & (1u << kBaseName))) region.base_name = region.name;
    regions_.push_back(std::move(region));
    parts_of_region_.push_back(parts);
    return true;
  }

  bool Children(std::vector<int>* children) {
    if (!in_.Take('[')) return false;
    if (in_.Take(']')) return true;
    for (bool more = true; more;) {
      uint64_t child = 0;
      if (!in_.Unsigned(&child, INT_MAX)) return false;
      children->push_back(static_cast<int>(child));
      if (!in_.Separator(']', &more)) return false;
    }
    return true;
  }

  bool Parts(size_t* count) {
    if (!in_.Take('[')) return false;
    if (in_.Take(']')) return true;
    for (bool more = true; more;) {
      if (!Part() || !in_.Separator(']', &more)) return false;
      ++*count;
    }
    return true;
  }

  bool Part() {
    RawPart raw;
    RegionOnThread& t = raw.part;
    unsigned seen = 0;
    const bool read = Object(kPartKeys, kPartKeyOrder, kPartRequired, &seen, [&](int k) {
      bool ok = true;
      uint64_t value = 0;
      switch (k) {
        case kThread:
          ok = in_.Unsigned(&value, std::numeric_limits<uint32_t>::max());
          t.thread = static_cast<uint32_t>(value);
          break;
        case kCalls: ok = in_.Unsigned(&t.calls); break;
        case kRecursiveCalls: ok = in_.Unsigned(&t.recursive_calls); break;
        case kUnterminated: ok = in_.Unsigned(&t.unterminated); break;
        case kClosedImplicitly: ok = in_.Unsigned(&t.closed_implicitly); break;
        case kWallInclusive:
          ok = in_.Unsigned(&value, std::numeric_limits<int64_t>::max());
          t.wall_inclusive_ns = static_cast<int64_t>(value);
          break;
        case kWallExclusive:
          ok = in_.Unsigned(&value, std::numeric_limits<int64_t>::max());
          t.wall_exclusive_ns = static_cast<int64_t>(value);
          break;
        case kInclusive:
          if (in_.Null()) break;
          raw.listed |= 1u << kInclusive;
          ok = Counts(&raw.inclusive);
          break;
        case kExclusive:
          if (in_.Null()) break;
          raw.listed |= 1u << kExclusive;
          ok = Counts(&raw.exclusive);
          break;
        case kGroups:
          if (in_.Null()) break;
          raw.listed |= 1u << kGroups;
          ok = Groups(&raw.groups);
          break;
        case kMpi: ok = Mpi(&t.mpi); break;
        case kCallTimes: ok = CallTimes(&raw.call_times); break;
        default: ok = false;
      }
      return ok;
    });
    if (!read) return false;
    raw.all_counts = (seen & kPartZeroCounts) == kPartZeroCounts;
    parts_.push_back(std::move(raw));
    return true;
  }

  // [ns, calls, bytes]
  bool Mpi(MpiTime* mpi) {
    uint64_t ns = 0;
    bool more = true;
    if (!in_.Take('[') || !in_.Unsigned(&ns, std::numeric_limits<int64_t>::max()) || !in_.Separator(']', &more) ||
        !more || !in_.Unsigned(&mpi->calls) || !in_.Separator(']', &more) || !more || !in_.Unsigned(&mpi->bytes) ||
        !in_.Separator(']', &more) || more) {
      return false;
    }
    mpi->ns = static_cast<int64_t>(ns);
    return true;
  }

  // [[bucket, calls, ns], ...] appended to call_times_, where *span says;
  // checked (CallTimeCountsValid: buckets ascending, calls at least 1) by Finish.
  bool CallTimes(CountSpan* span) {
    if (!in_.Take('[')) return false;
    span->first = call_times_.size();
    if (in_.Take(']')) return true;
    for (bool more = true; more;) {
      uint64_t bucket = 0, ns = 0;
      CallTimeBucketTotal total;
      bool in_entry = true;
      if (!in_.Take('[') || !in_.Unsigned(&bucket, kCallTimeBuckets - 1) || !in_.Separator(']', &in_entry) ||
          !in_entry || !in_.Unsigned(&total.calls) || !in_.Separator(']', &in_entry) || !in_entry ||
          !in_.Unsigned(&ns, std::numeric_limits<int64_t>::max()) || !in_.Separator(']', &in_entry) || in_entry) {
        return false;
      }
      total.bucket = static_cast<uint32_t>(bucket);
      total.ns = static_cast<int64_t>(ns);
      call_times_.push_back(total);
      ++span->count;
      if (!in_.Separator(']', &more)) return false;
    }
    return true;
  }

  // A list of counts appended to counts_, where *span says.
  bool Counts(CountSpan* span) {
    if (!in_.Take('[')) return false;
    span->first = counts_.size();
    if (in_.Take(']')) return true;
    for (bool more = true; more;) {
      uint64_t value = 0;
      if (!in_.Unsigned(&value)) return false;
      counts_.push_back(value);
      ++span->count;
      if (!in_.Separator(']', &more)) return false;
    }
    return true;
  }

  // [[enabled, running], ...] appended to group_times_, where *span says.
  bool Groups(CountSpan* span) {
    if (!in_.Take('[')) return false;
    span->first = group_times_.size();
    if (in_.Take(']')) return true;
    for (bool more = true; more;) {
      GroupTimes times;
      bool last = true;
      if (!in_.Take('[') || !in_.Unsigned(&times.enabled_ns) || !in_.Separator(']', &last) || !last ||
          !in_.Unsigned(&times.running_ns) || !in_.Separator(']', &last) || last) {
        return false;
      }
      group_times_.push_back(times);
      ++span->count;
      if (!in_.Separator(']', &more)) return false;
    }
    return true;
  }

  Cursor& in_;
  std::vector<td::Region> regions_;
  std::vector<size_t>& parts_of_region_;
  std::vector<RawPart>& parts_;
  std::vector<uint64_t>& counts_;
  std::vector<GroupTimes>& group_times_;
  std::vector<CallTimeBucketTotal>& call_times_;
  std::vector<PartEvents>& spare_events_;
  std::vector<PartGroupTimes>& spare_groups_;
  std::vector<CallTimeCounts>& spare_call_times_;
};

}  // namespace

std::optional<RunData> ScanRunText(std::string_view text, RunScanBuffers* buffers) {
  try {
    std::optional<RunScanBuffers> own;
    if (buffers == nullptr) buffers = &own.emplace();
    Cursor in(text);
    if (!in.Take('{')) return std::nullopt;
    // Every member but "regions" is copied into a small document that
    // RunFromJson reads; "regions" is decoded here.
    std::string& head = buffers->vectors().head;
    head = "{";
    absl::flat_hash_set<std::string_view> keys;  // a set: a hostile file may have 100,000 keys
    RegionsScan regions(&in, &buffers->vectors());
    bool have_regions = false;
    if (in.Next('}')) return std::nullopt;
    for (bool more = true; more;) {
      std::string_view key;
      if (!in.RawString(&key) || !in.Take(':')) return std::nullopt;
      if (!keys.insert(key).second) return std::nullopt;  // twice: nlohmann keeps the last
      if (key == "td_job") return std::nullopt;  // a job file
      if (key == "regions") {
        if (!regions.Regions()) return std::nullopt;
        have_regions = true;
      } else {
        std::string_view value;
        if (!in.SkipValue(&value)) return std::nullopt;
        // A rank's summary is the job loader's (rank_summary_file.h), not the run's.
        if (key != kRankSummaryKey) head.append("\"").append(key).append("\":").append(value).append(",");
      }
      if (!in.Separator('}', &more)) return std::nullopt;
    }
    if (!have_regions || !in.AtEnd()) return std::nullopt;
    head += "\"regions\":[]}";
    const nlohmann::json json = nlohmann::json::parse(head, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return std::nullopt;
    absl::StatusOr<RunData> data = RunFromJson(json);
    if (!data.ok() || !regions.Finish(&*data)) return std::nullopt;
    return *std::move(data);
  } catch (...) {  // out of memory: the full reader says so its own way
    return std::nullopt;
  }
}

absl::StatusOr<RunData> RunFromText(const std::string& text, const std::string& path) {
  if (std::optional<RunData> scanned = ScanRunText(text)) return *std::move(scanned);
  absl::StatusOr<nlohmann::json> j = ParseJsonText(text, path);
  if (!j.ok()) return j.status();
  // A timeline (TD_TRACE) sits beside the recording with a similar name: say
  // what it is and how to look at it, not which field it lacks.
  if (j->is_object() && j->contains("traceEvents") && !j->contains("schema_version")) {
    std::string recording;
    if (absl::EndsWith(path, ".trace.json")) {
      recording = "; `td report " + path.substr(0, path.size() - 11) + ".json` reports the run";
    }
    return absl::InvalidArgumentError(
        path + " is a timeline (Chrome trace format), not a td recording: open it in https://ui.perfetto.dev or "
               "chrome://tracing" + recording);
  }
  absl::StatusOr<RunData> data = RunFromJson(*j);
  if (!data.ok()) {
    return absl::Status(data.status().code(), path + ": " + std::string(data.status().message()));
  }
  return data;
}

}  // namespace td

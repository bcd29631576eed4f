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
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/json_file.h"
#include "runtime/model/run_file.h"

namespace td {
namespace {

// A cursor over JSON text. Every method returns false where the text is not
// what the fast path takes; the cursor is then of no further use.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  void SkipSpace() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool AtEnd() {
    SkipSpace();
    return p_ == end_;
  }
  // Consumes `c` (after white space) when it is next.
  bool Take(char c) {
    SkipSpace();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool Next(char c) {
    SkipSpace();
    return p_ < end_ && *p_ == c;
  }
  // After a member or element: true with *more when a ',' followed, true
  // without when `close` did.
  bool Separator(char close, bool* more) {
    SkipSpace();
    if (p_ < end_ && *p_ == ',') {
      ++p_;
      *more = true;
      return true;
    }
    if (p_ < end_ && *p_ == close) {
      ++p_;
      *more = false;
      return true;
    }
    return false;
  }

  // A string without escapes, as it stands in the text (keys, counter names).
  bool RawString(std::string_view* out) {
    if (!Take('"')) return false;
    const char* start = p_;
    bool ascii = true;
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c == '\\' || c < 0x20) return false;
      ascii = ascii && c < 0x80;
      ++p_;
    }
    if (p_ == end_) return false;
    *out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return ascii || IsValidUtf8(*out);
  }

  // A string, its escapes decoded as nlohmann decodes them.
  bool String(std::string* out) {
    if (!Take('"')) return false;
    out->clear();
    const char* run = p_;
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c < 0x20) return false;
      if (c != '\\') {
        ++p_;
        continue;
      }
      out->append(run, p_);
      if (p_ + 1 >= end_) return false;
      switch (p_[1]) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          // \uXXXX (nlohmann writes control bytes so), a surrogate pair as one code point.
          uint32_t code = 0;
          if (!Hex4(p_ + 2, &code)) return false;
          p_ += 4;
          if (code >= 0xDC00 && code <= 0xDFFF) return false;
          if (code >= 0xD800 && code <= 0xDBFF) {
            uint32_t low = 0;
            if (end_ - p_ < 8 || p_[2] != '\\' || p_[3] != 'u' || !Hex4(p_ + 4, &low) || low < 0xDC00 ||
                low > 0xDFFF) {
              return false;
            }
            p_ += 6;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(code, out);
          break;
        }
        default: return false;
      }
      p_ += 2;
      run = p_;
    }
    if (p_ == end_) return false;
    out->append(run, p_);
    ++p_;
    return IsValidUtf8(*out);
  }

  // A JSON integer without sign, fraction or exponent, up to `max`.
  bool Unsigned(uint64_t* out, uint64_t max = std::numeric_limits<uint64_t>::max()) {
    SkipSpace();
    return Digits(out, max);
  }

  // An integer in [lo, hi]; a '-' only where lo is negative.
  bool Signed(int64_t* out, int64_t lo, int64_t hi) {
    SkipSpace();
    const bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    uint64_t magnitude = 0;
    if (!Digits(&magnitude, std::numeric_limits<uint64_t>::max())) return false;
    if (negative) {
      // "-0" is 0 to nlohmann: left to the full reader, as is anything below INT64_MIN.
      if (magnitude == 0 || magnitude > uint64_t{1} << 63) return false;
      *out = -static_cast<int64_t>(magnitude - 1) - 1;
    } else {
      if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
      *out = static_cast<int64_t>(magnitude);
    }
    return *out >= lo && *out <= hi;
  }

  bool Null() {
    SkipSpace();
    if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
      p_ += 4;
      return true;
    }
    return false;
  }

  // Any value, skipped; its text in *span. Only roughly checked: the spans
  // are parsed by nlohmann afterwards.
  bool SkipValue(std::string_view* span) {
    SkipSpace();
    const char* start = p_;
    int depth = 0;
    do {
      SkipSpace();
      if (p_ == end_) return false;
      const char c = *p_;
      if (c == '{' || c == '[') {
        ++depth;
        ++p_;
      } else if (c == '}' || c == ']') {
        if (--depth < 0) return false;
        ++p_;
      } else if (c == ',' || c == ':') {
        if (depth == 0) return false;
        ++p_;
      } else if (c == '"') {
        ++p_;
        while (p_ < end_ && *p_ != '"') {
          if (*p_ == '\\' && ++p_ == end_) return false;
          ++p_;
        }
        if (p_ == end_) return false;
        ++p_;
      } else {
        const char* token = p_;
        while (p_ < end_ && ((*p_ >= '0' && *p_ <= '9') || (*p_ >= 'a' && *p_ <= 'z') || *p_ == '-' ||
                             *p_ == '+' || *p_ == '.' || *p_ == 'E')) {
          ++p_;
        }
        if (p_ == token) return false;
      }
    } while (depth > 0);
    *span = std::string_view(start, static_cast<size_t>(p_ - start));
    return true;
  }

 private:
  // Four hex digits at `at` (within the text) as a number.
  bool Hex4(const char* at, uint32_t* out) const {
    if (end_ - at < 4) return false;
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = at[i];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) return false;
      value = value * 16 + static_cast<uint32_t>(digit);
    }
    *out = value;
    return true;
  }

  static void AppendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      *out += static_cast<char>(code);
    } else if (code < 0x800) {
      *out += static_cast<char>(0xC0 | (code >> 6));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      *out += static_cast<char>(0xE0 | (code >> 12));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (code >> 18));
      *out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  // Digits right here, as one JSON integer.
  bool Digits(uint64_t* out, uint64_t max) {
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    uint64_t value = 0;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
        const uint64_t digit = static_cast<uint64_t>(*p_ - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
        value = value * 10 + digit;
        ++p_;
      }
    }
    // A fraction or exponent (a float to nlohmann), or digits after a leading 0.
    if (p_ < end_ && ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
    if (value > max) return false;
    *out = value;
    return true;
  }

  const char* p_;
  const char* end_;
};

// Short byte strings compared inline (a call to memcmp costs more than these keys).
bool SameBytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// kKeys[i] is `key`, or -1. `expected` is tried first: td writes the keys
// sorted, so the next key is usually the one after the last.
template <size_t N>
int KeyIndex(std::string_view key, const std::string_view (&keys)[N], int expected) {
  if (expected >= 0 && expected < static_cast<int>(N) && SameBytes(keys[expected], key)) return expected;
  for (size_t i = 0; i < N; ++i) {
    if (SameBytes(keys[i], key)) return static_cast<int>(i);
  }
  return -1;
}

constexpr std::string_view kRegionKeys[] = {"index",  "name",     "base_name", "parameter",
                                            "path",   "parent",   "children",  "threads"};
enum RegionKey { kIndex, kName, kBaseName, kParameter, kPath, kParent, kChildren, kThreads };
constexpr unsigned kRegionRequired = 1u << kName | 1u << kPath | 1u << kParent | 1u << kChildren | 1u << kThreads;

constexpr std::string_view kPartKeys[] = {"thread",           "calls",          "recursive_calls",
                                          "unterminated",     "closed_implicitly", "wall_inclusive_ns",
                                          "wall_exclusive_ns", "inclusive",      "exclusive",
                                          "groups"};
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
  kGroups
};
constexpr unsigned kPartRequired = (1u << kInclusive) - 1;

// The order in which td writes each object's keys (sorted, as nlohmann's
// objects keep them): kRegionKeys and kPartKeys indices.
constexpr int kRegionKeyOrder[] = {2, 6, 0, 1, 3, 5, 4, 7};
constexpr int kPartKeyOrder[] = {1, 4, 8, 9, 7, 2, 0, 3, 6, 5};

// One thread's part of a region before the run's events and threads are
// known (they come after "regions" in the file): each list of counts as a
// span of counts_.
struct CountSpan {
  size_t first = 0;
  size_t count = 0;
};
struct RawPart {
  RegionOnThread part;
  unsigned listed = 0;  // bits 1 << kInclusive, kExclusive, kGroups: a list, not null
  CountSpan inclusive;
  CountSpan exclusive;
};

class RegionsScan {
 public:
  explicit RegionsScan(Cursor* in) : in_(*in) {}

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
    if (data->schema_version != kSchemaVersion) return false;  // an older layout: the full reader's
    const CounterLayout& layout = data->layout;
    const size_t num_events = layout.events.size();
    constexpr unsigned kAllListed = 1u << kInclusive | 1u << kExclusive | 1u << kGroups;
    size_t next_part = 0;
    for (size_t r = 0; r < regions_.size(); ++r) {
      td::Region& region = regions_[r];
      for (const int child : region.children) {
        if (static_cast<size_t>(child) >= regions_.size()) return false;
      }
      std::vector<bool> thread_seen(data->threads.size(), false);
      region.threads.reserve(parts_of_region_[r]);
      for (size_t t = 0; t < parts_of_region_[r]; ++t, ++next_part) {
        RawPart& raw = parts_[next_part];
        RegionOnThread& part = raw.part;
        if (part.thread >= data->threads.size() || thread_seen[part.thread]) return false;
        thread_seen[part.thread] = true;
        if (raw.listed == kAllListed) {
          if (raw.inclusive.count != num_events || raw.exclusive.count != num_events ||
              part.groups.size() != layout.groups.size()) {
            return false;
          }
          part.events.resize(num_events);
          for (size_t e = 0; e < num_events; ++e) {
            part.events[e].inclusive = counts_[raw.inclusive.first + e];
            part.events[e].exclusive = counts_[raw.exclusive.first + e];
          }
        } else if (raw.listed != 0) {
          return false;  // some lists, some null: the full reader says what is wrong
        }
        region.threads.push_back(std::move(part));
      }
    }
    data->regions = std::move(regions_);
    return CheckRegionTree(data->regions).ok();
  }

 private:
  bool ScanRegion() {
    if (!in_.Take('{')) return false;
    td::Region region;
    size_t parts = 0;
    unsigned seen = 0;
    if (in_.Take('}')) return false;
    bool more = true;
    for (int position = 0; more; ++position) {
      std::string_view key;
      if (!in_.RawString(&key) || !in_.Take(':')) return false;
      const int k = KeyIndex(key, kRegionKeys, position < 8 ? kRegionKeyOrder[position] : -1);
      if (k < 0 || (seen & (1u << k))) return false;
      seen |= 1u << k;
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
        case kThreads: ok = Parts(&parts); break;
        default: return false;
      }
      if (!ok || !in_.Separator('}', &more)) return false;
    }
    if ((seen & kRegionRequired) != kRegionRequired) return false;
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
    if (!in_.Take('{')) return false;
    RawPart raw;
    RegionOnThread& t = raw.part;
    unsigned seen = 0;
    if (in_.Take('}')) return false;
    bool more = true;
    for (int position = 0; more; ++position) {
      std::string_view key;
      if (!in_.RawString(&key) || !in_.Take(':')) return false;
      const int k = KeyIndex(key, kPartKeys, position < 10 ? kPartKeyOrder[position] : -1);
      if (k < 0 || (seen & (1u << k))) return false;
      seen |= 1u << k;
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
          ok = Groups(&t.groups);
          break;
        default: return false;
      }
      if (!ok || !in_.Separator('}', &more)) return false;
    }
    if ((seen & kPartRequired) != kPartRequired) return false;
    parts_.push_back(std::move(raw));
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

  bool Groups(std::vector<GroupTimes>* groups) {
    if (!in_.Take('[')) return false;
    if (in_.Take(']')) return true;
    for (bool more = true; more;) {
      GroupTimes times;
      bool last = true;
      if (!in_.Take('[') || !in_.Unsigned(&times.enabled_ns) || !in_.Separator(']', &last) || !last ||
          !in_.Unsigned(&times.running_ns) || !in_.Separator(']', &last) || last) {
        return false;
      }
      groups->push_back(times);
      if (!in_.Separator(']', &more)) return false;
    }
    return true;
  }

  Cursor& in_;
  std::vector<td::Region> regions_;
  std::vector<size_t> parts_of_region_;
  std::vector<RawPart> parts_;
  std::vector<uint64_t> counts_;  // every part's listed counts, inclusive then exclusive
};

}  // namespace

std::optional<RunData> ScanRunText(std::string_view text) {
  try {
    Cursor in(text);
    if (!in.Take('{')) return std::nullopt;
    // Every member but "regions" is copied into a small document that
    // RunFromJson reads; "regions" is decoded here.
    std::string head = "{";
    std::vector<std::string_view> keys;
    RegionsScan regions(&in);
    bool have_regions = false;
    if (in.Next('}')) return std::nullopt;
    for (bool more = true; more;) {
      std::string_view key;
      if (!in.RawString(&key) || !in.Take(':')) return std::nullopt;
      for (const std::string_view earlier : keys) {
        if (earlier == key) return std::nullopt;  // twice: nlohmann keeps the last
      }
      keys.push_back(key);
      if (key == "td_job") return std::nullopt;  // a job file
      if (key == "regions") {
        if (!regions.Regions()) return std::nullopt;
        have_regions = true;
      } else {
        std::string_view value;
        if (!in.SkipValue(&value)) return std::nullopt;
        head.append("\"").append(key).append("\":").append(value).append(",");
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
  absl::StatusOr<RunData> data = RunFromJson(*j);
  if (!data.ok()) {
    return absl::Status(data.status().code(), path + ": " + std::string(data.status().message()));
  }
  return data;
}

}  // namespace td

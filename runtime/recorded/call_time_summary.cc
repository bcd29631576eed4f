#include "runtime/recorded/call_time_summary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "runtime/regions/node_stats.h"

namespace td {
namespace {

// A bucket's calls and their total in ns, over the parts.
struct Cluster {
  uint64_t calls = 0;
  double ns = 0;
};

// The mean of the bucket that holds the call at `rank` (0: the least).
double ValueAtRank(const std::array<Cluster, kCallTimeBuckets>& buckets, uint64_t rank) {
  uint64_t before = 0;
  for (const Cluster& c : buckets) {
    if (c.calls == 0) continue;
    if (rank < before + c.calls) return c.ns / static_cast<double>(c.calls);
    before += c.calls;
  }
  return 0;
}

}  // namespace

std::optional<CallTimeSummary> RegionCallTimes(const RunData& run, const Region& region) {
  std::array<Cluster, kCallTimeBuckets> buckets{};
  CallTimeSummary out;
  double taken_out = 0, wall = 0;
  uint64_t outermost_calls = 0;
  for (const RegionOnThread& t : region.threads) {
    const uint64_t outermost = t.calls - std::min(t.recursive_calls, t.calls);
    const uint64_t read = MeasuredOutermostCalls(outermost, run.SampleEveryOf(region));
    outermost_calls += outermost;
    wall += static_cast<double>(t.wall_inclusive_ns);
    if (read == 0) continue;
    uint64_t in_part = 0;
    if (t.call_times.empty()) {
      if (read > 1) return std::nullopt;
      // One read call: its time is the part's, per outermost call (TD_SAMPLE
      // scaled the inclusive time to all of them), as measured.
      const double one = static_cast<double>(t.wall_inclusive_ns) / static_cast<double>(outermost) +
                         t.call_time_taken_out_ns;
      Cluster& c = buckets[CallTimeBucket(std::llround(one))];
      ++c.calls;
      c.ns += one;
      in_part = 1;
    } else {
      for (const CallTimeBucketTotal& b : t.call_times) {
        buckets[b.bucket].calls += b.calls;
        buckets[b.bucket].ns += static_cast<double>(b.ns);
        in_part += b.calls;
      }
      // A wrapped 32-bit bucket lost 2^32 calls. A copy made while the
      // thread recorded (TD_FLUSH_INTERVAL) may count a call or two more or
      // fewer in its histogram than in its calls: kept.
      if (read > in_part && read - in_part >= (uint64_t{1} << 31)) return std::nullopt;
    }
    out.calls += in_part;
    taken_out += t.call_time_taken_out_ns * static_cast<double>(in_part);
  }
  if (out.calls == 0) return std::nullopt;
  // What td's cost took from the totals, taken from each call alike.
  const double shift = taken_out / static_cast<double>(out.calls);
  const auto at = [&](double q) {
    const auto rank = static_cast<uint64_t>(std::llround(q * static_cast<double>(out.calls - 1)));
    return std::max(0.0, ValueAtRank(buckets, rank) - shift);
  };
  out.mean_ns = wall / static_cast<double>(std::max<uint64_t>(outermost_calls, 1));
  out.min_ns = std::min(at(0), out.mean_ns);
  out.median_ns = at(0.5);
  out.p95_ns = at(0.95);
  out.max_ns = std::max(at(1), out.mean_ns);
  for (const Cluster& c : buckets) {
    if (c.calls != 0 && c.ns / static_cast<double>(c.calls) - shift >= 2 * out.median_ns) {
      out.calls_over_twice_median += c.calls;
    }
  }
  return out;
}

bool CallTimesWorthShowing(const CallTimeSummary& s) {
  return s.calls >= 10 && s.median_ns > 0 && (s.p95_ns >= 1.5 * s.median_ns || s.max_ns >= 4 * s.median_ns);
}

}  // namespace td

#include "runtime/regions/call_times.h"

namespace td {

CallTimeCounts CallTimesInNs(const CallTimeHistogram& ticks, double ns_per_tick) {
  CallTimeCounts out;
  for (uint32_t b = 0; b < kCallTimeBuckets; ++b) {
    if (ticks.counts[b] == 0) continue;
    const auto ns = static_cast<int64_t>(std::llround(static_cast<double>(ticks.ticks[b]) * ns_per_tick));
    // A clock that ran backwards gives a negative sum: its calls count as 0 ns.
    const int64_t total = ns < 0 ? 0 : ns;
    const uint32_t bucket = CallTimeBucket(total / ticks.counts[b]);
    if (!out.empty() && out.back().bucket >= bucket) {  // means that share a bucket
      out.back().calls += ticks.counts[b];
      out.back().ns += total;
    } else {
      out.push_back({bucket, ticks.counts[b], total});
    }
  }
  return out;
}

}  // namespace td

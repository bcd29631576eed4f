#include "runtime/regions/call_times.h"

namespace td {

CallTimeCounts CallTimesInNs(const CallTimeHistogram& ticks, double ns_per_tick) {
  CallTimeCounts out;
  for (uint32_t b = 0; b < kCallTimeBuckets; ++b) {  // in bucket order: `out` ascends
    const uint32_t slot = SlotOfBucket(b);
    const uint32_t calls = ticks.counts[slot];
    if (calls == 0) continue;
    const auto ns = static_cast<int64_t>(std::llround(static_cast<double>(ticks.ticks[slot]) * ns_per_tick));
    // A clock that ran backwards gives a negative sum: its calls count as 0 ns.
    const int64_t total = ns < 0 ? 0 : ns;
    const uint32_t bucket = CallTimeBucket(total / calls);
    if (!out.empty() && out.back().bucket >= bucket) {  // means that share a bucket
      out.back().calls += calls;
      out.back().ns += total;
    } else {
      out.push_back({bucket, calls, total});
    }
  }
  return out;
}

}  // namespace td

#include "runtime/report/call_times_text.h"

#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

std::string Duration(double ns) { return HumanDuration(static_cast<int64_t>(std::llround(ns))); }

}  // namespace

std::string FormatCallTimesSection(const RunData& data, const std::vector<bool>& shown) {
  std::string rows;
  for (size_t r = 0; r < data.regions.size(); ++r) {
    if (r >= shown.size() || !shown[r]) continue;
    const std::optional<CallTimeSummary> s = RegionCallTimes(data, data.regions[r]);
    if (!s || !CallTimesWorthShowing(*s)) continue;
    absl::StrAppendFormat(&rows, "  %-24s %9s %10s %10s %10s %10s  %s (%.1f%%)\n", Printable(data.regions[r].path),
                          WithThousands(s->calls), Duration(s->min_ns), Duration(s->median_ns), Duration(s->p95_ns),
                          Duration(s->max_ns), WithThousands(s->calls_over_twice_median),
                          100.0 * static_cast<double>(s->calls_over_twice_median) / static_cast<double>(s->calls));
  }
  if (rows.empty()) return "";
  return absl::StrFormat("\nper-call times (regions whose calls vary: p95 ≥ 1.5 × median or max ≥ 4 × median; "
                         "each value the mean of the calls within a quarter octave of it):\n  %-24s %9s %10s %10s %10s %10s  %s\n",
                         "region", "calls", "min", "median", "p95", "max", "calls ≥ 2 × median") +
         rows;
}

nlohmann::json CallTimesJson(const CallTimeSummary& s) {
  return {{"calls", s.calls},
          {"mean_ns", s.mean_ns},
          {"min_ns", s.min_ns},
          {"median_ns", s.median_ns},
          {"p95_ns", s.p95_ns},
          {"max_ns", s.max_ns},
          {"calls_over_twice_median", s.calls_over_twice_median},
          {"varies", CallTimesWorthShowing(s)}};
}

}  // namespace td

#include "runtime/report/simulated_text.h"

#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/base/text_format.h"
#include "runtime/counters/simulated_backend.h"

namespace td {
namespace {

std::optional<double> Count(const RunData& data, const Region& region, const char* name) {
  const std::optional<size_t> e = data.EventIndex(name);
  if (!e) return std::nullopt;
  return ScaledRegionCount(data, region, *e);
}

}  // namespace

bool IsSimulatedGroup(const RunData& data, size_t g) {
  const GroupInfo& group = data.layout.groups[g];
  return group.num_events != 0 && IsSimulatedEvent(data.layout.events[group.first_event].name);
}

std::string SimulatedRatesLine(const RunData& data, const Region& region) {
  const std::optional<double> instructions = Count(data, region, "sim.instructions");
  if (!instructions || *instructions <= 0) return "";
  std::vector<std::string> rates;
  if (const uint64_t calls = Totals(region, 0).calls; calls > 0) {
    const double per_call = *instructions / static_cast<double>(calls);
    rates.push_back(WithThousands(static_cast<uint64_t>(std::llround(per_call))) + " instructions per call");
  }
  const std::optional<double> branches = Count(data, region, "sim.branches");
  const std::optional<double> misses = Count(data, region, "sim.branch_misses");
  if (branches && misses && *branches > 0) {
    rates.push_back(absl::StrFormat("branch-miss rate %.2f%%", 100 * *misses / *branches));
  }
  for (const auto& [name, label] : {std::pair{"sim.l1d_misses", "L1D"}, std::pair{"sim.ll_misses", "LL"}}) {
    if (const std::optional<double> m = Count(data, region, name)) {
      rates.push_back(absl::StrFormat("%s misses %.2f per 1000 instructions", label, 1000 * *m / *instructions));
    }
  }
  return absl::StrFormat("    simulated (tdsim, not measured): %s\n", absl::StrJoin(rates, ", "));
}

std::string SimulatedCountsText(const RunData& data, const Region& region) {
  std::vector<std::string> cells;
  for (size_t e = 0; e < data.layout.events.size(); ++e) {
    if (!IsSimulatedEvent(data.layout.events[e].name)) continue;
    const std::optional<double> v = ScaledRegionCount(data, region, e);
    if (!v) continue;
    cells.push_back(data.layout.events[e].name + " " + WithThousands(static_cast<uint64_t>(std::llround(*v))));
  }
  if (cells.empty()) return "";
  return "simulated by Valgrind tdsim: " + absl::StrJoin(cells, ", ");
}

}  // namespace td

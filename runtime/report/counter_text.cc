#include "runtime/report/counter_text.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"
#include "runtime/report/simulated_text.h"

namespace td {
namespace {

// The default group (page-faults, task-clock, …, or task-clock alone where it
// is a hardware group's time enabled) is already in the table.
bool IsDefaultGroup(const RunData& data, size_t g) {
  const GroupInfo& group = data.layout.groups[g];
  if (g != 0 || group.num_events == 0) return false;
  const std::string& first = data.layout.events[group.first_event].name;
  return first == "page-faults" || (first == "task-clock" && group.num_events == 1);
}

std::string FormatCount(double value) {
  return value >= 0 ? WithThousands(static_cast<uint64_t>(std::llround(value))) : "?";
}

}  // namespace

namespace {

// Longer group lines are broken after their heading (a Level-3 group on
// Intel names a dozen events, each with a count).
constexpr size_t kLongestGroupLine = 160;
constexpr size_t kWrapAt = 110;

// `cells` joined by two spaces, on lines of at most kWrapAt columns (a
// cell longer than that has a line to itself), each line led by `indent`.
std::string WrapCells(const std::vector<std::string>& cells, const std::string& indent) {
  std::string out, line;
  for (const std::string& cell : cells) {
    if (!line.empty() && indent.size() + line.size() + 2 + cell.size() > kWrapAt) {
      out += indent + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : "  ") + cell;
  }
  if (!line.empty()) out += indent + line + "\n";
  return out;
}

}  // namespace

std::string FormatCounterSection(const RunData& data, const TextReportOptions& options) {
  std::vector<size_t> shown;
  for (size_t g = 0; g < data.layout.groups.size(); ++g) {
    if (!IsDefaultGroup(data, g)) shown.push_back(g);
  }
  if (shown.empty()) return "";
  std::string out =
      "\ncounters (scaled by time enabled / time running; coverage = share of the region's time "
      "the group was counted):\n";
  const auto instructions = data.EventIndex("instructions");
  const std::vector<bool> shown_regions = ShownRegions(data, options);
  for (size_t r = 0; r < data.regions.size(); ++r) {
    if (!shown_regions[r]) continue;
    const Region& region = data.regions[r];
    absl::StrAppendFormat(&out, "  %s\n", Printable(region.path));
    for (size_t g : shown) {
      const GroupInfo& group = data.layout.groups[g];
      std::vector<std::string> names;
      for (size_t i = 0; i < group.num_events; ++i) {
        names.push_back(Printable(data.layout.events[group.first_event + i].name));
      }
      const std::optional<double> coverage = GroupCoverage(region, g);
      const bool counted = coverage && *coverage > 0;
      std::vector<std::string> cells;
      for (size_t i = 0; counted && i < group.num_events; ++i) {
        const std::optional<double> v = ScaledRegionCount(data, region, group.first_event + i);
        cells.push_back(absl::StrFormat("%s %s", names[i], v ? FormatCount(*v) : "not measured"));
      }
      const std::string status = counted ? absl::StrFormat("coverage %3.0f%%", *coverage * 100)
                                         : "not measured (the group never counted in this region)";
      const std::string& core_type = data.layout.events[group.first_event].core_type;
      std::string where = core_type.empty() ? "" : " on " + Printable(core_type);
      if (IsSimulatedGroup(data, g)) where = " (simulated by Valgrind tdsim, not a PMU)";
      std::string line = absl::StrFormat("    group %d%s {%s}: %s", g, where, absl::StrJoin(names, ","), status);
      if (!cells.empty()) absl::StrAppend(&line, "  ", absl::StrJoin(cells, "  "));
      if (line.size() <= kLongestGroupLine) {
        out += line + "\n";
        continue;
      }
      // A large group: its events (or, when counted, its counts, which name
      // them) on lines of their own, so no line runs to a thousand columns.
      absl::StrAppendFormat(&out, "    group %d%s, %d events: %s\n", g, where, group.num_events, status);
      out += WrapCells(cells.empty() ? names : cells, "      ");
    }
    out += SimulatedRatesLine(data, region);
    if (instructions) {
      const std::optional<double> count = ScaledRegionCount(data, region, *instructions);
      const RegionTotals totals = Totals(region, 0);
      if (count && totals.calls > 0 && *count / static_cast<double>(totals.calls) < kShortRegionInstructions) {
        absl::StrAppendFormat(&out,
                              "    too short to trust: %s instructions per call (< %s); counts per "
                              "call are dominated by read overhead and skid\n",
                              FormatCount(*count / static_cast<double>(totals.calls)),
                              WithThousands(static_cast<uint64_t>(kShortRegionInstructions)));
      }
    }
  }
  return out;
}

}  // namespace td

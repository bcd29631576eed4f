#include "runtime/report/mpi_text.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"

namespace td {

std::string HumanBytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  if (unit == 0) return absl::StrFormat("%d B", bytes);
  const int decimals = value < 10 ? 2 : value < 100 ? 1 : 0;  // three significant digits
  return absl::StrFormat("%.*f %s", decimals, value, kUnits[unit]);
}

std::string FormatMpiSection(const RunData& data, const std::vector<bool>& shown) {
  if (!data.mpi_outside_regions && !(data.mpi && data.mpi->aborted)) return "";
  std::string out = "\n";
  if (data.mpi && data.mpi->aborted) {
    out += "this rank called MPI_Abort: its recording was written then (regions still open count as unterminated)\n";
  }
  if (!data.mpi_outside_regions) return out;
  // A region's MPI time is summed over its threads; its share is of the
  // region's wall time (its longest thread), as its own row shows it.
  absl::StrAppendFormat(&out, "MPI calls (libtd-mpi: time in the wrapped MPI calls made in each region, nested "
                              "regions included)\n");
  absl::StrAppendFormat(&out, "%-32s %10s %7s %10s %10s\n", "region", "MPI time", "share", "MPI calls", "bytes");
  MpiTime all = *data.mpi_outside_regions;
  for (size_t r = 0; r < data.regions.size(); ++r) {
    const Region& region = data.regions[r];
    const RegionTotals totals = Totals(region, 0);
    if (region.parent < 0) all.Add(totals.mpi);
    if (r >= shown.size() || !shown[r]) continue;
    const int depth = static_cast<int>(std::count(region.path.begin(), region.path.end(), '/'));
    const std::string name = std::string(2 * depth, ' ') + Printable(region.name);
    const std::string share = totals.wall_inclusive_ns > 0
                                  ? absl::StrFormat("%.1f%%", 100.0 * static_cast<double>(totals.mpi.ns) /
                                                                  static_cast<double>(totals.wall_inclusive_ns))
                                  : "—";
    absl::StrAppendFormat(&out, "%-32s %10s %7s %10s %10s\n", name, HumanDuration(totals.mpi.ns), share,
                          WithThousands(totals.mpi.calls), HumanBytes(totals.mpi.bytes));
  }
  const MpiTime& outside = *data.mpi_outside_regions;
  absl::StrAppendFormat(&out, "%-32s %10s %7s %10s %10s\n", "(outside regions)", HumanDuration(outside.ns), "",
                        WithThousands(outside.calls), HumanBytes(outside.bytes));
  const int64_t elapsed = data.program.end_unix_ns - data.program.start_unix_ns;
  const std::string share =
      elapsed > 0 ? absl::StrFormat("%.1f%%", 100.0 * static_cast<double>(all.ns) / static_cast<double>(elapsed))
                  : "";
  absl::StrAppendFormat(&out, "%-32s %10s %7s %10s %10s\n", "(whole run)", HumanDuration(all.ns), share,
                        WithThousands(all.calls), HumanBytes(all.bytes));
  return out;
}

}  // namespace td

// The text report's MPI section (docs/hpc.md#mpi-time-per-region): per
// region, the time libtd-mpi's wrapped MPI calls took in it, their share of
// the region's wall time, their number and bytes; then the time outside
// every region. Nothing where the run has no MPI times.
#ifndef TD_RUNTIME_REPORT_MPI_TEXT_H_
#define TD_RUNTIME_REPORT_MPI_TEXT_H_

#include <string>
#include <vector>

#include "runtime/recorded/run_data.h"

namespace td {

// `shown`: per region, whether the report shows it.
std::string FormatMpiSection(const RunData& data, const std::vector<bool>& shown);

// "1.5 MB": bytes in powers of 1000, three significant digits.
std::string HumanBytes(uint64_t bytes);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_MPI_TEXT_H_

// Reading the one-line files of sysfs and procfs (PMU types, cpumasks,
// format fields, perf_event_paranoid …), in one place.
#ifndef TD_RUNTIME_MACHINE_KERNEL_FILES_H_
#define TD_RUNTIME_MACHINE_KERNEL_FILES_H_

#include <cstdint>
#include <optional>
#include <string>

namespace td {

// The file's first line without surrounding whitespace; nullopt when it
// cannot be read.
std::optional<std::string> ReadFirstLine(const std::string& path);

// The integer the file's first line holds; nullopt when unreadable or not a number.
std::optional<int64_t> ReadIntegerFile(const std::string& path);

}  // namespace td

#endif  // TD_RUNTIME_MACHINE_KERNEL_FILES_H_

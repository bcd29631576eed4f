// Writing report files without clobbering through symlinks or leaving
// half-written files behind.
#ifndef TD_RUNTIME_REPORT_OUTPUT_FILES_H_
#define TD_RUNTIME_REPORT_OUTPUT_FILES_H_

#include <string>

#include "absl/status/status.h"

namespace td {

// Writes `content` to `path` through a new temporary file in the same
// directory (created with O_EXCL | O_NOFOLLOW) that is renamed over `path`.
// A symlink at `path` is replaced, never followed.
absl::Status WriteFileAtomically(const std::string& path, const std::string& content);

// "td-<program>-<pid>.json", with characters other than [A-Za-z0-9._-]
// in the program name replaced by '_'.
std::string JsonFileName(const std::string& program, long pid);

}  // namespace td

#endif  // TD_RUNTIME_REPORT_OUTPUT_FILES_H_

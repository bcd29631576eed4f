// Reading the files td is given (recordings, case files, perf output) with
// errors a user can act on: the system's reason when a file cannot be read,
// the line and column when its JSON is malformed.
#ifndef TD_RUNTIME_BASE_JSON_FILE_H_
#define TD_RUNTIME_BASE_JSON_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace td {

// The whole file. Errors read "cannot open PATH: <strerror>" (NotFound when
// it does not exist) or "cannot read PATH: <strerror>" (a directory, say).
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

// `text` as JSON; a syntax error reads "WHERE: not valid JSON: line L,
// column C: <what the parser expected>".
absl::StatusOr<nlohmann::json> ParseJsonText(const std::string& text, const std::string& where);

// ReadTextFile, then ParseJsonText with the path as WHERE.
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

}  // namespace td

#endif  // TD_RUNTIME_BASE_JSON_FILE_H_

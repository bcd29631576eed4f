// Reading the files td is given (recordings, case files, perf output) with
// errors a user can act on: the system's reason when a file cannot be read,
// the line and column when its JSON is malformed.
#ifndef TD_RUNTIME_BASE_JSON_FILE_H_
#define TD_RUNTIME_BASE_JSON_FILE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace td {

// The most ReadTextFile reads: far above any recording td writes (64
// threads × 10,000 regions make 94 MB), far below what would exhaust memory
// before the refusal.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{4} << 30;

// The whole file, which must be a regular file of text. Errors read "cannot
// open PATH: <strerror>" (NotFound when it does not exist), "cannot read
// PATH: <strerror>" (a directory, say), "cannot read PATH: a FIFO, not a
// regular file; …" (FailedPrecondition: devices and FIFOs are never read,
// since they may never end or never start), "PATH: not text: a NUL byte at
// offset N" (InvalidArgument, said at the first NUL, before the rest is read)
// or "PATH is N bytes, over the 4 GiB td reads" (ResourceExhausted).
absl::StatusOr<std::string> ReadTextFile(const std::string& path);
// The same into *text, whose memory is used again: a reader of many files
// (td report DIR) then asks for it once, not once per file.
absl::Status ReadTextFileInto(const std::string& path, std::string* text);
// The first `bytes` of it at most, checked the same way; *whole says whether
// that was all of the file (a file of exactly `bytes` reads as not whole),
// and where it was not, *tail (may be null) gets its last kTailBytes.
inline constexpr size_t kTailBytes = 64;
absl::Status ReadTextFilePrefixInto(const std::string& path, size_t bytes, std::string* text, bool* whole,
                                    std::string* tail = nullptr);

// `text` as JSON; a syntax error reads "WHERE: not valid JSON: line L,
// column C: <what the parser expected>".
absl::StatusOr<nlohmann::json> ParseJsonText(const std::string& text, const std::string& where);

// ReadTextFile, then ParseJsonText with the path as WHERE.
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

}  // namespace td

#endif  // TD_RUNTIME_BASE_JSON_FILE_H_

// Writing report files without clobbering through symlinks or leaving
// half-written files behind.
#ifndef TD_RUNTIME_BASE_OUTPUT_FILES_H_
#define TD_RUNTIME_BASE_OUTPUT_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace td {

// Writes `content` to `path`, by what `path` is:
//  * nothing, or a regular file: through a new temporary file in the same
//    directory (created with O_EXCL | O_NOFOLLOW) renamed over `path`, so
//    that readers never see half a file;
//  * /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written to that
//    file descriptor of this process, at its current offset;
//  * a character device (/dev/null, a terminal) or a FIFO: written into, never
//    created, truncated or replaced. A FIFO nobody reads is an error at once
//    (it is opened non-blocking), and a reader or device that takes nothing
//    for 10 seconds ends the write with an error: never a hang, and never a
//    SIGPIPE for the program;
//  * a symbolic link: written through only when it leads to a character
//    device or a FIFO; a link to a regular file, a directory or nothing is an
//    error (td neither replaces a link nor writes through one into a file);
//  * a directory, block device or socket: an error.
// Errors are one line naming `path`.
absl::Status WriteFileAtomically(const std::string& path, const std::string& content);

// Writes `content` as a new file in `dir` without ever replacing a file:
// `stem + suffix` when that name is free, else the first free one of
// `stem.1 + suffix`, `stem.2 + suffix`, ... (the file is written to a
// temporary name first, then linked to its final name, which fails rather
// than replace). Returns the path written.
absl::StatusOr<std::string> WriteNewFile(const std::string& dir, const std::string& stem,
                                         const std::string& suffix, const std::string& content);

// Content written as it is produced, so that a large report is never held
// whole: the producer passes its pieces, in order, to the writer it is
// given, and returns false when it could not produce all of them (out of
// memory) or the writer returned false (the write failed). It may be called
// more than once, each time from the start.
using PieceWriter = absl::FunctionRef<bool(std::string_view piece)>;
using ContentProducer = absl::FunctionRef<bool(PieceWriter write)>;
// A producer of `content` in one piece. It refers to `content`: pass it
// straight to a call, never keep it.
inline auto WholeContent(const std::string& content) {
  return [&content](PieceWriter write) { return write(content); };
}
// WriteNewFile of what `content` produces. A file left incomplete (a failed
// write, a producer out of memory) is removed: an error names it.
absl::StatusOr<std::string> WriteNewFile(const std::string& dir, const std::string& stem,
                                         const std::string& suffix, ContentProducer content);
// WriteFileAtomically of what `content` produces: a regular file is replaced
// only by a complete one (a producer that stops leaves the old file as it
// was); a descriptor, device or FIFO gets the pieces as they come (what it
// received before a producer stopped stays there, and the error says that
// formatting ran out of memory).
absl::Status WriteFileAtomically(const std::string& path, ContentProducer content);

// A file td wrote and may write again (the periodic flush's partial file,
// which each flush and then the final write replace): its path, and the
// device and inode it had when td last wrote it.
struct OwnFile {
  std::string path;  // "": none yet
  uint64_t device = 0;
  uint64_t inode = 0;
};
// Records `path`, just written by td, as `file`. False when it is gone.
bool RememberOwnFile(const std::string& path, OwnFile* file);
// Replaces `file` with what `content` produces, through a temporary file
// renamed over it, as long as its path still names the file td wrote last
// (its device and inode): a file someone else put there meanwhile is left
// as it is, and the error says so. `file` then names the new file.
absl::Status ReplaceOwnFile(OwnFile* file, ContentProducer content);
// Removes `file` where its path still names the file td wrote last.
void RemoveOwnFile(OwnFile* file);

// "td-<program>-<pid>.json", with characters other than [A-Za-z0-9._-]
// in the program name replaced by '_', and the name cut to its first 128
// bytes.
std::string JsonFileName(const std::string& program, long pid);
// The same without ".json": what traces and never-replace names build on.
std::string JsonFileStem(const std::string& program, long pid);
// An MPI rank's: "td-<program>-<job>-rank<R>", R zero-padded to the digits
// of size − 1 so that a directory lists ranks in order ("-<job>" left out
// when the launcher named no job); the job name is cut to 48 bytes and
// written with the same characters as the program name.
std::string RankFileStem(const std::string& program, const std::string& job, int64_t rank, int64_t size);
// A whole MPI job's file (libtd-mpi): "td-<program>-<job>-job", or
// "td-<program>-job" when the launcher named no job; the parts as above.
std::string JobFileStem(const std::string& program, const std::string& job);

}  // namespace td

#endif  // TD_RUNTIME_BASE_OUTPUT_FILES_H_

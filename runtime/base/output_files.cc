#include "runtime/base/output_files.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/base/status_macros.h"

namespace td {

namespace {

constexpr int kStallMs = 10000;  // a reader or device taking nothing this long ends the write

// Writes everything to `fd`, waiting (at most kStallMs without progress)
// where it is non-blocking and full. SIGPIPE is held back while writing, so
// a reader that goes away is an EPIPE error, not the end of the program.
// `earlier`: the bytes of the content written before this piece, so that an
// error says how far the whole write got.
absl::Status WriteAll(int fd, std::string_view content, const std::string& what, size_t earlier) {
  sigset_t pipe_only, old_mask, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  absl::Status status = absl::OkStatus();
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p = {fd, POLLOUT, 0};
      int ready = 0;
      do {
        ready = poll(&p, 1, kStallMs);
      } while (ready < 0 && errno == EINTR);
      if (ready > 0) continue;
      status = absl::DeadlineExceededError(absl::StrFormat(
          "cannot write %s: nothing was taken for %d s after %d bytes", what, kStallMs / 1000, earlier + done));
      break;
    }
    const int err = n < 0 ? errno : ENOSPC;
    status = err == EPIPE
                 ? absl::UnavailableError(
                       absl::StrFormat("cannot write %s: the reader went away after %d bytes", what, earlier + done))
                 : absl::ErrnoToStatus(err, absl::StrCat("cannot write ", what));
    break;
  }
  if (!was_pending) {
    const timespec zero = {0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  return status;
}

// Everything `produce` gives, written to `fd` piece by piece.
absl::Status WriteProduced(int fd, ContentProducer produce, const std::string& what) {
  absl::Status status = absl::OkStatus();
  size_t written = 0;
  const bool complete = produce([&](std::string_view piece) {
    status = WriteAll(fd, piece, what, written);
    written += piece.size();
    return status.ok();
  });
  if (!status.ok()) return status;
  if (!complete) return absl::ResourceExhaustedError("out of memory while formatting it");
  return absl::OkStatus();
}

// /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N: this process's
// descriptor N; -1 for any other path.
int OwnDescriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const size_t length = std::strlen(prefix);
    if (path.compare(0, length, prefix) != 0 || path.size() == length || path.size() > length + 6) continue;
    int fd = 0;
    for (size_t i = length; i < path.size(); ++i) {
      if (path[i] < '0' || path[i] > '9') return -1;
      fd = fd * 10 + (path[i] - '0');
    }
    return fd;
  }
  return -1;
}

// A character device or FIFO at `path` (through a symlink when `follow`):
// opened without O_CREAT or O_TRUNC, non-blocking so that a FIFO with no
// reader fails at once.
absl::Status WriteIntoSpecialFile(const std::string& path, bool follow, ContentProducer content) {
  const int flags = O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
  const int fd = open(path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (err == ENXIO && stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
      return absl::UnavailableError(absl::StrFormat("%s is a FIFO that no process is reading", path));
    }
    return absl::ErrnoToStatus(err, absl::StrCat("cannot open ", path));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
    close(fd);  // swapped for something else since it was looked at: not touched
    return absl::FailedPreconditionError(absl::StrFormat("%s changed while td opened it; not written", path));
  }
  absl::Status status = WriteProduced(fd, content, path);
  if (close(fd) != 0 && status.ok() && errno != EINTR) {
    status = absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", path));
  }
  return status;
}

// A name in `dir` nobody else uses: ".BASE.tmp.PID.TID.NNNN".
int CreateTemporary(const std::string& dir, const std::string& base, std::string* temp) {
  static std::atomic<unsigned> counter{0};
  timespec now {};
  clock_gettime(CLOCK_MONOTONIC, &now);
  int fd = -1;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const unsigned salt = static_cast<unsigned>(now.tv_nsec) ^ (counter.fetch_add(1) * 2654435761u);
    *temp = absl::StrFormat("%s.%s.tmp.%d.%d.%08x", dir, base, getpid(), static_cast<long>(syscall(SYS_gettid)),
                            salt);
    fd = open(temp->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) break;
  }
  return fd;
}

// The directory part of `path` with its slash ("" for none) and the rest.
std::pair<std::string, std::string> SplitPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

// What `produce` gives in a new temporary file in `dir` (with its slash); its
// name in *temp. Errors name `shown`, the file the user asked for: the
// temporary's hidden name means nothing to them, and it is gone by then.
absl::Status WriteTemporary(const std::string& dir, const std::string& base, ContentProducer produce,
                            const std::string& shown, std::string* temp) {
  const int fd = CreateTemporary(dir, base, temp);
  if (fd < 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", shown));
  }
  absl::Status status = WriteProduced(fd, produce, shown);
  if (close(fd) != 0 && status.ok()) {
    status = absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", shown));
  }
  if (!status.ok()) unlink(temp->c_str());
  return status;
}

absl::Status ReplaceAtomically(const std::string& path, ContentProducer content) {
  const auto [dir, base] = SplitPath(path);
  std::string temp;
  TD_RETURN_IF_ERROR(WriteTemporary(dir, base, content, path, &temp));
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return absl::ErrnoToStatus(err, absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

// Moves `temp` to `target` unless something is there: 0, or the errno; -1
// with *failure set where writing `target` in place failed.
int MoveWithoutReplacing(const std::string& temp, const std::string& target, ContentProducer produce,
                         absl::Status* failure) {
  if (link(temp.c_str(), target.c_str()) == 0) {
    unlink(temp.c_str());
    return 0;
  }
  if (errno == EEXIST) return EEXIST;
#ifdef SYS_renameat2
  // File systems without hard links (vfat, some FUSE ones).
  constexpr unsigned kNoReplace = 1;  // RENAME_NOREPLACE
  if (syscall(SYS_renameat2, AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), kNoReplace) == 0) return 0;
  if (errno == EEXIST) return EEXIST;
#endif
  // Neither: create the name exclusively and write it in place (produced a second time).
  const int fd = open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  absl::Status written = WriteProduced(fd, produce, target);
  if (close(fd) != 0 && written.ok()) written = absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", target));
  if (!written.ok()) {
    unlink(target.c_str());  // ours: created just now
    *failure = std::move(written);
    return -1;
  }
  unlink(temp.c_str());
  return 0;
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, const std::string& content) {
  return WriteFileAtomically(path, WholeContent(content));
}

absl::Status WriteFileAtomically(const std::string& path, ContentProducer content) {
  if (const int fd = OwnDescriptor(path); fd >= 0) {
    // The program's own stdio may still hold output meant to come first.
    std::fflush(stdout);
    std::fflush(stderr);
    return WriteProduced(fd, content, path);
  }
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return ReplaceAtomically(path, content);
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot write ", path));
  }
  if (S_ISREG(st.st_mode)) return ReplaceAtomically(path, content);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return WriteIntoSpecialFile(path, false, content);
  if (S_ISLNK(st.st_mode)) {
    struct stat target {};
    const bool resolves = stat(path.c_str(), &target) == 0;
    if (resolves && (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode))) {
      return WriteIntoSpecialFile(path, true, content);
    }
    const char* to = !resolves ? "to nothing" : S_ISDIR(target.st_mode) ? "to a directory" : "to a file";
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s is a symbolic link %s; td writes through a link only to a device or FIFO, and never replaces "
        "one: give the target's own path",
        path, to));
  }
  const char* what = S_ISDIR(st.st_mode) ? "a directory" : S_ISBLK(st.st_mode) ? "a block device" : "a socket";
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s is %s; td writes reports to regular files, character devices (a terminal, /dev/null) and FIFOs",
      path, what));
}

absl::StatusOr<std::string> WriteNewFile(const std::string& dir, const std::string& stem,
                                         const std::string& suffix, const std::string& content) {
  return WriteNewFile(dir, stem, suffix, WholeContent(content));
}

absl::StatusOr<std::string> WriteNewFile(const std::string& dir, const std::string& stem,
                                         const std::string& suffix, ContentProducer content) {
  const std::string prefix = dir.empty() ? "" : dir.back() == '/' ? dir : dir + "/";
  std::string temp;
  TD_RETURN_IF_ERROR(WriteTemporary(prefix, stem + suffix, content, prefix + stem + suffix, &temp));
  constexpr int kNames = 1000;
  for (int n = 0; n < kNames; ++n) {
    const std::string target = prefix + (n == 0 ? stem : absl::StrFormat("%s.%d", stem, n)) + suffix;
    absl::Status failure;
    const int err = MoveWithoutReplacing(temp, target, content, &failure);
    if (err == 0) return target;
    if (err == EEXIST) continue;
    unlink(temp.c_str());
    if (err < 0) return failure;
    return absl::ErrnoToStatus(err, absl::StrCat("cannot write ", target));
  }
  unlink(temp.c_str());
  return absl::AlreadyExistsError(
      absl::StrFormat("cannot write %s%s%s: it and the next %d numbered names exist", prefix, stem, suffix, kNames - 1));
}

bool RememberOwnFile(const std::string& path, OwnFile* file) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  *file = OwnFile{path, static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
  return true;
}

namespace {
bool StillOwn(const OwnFile& file) {
  struct stat st {};
  return lstat(file.path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         static_cast<uint64_t>(st.st_dev) == file.device && static_cast<uint64_t>(st.st_ino) == file.inode;
}
}  // namespace

absl::Status ReplaceOwnFile(OwnFile* file, ContentProducer content) {
  const auto [dir, base] = SplitPath(file->path);
  std::string temp;
  TD_RETURN_IF_ERROR(WriteTemporary(dir, base, content, file->path, &temp));
  OwnFile written;
  // Checked last, just before the rename: the window in which another
  // process could put its own file there is that of two system calls.
  if (!StillOwn(*file) || !RememberOwnFile(temp, &written)) {
    unlink(temp.c_str());
    return absl::FailedPreconditionError(
        absl::StrFormat("%s is no longer the file td wrote there: left as it is", file->path));
  }
  if (rename(temp.c_str(), file->path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return absl::ErrnoToStatus(err, absl::StrCat("cannot write ", file->path));
  }
  file->device = written.device;
  file->inode = written.inode;
  return absl::OkStatus();
}

void RemoveOwnFile(OwnFile* file) {
  if (!file->path.empty() && StillOwn(*file)) unlink(file->path.c_str());
  *file = OwnFile{};
}

namespace {

// At most `max_bytes` of `text`, each byte outside [A-Za-z0-9._-] written '_'.
std::string FileNamePart(const std::string& text, size_t max_bytes, const char* if_empty) {
  std::string safe = text.empty() ? if_empty : text.substr(0, max_bytes);
  for (char& c : safe) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return safe;
}

}  // namespace

// A program name may be up to 255 bytes; the temporary name adds about 40 to
// the final one, and both must fit in NAME_MAX: the program keeps 128 bytes,
// a job name 48.
std::string JsonFileStem(const std::string& program, long pid) {
  return absl::StrFormat("td-%s-%d", FileNamePart(program, 128, "program"), pid);
}

std::string RankFileStem(const std::string& program, const std::string& job, int64_t rank, int64_t size) {
  int digits = 1;
  for (int64_t last = size > 0 ? size - 1 : rank; last >= 10; last /= 10) ++digits;
  const std::string job_part = job.empty() ? "" : FileNamePart(job, 48, "") + "-";
  return absl::StrFormat("td-%s-%srank%0*d", FileNamePart(program, 128, "program"), job_part, digits, rank);
}

std::string JobFileStem(const std::string& program, const std::string& job) {
  const std::string job_part = job.empty() ? "" : FileNamePart(job, 48, "") + "-";
  return absl::StrFormat("td-%s-%sjob", FileNamePart(program, 128, "program"), job_part);
}

std::string JsonFileName(const std::string& program, long pid) { return JsonFileStem(program, pid) + ".json"; }

}  // namespace td

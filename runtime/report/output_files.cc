#include "runtime/report/output_files.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "absl/strings/str_format.h"

namespace td {

absl::Status WriteFileAtomically(const std::string& path, const std::string& content) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string temp = absl::StrFormat("%s.%s.tmp.%d", dir, base, getpid());
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot create %s: %s", temp, std::strerror(errno)));
  }
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      unlink(temp.c_str());
      return absl::ResourceExhaustedError(
          absl::StrFormat("cannot write %s: %s", temp, std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot write %s: %s", path, std::strerror(err)));
  }
  return absl::OkStatus();
}

std::string JsonFileName(const std::string& program, long pid) {
  std::string safe = program.empty() ? "program" : program;
  for (char& c : safe) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return absl::StrFormat("td-%s-%d.json", safe, pid);
}

}  // namespace td

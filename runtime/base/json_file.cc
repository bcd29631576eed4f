#include "runtime/base/json_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "runtime/base/status_macros.h"

namespace td {
namespace {

using nlohmann::json;

// The code says what errno meant (NotFound, PermissionDenied, …); the
// message reads "cannot read PATH: No such file or directory".
absl::Status SystemError(const char* verb, const std::string& path, int err) {
  return absl::ErrnoToStatus(err, absl::StrFormat("cannot %s %s", verb, path));
}

// Keeps where the first syntax error is: the DOM parser, run without
// exceptions, only says that there is one.
class SyntaxErrorFinder : public json::json_sax_t {
 public:
  size_t byte() const { return byte_; }
  const std::string& what() const { return what_; }

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& error) override {
    byte_ = position;
    what_ = error.what();
    return false;
  }

 private:
  size_t byte_ = 0;
  std::string what_;
};

// The parser's explanation without its "[json.exception…] parse error at
// line L, column C: " preamble, which td words itself, and without the text
// it last read, which may span lines.
std::string Explanation(const std::string& what) {
  const size_t column = what.find("column ");
  const size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
  std::string explanation = colon == std::string::npos ? what : what.substr(colon + 2);
  if (const size_t last_read = explanation.find("; last read: "); last_read != std::string::npos) {
    const size_t next = explanation.find("; ", last_read + 2);
    explanation.erase(last_read, next == std::string::npos ? std::string::npos : next - last_read);
  }
  return explanation;
}

const char* FileKind(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

// A device or FIFO may never end (/dev/zero) or never start (a FIFO).
absl::Status NotRegular(const std::string& path, mode_t mode) {
  return absl::FailedPreconditionError(absl::StrFormat(
      "cannot read %s: %s, not a regular file; td reads recordings and cases from regular files", path,
      FileKind(mode)));
}

// What ReadTextFile reserves before it has read anything.
constexpr uint64_t kReservedBytes = uint64_t{64} << 20;

absl::Status TooLarge(const std::string& path, uint64_t bytes) {
  return absl::ResourceExhaustedError(absl::StrFormat("%s is %d bytes, over the %d GiB td reads", path, bytes,
                                                      kMaxTextFileBytes >> 30));
}

// Up to `limit` bytes of it (whole: the file ended within them), else all;
// where it did not end, `tail` gets its last kTailBytes.
absl::Status ReadRegularFile(const std::string& path, std::string* out, size_t limit = SIZE_MAX,
                             bool* whole = nullptr, std::string* tail = nullptr) {
  out->clear();
  // A device is refused before it is opened (opening one may do something);
  // the descriptor is checked again below, as the path may change between.
  struct stat named {};
  if (stat(path.c_str(), &named) == 0 && !S_ISREG(named.st_mode) && !S_ISDIR(named.st_mode)) {
    return NotRegular(path, named.st_mode);
  }
  // Without O_NONBLOCK, opening a FIFO nobody writes to would wait forever.
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return SystemError("open", path, errno);
  const struct CloseAtReturn {
    int fd;
    ~CloseAtReturn() { close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return SystemError("read", path, errno);
  if (S_ISDIR(st.st_mode)) return SystemError("read", path, EISDIR);
  if (!S_ISREG(st.st_mode)) return NotRegular(path, st.st_mode);
  if (static_cast<uint64_t>(st.st_size) > kMaxTextFileBytes) return TooLarge(path, static_cast<uint64_t>(st.st_size));
  std::string& text = *out;
  // Room for the size said, up to a bound: a sparse file is refused at its
  // first block, before memory for all of it is asked for.
  text.reserve(static_cast<size_t>(std::min<uint64_t>({static_cast<uint64_t>(st.st_size), kReservedBytes, limit})));
  char buffer[1 << 16];
  if (whole != nullptr) *whole = true;
  for (;;) {
    if (text.size() >= limit) {
      if (whole != nullptr) *whole = false;
      if (tail != nullptr) {
        const auto size = static_cast<uint64_t>(st.st_size);
        const size_t want = static_cast<size_t>(std::min<uint64_t>(kTailBytes, size));
        tail->resize(want);
        const ssize_t got = pread(fd, tail->data(), want, static_cast<off_t>(size - want));
        tail->resize(got > 0 ? static_cast<size_t>(got) : 0);
      }
      break;
    }
    const ssize_t got = read(fd, buffer, std::min(sizeof buffer, limit - text.size()));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return SystemError("read", path, errno);
    if (got == 0) break;
    // Text has no NUL: a sparse or binary file is refused at its first one,
    // before the rest of it is read.
    if (const void* nul = std::memchr(buffer, 0, static_cast<size_t>(got)); nul != nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: not text: a NUL byte at offset %d", path, text.size() + (static_cast<const char*>(nul) - buffer)));
    }
    if (text.size() + static_cast<size_t>(got) > kMaxTextFileBytes) return TooLarge(path, text.size() + got);
    text.append(buffer, static_cast<size_t>(got));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadTextFileInto(const std::string& path, std::string* text) {
  try {
    return ReadRegularFile(path, text);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrFormat("cannot read %s: out of memory", path));
  }
}

absl::Status ReadTextFilePrefixInto(const std::string& path, size_t bytes, std::string* text, bool* whole,
                                    std::string* tail) {
  try {
    if (tail != nullptr) tail->clear();
    return ReadRegularFile(path, text, bytes, whole, tail);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrFormat("cannot read %s: out of memory", path));
  }
}

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::string text;
  TD_RETURN_IF_ERROR(ReadTextFileInto(path, &text));
  return text;
}

absl::StatusOr<json> ParseJsonText(const std::string& text, const std::string& where) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) return parsed;
  SyntaxErrorFinder finder;
  json::sax_parse(text, &finder);
  // The parser counts bytes read, the offending one included.
  const size_t at = std::min(finder.byte() > 0 ? finder.byte() - 1 : 0, text.size());
  const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n'));
  const size_t line_start = at == 0 ? 0 : text.rfind('\n', at - 1) + 1;  // npos + 1 == 0
  return absl::InvalidArgumentError(absl::StrFormat("%s: not valid JSON: line %d, column %d: %s", where, line,
                                                    at - line_start + 1, Explanation(finder.what())));
}

absl::StatusOr<json> ReadJsonFile(const std::string& path) {
  TD_ASSIGN_OR_RETURN(const std::string text, ReadTextFile(path));
  return ParseJsonText(text, path);
}

}  // namespace td

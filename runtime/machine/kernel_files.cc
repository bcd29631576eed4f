#include "runtime/machine/kernel_files.h"

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"

namespace td {

std::optional<std::string> ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return std::string(absl::StripAsciiWhitespace(line));
}

std::optional<int64_t> ReadIntegerFile(const std::string& path) {
  const std::optional<std::string> line = ReadFirstLine(path);
  int64_t value = 0;
  if (!line || !absl::SimpleAtoi(*line, &value)) return std::nullopt;
  return value;
}

}  // namespace td

// Reading what `td import-metrics` imports: perf's files, the CPU string,
// the kernel version beside them and a digest for provenance
// (runtime/uarch/perf_metrics_import.h).
#include "runtime/uarch/perf_metrics_import.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/event_names.h"
#include "runtime/uarch/expression.h"

namespace td {

using nlohmann::json;

absl::StatusOr<std::vector<PerfInputFile>> ReadPerfInputs(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<PerfInputFile> files;
  auto read = [&files](const fs::path& path, bool in_directory) -> absl::Status {
    std::ifstream in(path, std::ios::binary);
    if (!in) return absl::NotFoundError("cannot open " + path.string());
    std::stringstream text;
    text << in.rdbuf();
    files.push_back({path.string(), text.str(), in_directory});
    return absl::OkStatus();
  };
  for (const std::string& p : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(p, ec);
    if (ec || !fs::exists(status)) {
      return absl::NotFoundError("cannot open " + p + ": " +
                                 std::make_error_code(std::errc::no_such_file_or_directory).message());
    }
    if (fs::is_directory(status)) {
      std::vector<fs::path> found;
      for (const auto& entry : fs::directory_iterator(p, ec)) {
        if (entry.path().extension() == ".json") found.push_back(entry.path());
      }
      if (ec) return absl::NotFoundError(p + ": " + ec.message());
      std::sort(found.begin(), found.end());
      if (found.empty()) return absl::NotFoundError(p + ": no .json files in this directory");
      for (const fs::path& f : found) {
        if (auto s = read(f, true); !s.ok()) return s;
      }
    } else if (auto s = read(p, false); !s.ok()) {
      return s;
    }
  }
  return files;
}

absl::StatusOr<PerfCpu> ParsePerfCpu(const std::string& text) {
  const std::vector<std::string> parts = absl::StrSplit(text, ':');
  PerfCpu cpu;
  auto number = [](const std::string& s, int* out) {
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 0);
    if (s.empty() || *end != '\0' || v < 0 || v > 0xffff) return false;
    *out = static_cast<int>(v);
    return true;
  };
  if (parts.size() == 2 && absl::StartsWithIgnoreCase(parts[0], "0x") && number(parts[0], &cpu.family) &&
      number(parts[1], &cpu.part)) {
    cpu.vendor = absl::StrFormat("0x%02x", cpu.family);  // Arm: implementer and part, as "cpus" spells them
    cpu.family = 0;
    return cpu;
  }
  if (parts.size() != 3 || parts[0].empty() || !number(parts[1], &cpu.family) || !number(parts[2], &cpu.model)) {
    return absl::InvalidArgumentError("--cpu takes VENDOR:FAMILY:MODEL, e.g. GenuineIntel:6:175 or GenuineIntel:6:0xaf, or Arm's IMPLEMENTER:PART, e.g. 0x41:0xd84, not \"" +
                                      text + "\"");
  }
  cpu.vendor = parts[0];
  return cpu;
}

std::string PathInKernelTree(const std::string& path) {
  const size_t at = path.find("tools/perf/pmu-events/");
  return at == std::string::npos || (at > 0 && path[at - 1] != '/') ? path : path.substr(at);
}

std::string KernelVersionAbove(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(path, ec);
  if (ec) return "";
  for (int up = 0; up < 12 && !dir.empty(); ++up) {
    std::ifstream in(dir / "Makefile");
    if (in) {
      std::string line, version, patchlevel, sublevel;
      bool kernel = false;
      for (int n = 0; n < 12 && std::getline(in, line); ++n) {
        auto field = [&line](const char* key, std::string* out) {
          const std::string prefix = std::string(key) + " = ";
          if (line.rfind(prefix, 0) == 0) *out = std::string(absl::StripAsciiWhitespace(line.substr(prefix.size())));
        };
        field("VERSION", &version);
        field("PATCHLEVEL", &patchlevel);
        field("SUBLEVEL", &sublevel);
        kernel |= line.rfind("NAME = ", 0) == 0;
      }
      if (kernel && !version.empty() && !patchlevel.empty()) {
        return version + "." + patchlevel + (sublevel.empty() ? "" : "." + sublevel);
      }
    }
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return "";
}

std::string Sha256Hex(std::string_view data) {
  static constexpr std::array<uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
      0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
      0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
      0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
      0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
      0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
      0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m(data);
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back('\0');
  for (int b = 7; b >= 0; --b) m.push_back(static_cast<char>((bits >> (8 * b)) & 0xff));
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t block = 0; block < m.size(); block += 64) {
    std::array<uint32_t, 64> w{};
    for (int t = 0; t < 16; ++t) {
      const auto byte = [&](int o) { return static_cast<uint32_t>(static_cast<unsigned char>(m[block + 4 * t + o])); };
      w[t] = (byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3);
    }
    for (int t = 16; t < 64; ++t) {
      const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    std::array<uint32_t, 8> v = h;
    for (int t = 0; t < 64; ++t) {
      const uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      const uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const uint32_t t1 = v[7] + s1 + ch + k[t] + w[t];
      const uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      const uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      const uint32_t t2 = s0 + maj;
      v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (int x = 0; x < 8; ++x) h[x] += v[x];
  }
  std::string out;
  for (uint32_t x : h) out += absl::StrFormat("%08x", x);
  return out;
}

}  // namespace td

#include "runtime/core/config.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace td {
namespace {

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

void ReadBool(const EnvLookup& env, const char* name, bool* value,
              std::vector<std::string>* errors) {
  const char* raw = env(name);
  if (raw == nullptr) return;
  if (!ParseBool(raw, value)) {
    errors->push_back(absl::StrFormat(
        "%s=\"%s\" is not understood; accepted: 1, 0, true, false, yes, no, on, off; using %s",
        name, raw, *value ? "1" : "0"));
  }
}

}  // namespace

bool ParseBool(const std::string& text, bool* value) {
  const std::string t = Lowercase(text);
  if (t == "1" || t == "true" || t == "yes" || t == "on") {
    *value = true;
    return true;
  }
  if (t == "0" || t == "false" || t == "no" || t == "off" || t.empty()) {
    *value = false;
    return true;
  }
  return false;
}

Config ReadConfig(const EnvLookup& env, std::vector<std::string>* errors) {
  Config config;
  ReadBool(env, "TD_DISABLE", &config.disabled, errors);
  ReadBool(env, "TD_JSON", &config.write_json, errors);
  ReadBool(env, "TD_QUIET", &config.quiet, errors);
  ReadBool(env, "TD_TRACE", &config.trace, errors);
  ReadBool(env, "TD_RDPMC", &config.rdpmc, errors);
  if (const char* raw = env("TD_TRACE_EVENTS")) {
    size_t events = 0;
    if (absl::SimpleAtoi(raw, &events) && events >= 16 && events <= (size_t{1} << 26)) {
      config.trace_events = events;
    } else {
      errors->push_back(absl::StrFormat(
          "TD_TRACE_EVENTS=\"%s\" is not understood; accepted: a number of events per thread "
          "from 16 to 67108864; using %d",
          raw, config.trace_events));
    }
  }
  if (const char* raw = env("TD_EVENTS")) config.events = raw;
  if (const char* raw = env("TD_LEVEL")) {
    int level = 0;
    if (absl::SimpleAtoi(raw, &level) && level >= 1 && level <= 6) {
      config.level = level;
    } else {
      errors->push_back(absl::StrFormat(
          "TD_LEVEL=\"%s\" is not understood; accepted: 1 to 6; using %d", raw, config.level));
    }
  }
  if (const char* raw = env("TD_PASS")) {
    const std::vector<std::string> parts = absl::StrSplit(raw, '/');
    int pass = 0;
    int passes = 0;
    if (parts.size() == 2 && absl::SimpleAtoi(parts[0], &pass) && absl::SimpleAtoi(parts[1], &passes) &&
        passes >= 1 && pass >= 1 && pass <= passes) {
      config.pass = pass;
      config.passes = passes;
    } else {
      errors->push_back(absl::StrFormat(
          "TD_PASS=\"%s\" is not understood; accepted: k/n with 1 <= k <= n; counting every group", raw));
    }
  }
  if (const char* raw = env("TD_MEMORY")) {
    const std::string m = Lowercase(raw);
    if (m == "auto") {
      config.memory = MemoryMode::kAuto;
    } else if (m == "socket") {
      config.memory = MemoryMode::kSocket;
    } else if (m == "estimate") {
      config.memory = MemoryMode::kEstimate;
    } else if (m == "off" || m == "0" || m == "none") {
      config.memory = MemoryMode::kOff;
    } else {
      errors->push_back(absl::StrFormat(
          "TD_MEMORY=\"%s\" is not understood; accepted: auto, socket, estimate, off; using auto", raw));
    }
  }
  if (const char* out = env("TD_OUTPUT")) config.text_output = out;
  if (const char* dir = env("TD_OUTPUT_DIR")) {
    if (*dir == '\0') {
      errors->push_back("TD_OUTPUT_DIR is set but empty; accepted: a directory path; using .");
    } else {
      config.json_dir = dir;
    }
  }
  if (const char* raw = env("TD_BACKEND")) {
    const std::string b = Lowercase(raw);
    if (b == "perf" || b == "perf_event") {
      config.backend = BackendChoice::kPerfEvent;
    } else if (b == "papi") {
      config.backend = BackendChoice::kPapi;
    } else if (b == "none" || b == "off") {
      config.backend = BackendChoice::kNone;
    } else if (b.rfind("replay:", 0) == 0 && b.size() > 7) {
      config.backend = BackendChoice::kReplay;
      config.replay_file = std::string(raw).substr(7);
    } else {
      errors->push_back(absl::StrFormat(
          "TD_BACKEND=\"%s\" is not understood; accepted: perf, papi, none, replay:FILE; using perf",
          raw));
    }
  }
  return config;
}

}  // namespace td

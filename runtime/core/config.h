// Run-time settings read from TD_* environment variables.
#ifndef TD_RUNTIME_CORE_CONFIG_H_
#define TD_RUNTIME_CORE_CONFIG_H_

#include <functional>
#include <string>
#include <vector>

#include "runtime/counters/memory_selection.h"

namespace td {

enum class BackendChoice { kPerfEvent, kNone, kReplay, kPapi };

struct Config {
  bool disabled = false;          // TD_DISABLE
  std::string text_output;        // TD_OUTPUT: "" = stderr, "none" = no text report
  std::string json_dir = ".";     // TD_OUTPUT_DIR
  bool write_json = true;         // TD_JSON
  BackendChoice backend = BackendChoice::kPerfEvent;  // TD_BACKEND
  std::string replay_file;        // TD_BACKEND=replay:FILE
  bool quiet = false;             // TD_QUIET: no notices on stderr (errors still print)
  bool trace = false;             // TD_TRACE: record a timeline of begin/end events
  bool rdpmc = true;              // TD_RDPMC: read hardware groups in user space when allowed
  size_t trace_events = 16384;    // TD_TRACE_EVENTS: ring capacity per thread
  std::string events;             // TD_EVENTS: what to count besides the software group
  int level = 2;                  // TD_LEVEL: deepest Top-Down level collected by default
  MemoryMode memory = MemoryMode::kAuto;  // TD_MEMORY: memory traffic per region
  int pass = 1;                   // TD_PASS=k/n (set by td run): this run counts the
  int passes = 1;                 //   hardware groups g with g % n == k - 1
};

// Looks up one variable; returns nullptr when unset. Injected in tests.
using EnvLookup = std::function<const char*(const char*)>;

// Reads every TD_* variable. A value that does not parse leaves the default
// in place and adds one error line naming the variable, the value and what is
// accepted.
Config ReadConfig(const EnvLookup& env, std::vector<std::string>* errors);

// Accepts 1/0, true/false, yes/no, on/off (any case). Returns false when the
// text is none of these.
bool ParseBool(const std::string& text, bool* value);

}  // namespace td

#endif  // TD_RUNTIME_CORE_CONFIG_H_

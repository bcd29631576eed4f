// Linux perf's pmu-events JSON for one CPU (tools/perf/pmu-events/arch/...:
// the metrics file and the event files beside it) turned into one td
// definition file, so that a CPU td does not ship gets its Top-Down tree
// through TD_METRICS_DIR (`td import-metrics`, docs/analysis.md "Importing
// perf's metric files").
//
// One translator of perf's expression syntax serves both the import and the
// differential test against td's own definitions
// (tests/unit/perf_metrics_diff_test.cc).
#ifndef TD_RUNTIME_UARCH_PERF_METRICS_IMPORT_H_
#define TD_RUNTIME_UARCH_PERF_METRICS_IMPORT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace td {

// One name of a perf expression, as the translator met it.
struct PerfExprName {
  enum Kind {
    kName,     // a plain name: a metric or an event ("tma_retiring", "INST_RETIRED.ANY")
    kEvent,    // certainly an event: "pmu@EVENT\,cmask\=1@", "topdown\-be\-bound", "EVENT:u"
    kLiteral,  // "#SMT_on", "#slots" (kept with its '#')
    kCpuid,    // strcmp_cpuid_str(0x410fd493): `text` is "cpuid_ge_0x410fd493"
  };
  Kind kind = kName;
  std::string text;        // unescaped, as td would spell it by default
  std::string modifiers;   // perf's modifiers after the event ("k" of "cpu@X@k", "u" of "X:u")
};

// How a name is written in td's expression; an error skips the expression.
using PerfNameMapper = std::function<absl::StatusOr<std::string>(const PerfExprName& name)>;

// perf's expression syntax into td's: `pmu@EVENT\,umask\=0x80@` and escaped
// names become td's normalised event names, `&`/`|` `and`/`or`, `X ^ 1`
// `(not X)`, `strcmp_cpuid_str(0x410fd493)` the name `cpuid_ge_0x410fd493`,
// `#` literals stay names; `if`/`else`, min, max, d_ratio and numbers (1e9)
// are td's too. Without `map` names are written as the translator read them
// (events normalised); with it, each name is written as `map` says. Anything
// else (has_event, source_count, `==`…) is an Unimplemented error naming it.
absl::StatusOr<std::string> TranslatePerfExpression(const std::string& perf, const PerfNameMapper& map = nullptr);

// td's node name for perf's tma_ metric ("tma_dram_bound" -> "DRAM_Bound",
// "tma_mem_bandwidth" -> "MEM_Bandwidth"), with the capitalisation td's
// definition files use.
std::string TdNodeNameForPerf(std::string_view perf_metric);

// One input file: its path as given and its text.
struct PerfInputFile {
  std::string path;
  std::string text;
  bool in_directory = false;  // found in a directory operand (other JSON there is passed over)
  // Only lends its events' RetirementLatencyMean to events of the other
  // files that have none (--retire-latencies: a sibling core's event file).
  bool retire_latencies_only = false;
};

// The files of `paths`: a directory gives every *.json in it (sorted), a
// file itself. Errors name the path.
absl::StatusOr<std::vector<PerfInputFile>> ReadPerfInputs(const std::vector<std::string>& paths);

struct PerfCpu {
  std::string vendor;  // "GenuineIntel"; an Arm implementer code ("0x41")
  int family = 0;
  int model = 0;
  int part = -1;  // Arm: the MIDR's part number (0xd84), -1 for x86
};

// "GenuineIntel:6:173" or "GenuineIntel:6:0xad"; Arm "0x41:0xd84"
// (implementer:part, as the MIDR has them).
absl::StatusOr<PerfCpu> ParsePerfCpu(const std::string& text);

struct PerfImportOptions {
  std::string uarch;             // td's key for the CPU ("srf")
  std::vector<PerfCpu> cpus;     // the "cpus" table: which CPUs get this key
  std::string pmu;               // hybrid files: the PMU ("cpu_core", "cpu_atom") whose metrics to take
  std::string kernel;            // the kernel version the files come from ("6.12.117")
  std::string libpfm_pmu;        // libpfm4's PMU for events td's table cannot encode
  std::vector<std::string> paths;  // the inputs as given, for the description
  int slots = 0;                 // perf's #slots (Arm: the PMU's caps/slots), 0 when not given
  std::string tma_version;       // the TMA version of the formulas ("5.2"), written as the key's tma_version
  std::string hybrid;            // with `pmu`: the whole part's key ("mtl"), written in each "cpus" entry
  // Where the files come from, when not a kernel tree ("Intel perfmon 6dadedf,
  // converted to perf's format; BSD-3-Clause"): replaces the kernel version
  // in the description.
  std::string origin;
  std::vector<std::string> retire_latency_paths;  // the --retire-latencies inputs, for the description
  // Depth for one of td's own keys: only the Top-Down nodes td's definitions
  // of `uarch` lack, placed under td's nodes, with the auxiliaries and events
  // they need that td does not already have (td's own nodes are never
  // replaced; an event td encodes otherwise than this CPU's event file is
  // declared with this CPU's encoding, which holds for this key only).
  bool extend = false;
  // With `extend`: the vendor's whole tree for one of td's own keys, newer
  // formulas than td's. Every node is written, under the vendor's current
  // names (a renamed one lists td's name as "formerly"); the loader puts its
  // formula first and keeps td's as the older version's fallback, used and
  // labelled when a recording lacks the newer formula's events.
  bool supersede = false;
};

struct PerfImportResult {
  nlohmann::json definition;          // one td definition file
  std::vector<std::string> skipped;   // one line per metric not translated, and why
  int nodes = 0, auxiliaries = 0, events = 0, min_level = 0, max_level = 0;
};

// Translates the metrics file(s) among `files` with the events of the event
// files into one td definition file for `options.uarch`. Errors: no metrics
// file, a file that is neither kind, several PMUs without `options.pmu`.
absl::StatusOr<PerfImportResult> ImportPerfMetrics(const std::vector<PerfInputFile>& files,
                                                   const PerfImportOptions& options);

// The kernel version of a source tree holding `path` (its top Makefile's
// VERSION.PATCHLEVEL.SUBLEVEL), or "" when none is found above it.
std::string KernelVersionAbove(const std::string& path);

// `path` from the kernel tree's top ("tools/perf/pmu-events/arch/x86/...")
// when it lies in one, so a definition file names its sources the same way on
// every machine; `path` itself otherwise.
std::string PathInKernelTree(const std::string& path);

// SHA-256 of `data`, as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view data);

}  // namespace td

#endif  // TD_RUNTIME_UARCH_PERF_METRICS_IMPORT_H_

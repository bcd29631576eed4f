// Run-time settings: every environment variable td reads (TD_*, NO_COLOR,
// TMPDIR, XDG_CACHE_HOME, HOME, and for libtd_compat PAPI_EVENTS and
// LIKWID_EVENTS) is read here and nowhere else, and each is
// declared once in the table below, which also generates the variable table
// of docs/usage.md (`td config --markdown`; a test keeps the two in sync).
#ifndef TD_RUNTIME_DRIVER_CONFIG_H_
#define TD_RUNTIME_DRIVER_CONFIG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/counters/memory_selection.h"

namespace td {

enum class BackendChoice { kPerfEvent, kNone, kReplay, kPapi, kSimulate };

// Which text reports an MPI job prints (TD_REPORT_RANKS).
enum class RankReports { kRankZero, kAll, kNone };

// Whether libtd-mpi's job file keeps one row per rank (TD_MPI_RANKS).
enum class MpiRankRows { kAuto, kKeep, kSummary };
// kAuto keeps them up to this many ranks.
constexpr int64_t kMpiRankRowsAutoLimit = 64;
// TD_FLUSH_INTERVAL's default in an MPI job: a rank that SIGKILL ends (or
// one that crashes) leaves its data up to at most this long before.
constexpr size_t kMpiFlushIntervalS = 10;

// This process's place in an MPI job, from what the launcher put in the
// environment (no MPI library is needed to know it).
struct MpiIdentity {
  int64_t rank = 0;
  int64_t size = 0;      // 0 when the launcher did not say
  std::string job;       // "" when the launcher did not say
  std::string launcher;  // which variables said it: "Open MPI", "PMIx", "PMI", "Slurm", "MVAPICH2"
  bool aborted = false;  // set by libtd-mpi when this rank calls MPI_Abort
};

// Where the text report goes (TD_OUTPUT).
struct TextOutput {
  enum class Kind {
    kStderr,  // unset, empty, "stderr" or "-"
    kStdout,  // "stdout"
    kNone,    // "none": no text report
    kFile,    // anything else: a file's path
  };
  Kind kind = Kind::kStderr;
  std::string path;  // kFile's
};

struct Config {
  bool disabled = false;          // TD_DISABLE
  TextOutput text_output;         // TD_OUTPUT
  std::string json_dir = ".";     // TD_OUTPUT_DIR
  bool write_json = true;         // TD_JSON
  BackendChoice backend = BackendChoice::kPerfEvent;  // TD_BACKEND
  std::string replay_file;        // TD_BACKEND=replay:FILE
  bool quiet = false;             // TD_QUIET: no notices on stderr (errors still print)
  bool trace = false;             // TD_TRACE: record a timeline of begin/end events
  bool compensate = true;         // TD_COMPENSATE: take td's own marker cost out of the reports
  size_t sample_every = 1;        // TD_SAMPLE: read times and counts on one call in N per region
  bool rdpmc = true;              // TD_RDPMC: read hardware groups in user space when allowed
  bool tsc_clock = true;          // TD_CLOCK: auto (the TSC where marker_clock.h may read it) or monotonic
  bool tsc_clock_asked = false;   // TD_CLOCK=tsc: as auto, and say why when the TSC is not used
  // TD_SOFTWARE_EVENTS=all: keep the software group (page faults, context
  // switches, migrations; one read() per marker) where hardware groups are
  // read too. Default (auto): task-clock from a hardware group's time enabled.
  bool all_software_events = false;
  size_t trace_events = 16384;    // TD_TRACE_EVENTS: ring capacity per thread
  size_t trace_memory_mb = 512;   // TD_TRACE_MEMORY: all threads' rings together, MiB
  size_t report_regions = 30;     // TD_REPORT_REGIONS: regions the text report shows; 0 = all
  size_t max_names = 100000;      // TD_MAX_NAMES: distinct region names kept; the rest share one
  bool signals = false;           // TD_SIGNALS: write reports on SIGTERM/SIGINT/SIGHUP/SIGQUIT (default on in MPI jobs)
  // TD_FLUSH_INTERVAL: every this many seconds a thread of td's writes the
  // run so far as a partial file (0: never; default 0, kMpiFlushIntervalS
  // in an MPI job), so that a process killed outright leaves its data.
  size_t flush_interval_s = 0;
  std::string uarch;              // TD_UARCH: "" = identify the CPU
  std::string metrics_dir;        // TD_METRICS_DIR: "" = the built-in definitions
  bool no_color = false;          // NO_COLOR set (and not empty): no colour in text reports
  std::string tmpdir = "/tmp";    // TMPDIR: scratch files and the JSON's fallback directory
  std::string calibration_file;   // $XDG_CACHE_HOME/td/calibration.json, else $HOME/.cache/…
  std::optional<MpiIdentity> mpi;  // set when a launcher's rank variable is present
  RankReports rank_reports = RankReports::kRankZero;  // TD_REPORT_RANKS
  MpiRankRows mpi_rank_rows = MpiRankRows::kAuto;     // TD_MPI_RANKS (libtd-mpi's job file)
  std::string events;             // TD_EVENTS: what to count besides the software group
  std::string papi_events;        // PAPI_EVENTS, LIKWID_EVENTS: read by libtd_compat only, which
  std::string likwid_events;      //   turns them into TD_EVENTS at load (docs/compat.md); "" = unset
  int level = 2;                  // TD_LEVEL: deepest Top-Down level collected by default
  MemoryMode memory = MemoryMode::kAuto;  // TD_MEMORY: memory traffic per region
  int pass = 1;                   // TD_PASS=k/n (set by td run): this run counts the
  int passes = 1;                 //   hardware groups g with g % n == k - 1
};

// Looks up one variable; returns nullptr when unset. Injected in tests.
using EnvLookup = std::function<const char*(const char*)>;

// A configuration and what was wrong in the variables it was read from.
struct ConfigReading {
  Config config;
  // One line per value that did not parse, naming the variable, the value
  // and what is accepted; that setting kept its default.
  std::vector<std::string> problems;
  // UnknownSettings of the environment's TD_* names (ReadConfigFromEnvironment
  // only): a misspelled setting would otherwise be silently ignored.
  std::vector<std::string> unknown;
};

// One line per TD_* name in `names` that is neither a setting of the table
// below nor one that td's other parts or scripts read (the Python binding's
// TD_CLI, say), with the nearest known name when one is near:
// "unknown setting TD_OUTPT; did you mean TD_OUTPUT?". Other names are passed over.
std::vector<std::string> UnknownSettings(const std::vector<std::string>& names);

// Reads every variable of the table.
ConfigReading ReadConfig(const EnvLookup& env);

// Whether this process prints its text report, notices and "wrote" lines:
// outside MPI jobs always; in one, as TD_REPORT_RANKS says (rank 0 by default).
bool PrintsReports(const Config& config);

// ReadConfig of this process's environment, and its unknown TD_* names: the
// one place td calls getenv or reads environ.
ConfigReading ReadConfigFromEnvironment();

// One row of the table: a variable, what it accepts, its default, and what
// it does (Markdown: the docs' table is generated from these).
struct Setting {
  const char* name;
  const char* accepted;
  const char* default_value;
  const char* meaning;
};
const std::vector<Setting>& Settings();

// docs/usage.md's variable table, from Settings().
std::string SettingsMarkdownTable();

// One line per setting: NAME=value as this process's environment has it, or
// "NAME unset (default: …)", for `td config`.
std::string DescribeEnvironment();

// Accepts 1/0, true/false, yes/no, on/off (any case). Returns false when the
// text is none of these.
bool ParseBool(const std::string& text, bool* value);

}  // namespace td

#endif  // TD_RUNTIME_DRIVER_CONFIG_H_

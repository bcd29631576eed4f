#include "runtime/driver/config.h"

#include <unistd.h>  // environ

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

TextOutput ParseTextOutput(const std::string& text) {
  if (text.empty() || text == "stderr" || text == "-") return {};
  if (text == "stdout") return {TextOutput::Kind::kStdout, ""};
  if (text == "none") return {TextOutput::Kind::kNone, ""};
  return {TextOutput::Kind::kFile, text};
}

std::string Uppercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

void ReadBool(const EnvLookup& env, const char* name, bool* value,
              std::vector<std::string>* errors, bool* given = nullptr) {
  const char* raw = env(name);
  if (given != nullptr) *given = raw != nullptr;
  if (raw == nullptr) return;
  if (!ParseBool(raw, value)) {
    errors->push_back(absl::StrFormat(
        "%s=\"%s\" is not understood; accepted: 1, 0, true, false, yes, no, on, off; using %s",
        name, raw, *value ? "1" : "0"));
  }
}

// The launchers' variables, first match wins: each names the rank variable,
// the size variable and the job variables to try, in order.
struct Launcher {
  const char* name;
  const char* rank;
  const char* size;
  std::vector<const char*> job;
};

const std::vector<Launcher>& Launchers() {
  static const auto* launchers = new std::vector<Launcher>{
      {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
       {"SLURM_JOB_ID", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"}},
      {"MVAPICH2", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE", {"SLURM_JOB_ID", "PMIX_NAMESPACE"}},
      {"PMIx", "PMIX_RANK", "PMIX_SIZE", {"SLURM_JOB_ID", "PMIX_NAMESPACE"}},
      {"PMI", "PMI_RANK", "PMI_SIZE", {"SLURM_JOB_ID", "PMI_JOBID"}},
      {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", {"SLURM_JOB_ID"}},
  };
  return *launchers;
}

void ReadMpi(const EnvLookup& env, Config* config, std::vector<std::string>* errors) {
  // Every variable is looked up, set or not, so that the lookups are the
  // same whatever the environment holds (the settings table test counts them).
  for (const Launcher& launcher : Launchers()) {
    env(launcher.size);
    for (const char* job_variable : launcher.job) env(job_variable);
  }
  for (const Launcher& launcher : Launchers()) {
    const char* rank = env(launcher.rank);
    if (rank == nullptr) continue;
    MpiIdentity mpi;
    mpi.launcher = launcher.name;
    const char* size = env(launcher.size);
    if (!absl::SimpleAtoi(rank, &mpi.rank) || mpi.rank < 0 ||
        (size != nullptr && (!absl::SimpleAtoi(size, &mpi.size) || mpi.size <= mpi.rank))) {
      errors->push_back(absl::StrFormat("%s=\"%s\", %s=\"%s\" are not a rank and a job size; this run is not "
                                        "treated as an MPI rank",
                                        launcher.rank, rank, launcher.size, size != nullptr ? size : "(unset)"));
      return;
    }
    for (const char* job_variable : launcher.job) {
      if (const char* job = env(job_variable); job != nullptr && *job != '\0') {
        mpi.job = job;
        break;
      }
    }
    config->mpi = mpi;
    return;
  }
}

// A whole number from `low` to `high`; `what` says what it counts.
void ReadCount(const EnvLookup& env, const char* name, size_t low, size_t high, const char* what, size_t* value,
               std::vector<std::string>* errors) {
  const char* raw = env(name);
  if (raw == nullptr) return;
  size_t parsed = 0;
  if (absl::SimpleAtoi(raw, &parsed) && parsed >= low && parsed <= high) {
    *value = parsed;
  } else {
    errors->push_back(absl::StrFormat("%s=\"%s\" is not understood; accepted: %s from %d to %d; using %d", name,
                                      raw, what, low, high, *value));
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

ConfigReading ReadConfig(const EnvLookup& env) {
  ConfigReading reading;
  Config& config = reading.config;
  std::vector<std::string>* errors = &reading.problems;
  ReadBool(env, "TD_DISABLE", &config.disabled, errors);
  ReadBool(env, "TD_JSON", &config.write_json, errors);
  ReadBool(env, "TD_QUIET", &config.quiet, errors);
  ReadBool(env, "TD_TRACE", &config.trace, errors);
  ReadBool(env, "TD_COMPENSATE", &config.compensate, errors);
  ReadBool(env, "TD_RDPMC", &config.rdpmc, errors);
  ReadCount(env, "TD_SAMPLE", 1, size_t{1} << 20, "N: times and counts read on one call in N", &config.sample_every,
            errors);
  ReadCount(env, "TD_TRACE_EVENTS", 16, size_t{1} << 26, "a number of events per thread", &config.trace_events,
            errors);
  bool signals_given = false;
  ReadBool(env, "TD_SIGNALS", &config.signals, errors, &signals_given);
  ReadCount(env, "TD_FLUSH_INTERVAL", 0, 86400, "seconds between partial files (0: none)", &config.flush_interval_s,
            errors);
  ReadCount(env, "TD_TRACE_MEMORY", 1, size_t{1} << 20, "MiB for all threads' traces together",
            &config.trace_memory_mb, errors);
  ReadCount(env, "TD_REPORT_REGIONS", 0, size_t{1} << 40, "a number of regions (0: all)", &config.report_regions,
            errors);
  ReadCount(env, "TD_MAX_NAMES", 16, size_t{1} << 30, "a number of distinct region names", &config.max_names, errors);
  if (const char* raw = env("TD_UARCH")) config.uarch = raw;
  if (const char* raw = env("TD_METRICS_DIR")) config.metrics_dir = raw;
  if (const char* raw = env("NO_COLOR")) config.no_color = *raw != '\0';
  if (const char* raw = env("TMPDIR"); raw != nullptr && *raw != '\0') config.tmpdir = raw;
  const char* cache = env("XDG_CACHE_HOME");
  const char* home = env("HOME");
  config.calibration_file = cache != nullptr && *cache == '/'
                                ? std::string(cache) + "/td/calibration.json"
                                : std::string(home != nullptr && *home != '\0' ? home : config.tmpdir.c_str()) +
                                      "/.cache/td/calibration.json";
  if (const char* raw = env("TD_EVENTS")) config.events = raw;
  if (const char* raw = env("PAPI_EVENTS")) config.papi_events = raw;
  if (const char* raw = env("LIKWID_EVENTS")) config.likwid_events = raw;
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
  if (const char* raw = env("TD_SOFTWARE_EVENTS")) {
    const std::string m = Lowercase(raw);
    if (m == "auto" || m.empty()) {
      config.all_software_events = false;
    } else if (m == "all") {
      config.all_software_events = true;
    } else {
      errors->push_back(
          absl::StrFormat("TD_SOFTWARE_EVENTS=\"%s\" is not understood; accepted: auto, all; using auto", raw));
    }
  }
  if (const char* raw = env("TD_CLOCK")) {
    const std::string m = Lowercase(raw);
    if (m == "auto" || m.empty() || m == "tsc") {
      config.tsc_clock = true;
      config.tsc_clock_asked = m == "tsc";
    } else if (m == "monotonic") {
      config.tsc_clock = false;
    } else {
      errors->push_back(
          absl::StrFormat("TD_CLOCK=\"%s\" is not understood; accepted: auto, tsc, monotonic; using auto", raw));
    }
  }
  if (const char* out = env("TD_OUTPUT")) config.text_output = ParseTextOutput(out);
  ReadMpi(env, &config, errors);
  // A rank that mpirun ends (another rank called MPI_Abort or died) keeps
  // what it recorded: the termination signals write the reports by default
  // in an MPI job (docs/hpc.md#when-a-rank-fails).
  if (config.mpi && !signals_given) config.signals = true;
  // And one that SIGKILL ends, or that crashes, keeps what it had at its
  // last periodic flush (docs/hpc.md#when-a-rank-fails).
  if (config.mpi && env("TD_FLUSH_INTERVAL") == nullptr) config.flush_interval_s = kMpiFlushIntervalS;
  if (const char* raw = env("TD_REPORT_RANKS")) {
    const std::string r = Lowercase(raw);
    if (r == "0") {
      config.rank_reports = RankReports::kRankZero;
    } else if (r == "all") {
      config.rank_reports = RankReports::kAll;
    } else if (r == "none") {
      config.rank_reports = RankReports::kNone;
    } else {
      errors->push_back(absl::StrFormat(
          "TD_REPORT_RANKS=\"%s\" is not understood; accepted: 0, all, none; using 0", raw));
    }
  }
  if (const char* raw = env("TD_MPI_RANKS")) {
    const std::string r = Lowercase(raw);
    bool keep = false;
    if (r == "auto" || r.empty()) {
      config.mpi_rank_rows = MpiRankRows::kAuto;
    } else if (ParseBool(r, &keep)) {
      config.mpi_rank_rows = keep ? MpiRankRows::kKeep : MpiRankRows::kSummary;
    } else {
      errors->push_back(absl::StrFormat(
          "TD_MPI_RANKS=\"%s\" is not understood; accepted: auto, 1, 0 (or another boolean); using auto", raw));
    }
  }
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
    } else if (b == "simulate") {
      config.backend = BackendChoice::kSimulate;
    } else if (b == "none" || b == "off") {
      config.backend = BackendChoice::kNone;
    } else if (b.rfind("replay:", 0) == 0 && b.size() > 7) {
      config.backend = BackendChoice::kReplay;
      config.replay_file = std::string(raw).substr(7);
    } else {
      errors->push_back(absl::StrFormat(
          "TD_BACKEND=\"%s\" is not understood; accepted: perf, papi, simulate, none, replay:FILE; using perf",
          raw));
    }
  }
  return reading;
}

bool PrintsReports(const Config& config) {
  if (!config.mpi) return true;
  switch (config.rank_reports) {
    case RankReports::kAll:
      return true;
    case RankReports::kNone:
      return false;
    case RankReports::kRankZero:
      break;
  }
  return config.mpi->rank == 0;
}

ConfigReading ReadConfigFromEnvironment() {
  ConfigReading reading = ReadConfig([](const char* name) -> const char* { return std::getenv(name); });
  std::vector<std::string> names;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* equals = std::strchr(*entry, '=');
    if (std::strncmp(*entry, "TD_", 3) == 0 && equals != nullptr) names.emplace_back(*entry, equals - *entry);
  }
  reading.unknown = UnknownSettings(names);
  return reading;
}

std::vector<std::string> UnknownSettings(const std::vector<std::string>& names) {
  // TD_* names read outside this table: by the Python binding (TD_CLI, the td
  // command td.load() runs) and by the project's own scripts and tests, which
  // run programs linked with td in environments that hold them.
  static const char* const kReadElsewhere[] = {"TD_CLI", "TD_FUZZ_SECONDS", "TD_FUZZ_SEED", "TD_MPI_TEST_SKIP"};
  std::vector<std::string> known(std::begin(kReadElsewhere), std::end(kReadElsewhere));
  for (const Setting& s : Settings()) {
    if (std::strncmp(s.name, "TD_", 3) == 0) known.push_back(s.name);
  }
  std::vector<std::string> lines;
  for (const std::string& name : names) {
    if (name.rfind("TD_", 0) != 0 || std::find(known.begin(), known.end(), name) != known.end()) continue;
    const std::string upper = Uppercase(name);
    const std::string* nearest = nullptr;
    size_t nearest_distance = 0;
    for (const std::string& k : known) {
      const size_t distance = EditDistance(upper, k);
      if (nearest == nullptr || distance < nearest_distance) {
        nearest = &k;
        nearest_distance = distance;
      }
    }
    // As td's command line suggests flags: a third of the letters wrong is
    // still a typo (td_output counts as one, its case aside).
    const size_t tolerated = std::max<size_t>(2, name.size() / 3);
    lines.push_back(nearest_distance <= tolerated
                        ? absl::StrFormat("unknown setting %s; did you mean %s?", Printable(name), *nearest)
                        : absl::StrFormat("unknown setting %s; `td config` lists the settings", Printable(name)));
  }
  return lines;
}

const std::vector<Setting>& Settings() {
  static const auto* settings = new std::vector<Setting>{
      {"TD_DISABLE", "1/0, true/false, yes/no, on/off", "0", "markers do nothing (one load and a branch each)"},
      {"TD_OUTPUT", "`stderr`, `-`, `stdout`, `none`, or a file path", "stderr",
       "where the text report goes; a device, FIFO or terminal is written into, never replaced "
       "([Output files](#output-files))"},
      {"TD_OUTPUT_DIR", "a directory", "`.`", "where the JSON file goes"},
      {"TD_JSON", "boolean", "1", "write the JSON file"},
      {"TD_EVENTS", "a comma list of events, `{…}` to force a group", "the Top-Down events of this CPU (with a PMU)",
       "what to count besides the software group; spellings and grouping in [counters.md](counters.md)"},
      {"PAPI_EVENTS", "PAPI's comma list of event names", "unset",
       "read by `libtd_compat` only: where `TD_EVENTS` is unset, the names with a td spelling become `TD_EVENTS` "
       "([compat.md](compat.md#events))"},
      {"LIKWID_EVENTS", "LIKWID's event list (`EVENT:COUNTER,…`; groups separated by a vertical bar)", "unset",
       "the same for LIKWID's names (`likwid-perfctr` sets it); read by `libtd_compat` only "
       "([compat.md](compat.md#events))"},
      {"TD_LEVEL", "1 … 6", "2",
       "deepest Top-Down level whose events are collected by default (more levels: more groups, more "
       "multiplexing; `td run --passes auto` avoids it)"},
      {"TD_MEMORY", "`auto`, `socket`, `estimate`, `off`", "`auto`",
       "memory traffic per region: the socket's memory controllers when permitted, else the per-thread LLC-miss "
       "estimate where a counter is free ([counters.md](counters.md#memory-traffic-per-region-td_memory))"},
      {"TD_RDPMC", "boolean", "1",
       "read hardware groups in user space (rdpmc) at markers, falling back to `read()` whenever the kernel's page "
       "says so"},
      {"TD_CLOCK", "`auto`, `tsc`, `monotonic`", "`auto`",
       "the clock markers time regions with. `auto`: the TSC, read by the marker itself, where the kernel's "
       "clocksource is the TSC, or kvm-clock over a TSC the CPU declares invariant (converted to nanoseconds at the end, at the rate it ran against CLOCK_MONOTONIC "
       "over the run), else CLOCK_MONOTONIC; `tsc`: the same, with a warning saying why where the TSC is not "
       "used; `monotonic`: always clock_gettime(CLOCK_MONOTONIC). The run file says which "
       "(`backend.marker_clock`; [performance.md](performance.md#the-marker-clock))"},
      {"TD_SOFTWARE_EVENTS", "`auto`, `all`", "`auto`",
       "`auto`: where hardware groups are counted, task-clock is their time enabled and page faults, context "
       "switches and CPU migrations are not counted, so that markers read no software group (no syscall per marker "
       "with rdpmc); without a PMU the software group is all there is. `all`: count the software group as well, one "
       "`read()` per marker"},
      {"TD_PASS", "`k/n`", "—", "set by `td run`: this run counts the hardware groups g with g mod n = k − 1"},
      {"TD_BACKEND", "`perf`, `papi`, `simulate`, `none`, `replay:FILE`", "`perf`",
       "`papi` counts `TD_EVENTS` (PAPI names; default PAPI_TOT_CYC, PAPI_TOT_INS) through PAPI event sets, and "
       "says why when PAPI cannot count here, falling back to `perf`; `simulate` reads the simulated counts of td's "
       "Valgrind tool (`td run --simulate`, [simulate.md](simulate.md)), falling back to `perf` when the program "
       "does not run under it; `none` measures wall time and calls only; "
       "`replay:FILE` measures nothing and, at exit, reports the recorded run FILE through the same analysis (a "
       "run recorded on a machine with a PMU, re-analysed anywhere)"},
      {"TD_QUIET", "boolean", "0", "no notices on stderr (warnings and errors still print)"},
      {"TD_MAX_NAMES", "16 … 1073741824", "100000",
       "distinct region names (parameter values included) td keeps; the names after that are recorded together as "
       "one region, `(names beyond TD_MAX_NAMES)`, said once. Each name costs about 1 KB across the run and its "
       "report, so the bound keeps a program that makes a name per item from filling memory"},
      {"TD_REPORT_REGIONS", "a number; `0` = all", "30",
       "the text report shows this many regions, those with the longest inclusive wall time and what contains "
       "them, and one line for the rest (also `td report`; `td report --all` shows every region); per-thread rows "
       "only up to 8 threads when folded ([A long report, folded](#a-long-report-folded))"},
      {"TD_COMPENSATE", "boolean", "1",
       "take td's own cost per marker pair, measured at exit, out of every region's times and counts in the "
       "reports (`td report` too); the JSON keeps the raw values and the cost (`marker_cost`); `0` reports raw "
       "values ([performance.md](performance.md#tds-cost-inside-what-it-reports))"},
      {"TD_SAMPLE", "1 … 1048576", "1",
       "read times and counters on one call in N of each region on each thread (the first, the N+1st, …) and scale "
       "them to all calls, which stay counted exactly; an unread pair costs a few ns instead of the reads. Every "
       "report says so. Off while `TD_TRACE` records a timeline ([performance.md](performance.md#sparse-"
       "measurement-td_sample))"},
      {"TD_TRACE", "boolean", "0",
       "also record a timeline: every begin and end with the thread's counter values, written to "
       "`td-<program>-<pid>.trace.json` (Chrome trace format; open in Perfetto or chrome://tracing)"},
      {"TD_TRACE_EVENTS", "16 … 67108864", "16384",
       "events kept per thread: a ring that keeps the newest; overwritten events are counted, reported on stderr "
       "and in the JSON"},
      {"TD_TRACE_MEMORY", "MiB, 1 … 1048576", "512",
       "all threads' trace rings together stay under this; each event costs 16 B plus 8 B per counter word (72 B "
       "with the software group)"},
      {"TD_SIGNALS", "boolean", "0; 1 in an MPI job",
       "SIGTERM, SIGINT, SIGHUP, SIGQUIT write the reports, then end the program by the same signal "
       "([Lifecycle](#lifecycle))"},
      {"TD_FLUSH_INTERVAL", "seconds, 0 … 86400; `0` = never", "0; 10 in an MPI job",
       "every this many seconds a thread of td's writes the run so far to its JSON file, marked `partial` (open "
       "regions counted up to then), replacing td's previous partial file; the write at exit replaces it with the "
       "complete one. A process killed by SIGKILL, or one that crashes, keeps its data up to its last flush; the "
       "job view names such a rank as partial ([Lifecycle](#lifecycle), [hpc.md](hpc.md#when-a-rank-fails))"},
      {"TD_UARCH", "a key of `td uarchs`", "from the CPU",
       "microarchitecture whose definitions analyse the counts; an unknown key is one error at start and ignored"},
      {"TD_METRICS_DIR", "a directory of definition files", "built-in files",
       "adds or replaces definition files ([analysis.md](analysis.md))"},
      {"TD_REPORT_RANKS", "`0`, `all`, `none`", "`0`",
       "in an MPI job, which ranks print the text report on stderr (the others still print their problems and "
       "write their JSON; [hpc.md](hpc.md))"},
      {"TD_MPI_RANKS", "`auto`, or a boolean", "`auto`",
       "with libtd-mpi: whether the job file keeps one row per rank and region (`1`), or per region only "
       "min / mean / max, the slowest rank and a histogram (`0`); `auto` keeps the rows up to 64 ranks "
       "([hpc.md](hpc.md#one-file-per-job))"},
      {"OMPI_COMM_WORLD_RANK", "set by Open MPI's launcher", "—",
       "with `OMPI_COMM_WORLD_SIZE`: this process is that rank of an MPI job ([hpc.md](hpc.md)); the job is "
       "`SLURM_JOB_ID`, else `PMIX_NAMESPACE`, else `OMPI_MCA_ess_base_jobid`"},
      {"OMPI_COMM_WORLD_SIZE", "set by Open MPI's launcher", "—", "the number of ranks"},
      {"MV2_COMM_WORLD_RANK", "set by MVAPICH2's launcher", "—",
       "with `MV2_COMM_WORLD_SIZE`: the rank, when Open MPI's variables are absent"},
      {"MV2_COMM_WORLD_SIZE", "set by MVAPICH2's launcher", "—", "the number of ranks"},
      {"PMIX_RANK", "set by a PMIx launcher", "—", "with `PMIX_SIZE`: the rank, when the above are absent"},
      {"PMIX_SIZE", "set by some PMIx launchers", "—", "the number of ranks"},
      {"PMIX_NAMESPACE", "set by a PMIx launcher", "—", "the job, when `SLURM_JOB_ID` is absent"},
      {"PMI_RANK", "set by a PMI launcher (MPICH's Hydra)", "—", "with `PMI_SIZE`: the rank, when the above are absent"},
      {"PMI_SIZE", "set by a PMI launcher", "—", "the number of ranks"},
      {"PMI_JOBID", "set by some PMI launchers", "—", "the job, when `SLURM_JOB_ID` is absent"},
      {"SLURM_PROCID", "set by `srun`", "—", "with `SLURM_NTASKS`: the rank, when no MPI launcher's variables are set"},
      {"SLURM_NTASKS", "set by `srun`", "—", "the number of ranks"},
      {"SLURM_JOB_ID", "set by Slurm", "—", "the job (preferred over the launchers' own job names)"},
      {"OMPI_MCA_ess_base_jobid", "set by Open MPI's launcher", "—", "the job, when nothing above names it"},
      {"NO_COLOR", "any non-empty value", "unset", "no colour in text reports, even on a terminal"},
      {"TMPDIR", "a directory", "`/tmp`", "scratch folders of `td run`, and where the JSON goes when `TD_OUTPUT_DIR` cannot be written"},
      {"XDG_CACHE_HOME", "an absolute directory", "`$HOME/.cache`",
       "`td/calibration.json` there holds the memory-bandwidth calibration (`td calibrate`)"},
  };
  return *settings;
}

std::string DescribeEnvironment() {
  std::string out;
  for (const Setting& s : Settings()) {
    if (const char* value = std::getenv(s.name)) {
      absl::StrAppendFormat(&out, "%s=%s\n", s.name, Printable(value));
    } else {
      std::string fallback = s.default_value;
      fallback.erase(std::remove(fallback.begin(), fallback.end(), '`'), fallback.end());
      absl::StrAppendFormat(&out, "%s unset (default: %s)\n", s.name, fallback);
    }
  }
  return out;
}

std::string SettingsMarkdownTable() {
  std::string table = "| variable | values | default | meaning |\n|---|---|---|---|\n";
  for (const Setting& s : Settings()) {
    absl::StrAppendFormat(&table, "| `%s` | %s | %s | %s |\n", s.name, s.accepted, s.default_value, s.meaning);
  }
  return table;
}

}  // namespace td

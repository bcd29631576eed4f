#include "tools/td/commands.h"

#include "tools/td/compat_preload.h"
#include "tools/td/program_signals.h"
#include "tools/td/simulate.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_join.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "runtime/driver/config.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/event_selection.h"
#include "runtime/base/byte_strings.h"
#include "runtime/recorded/run_file.h"
#include "runtime/recorded/merge_passes.h"
#include "runtime/base/output_files.h"
#include "runtime/report/report_pipeline.h"
#include "runtime/report/text_report.h"
#include "runtime/base/status_macros.h"
#include "runtime/base/text_format.h"

namespace td::tool {
namespace {

int FailRun(const std::string& message) {
  std::fprintf(stderr, "td run: %s\n", message.c_str());
  return cli::kFailed;
}

void Say(const std::string& message) { std::fprintf(stderr, "td run: %s\n", message.c_str()); }

struct PassPlan {
  bool pmu = false;         // hardware counters can be opened here
  std::string pmu_reason;   // why not, when not
  int hardware_groups = 0;  // what the runtime will plan, as the runtime will (same environment, same machine)
  std::string why_one;      // why a single group, when a reason is known
};

PassPlan PlanHardwareGroups() {
  PassPlan plan;
  const Availability availability = DescribeAvailability(ProbeMachine(&RealPerfEventOpen));
  plan.pmu = availability.hardware_counters;
  if (!plan.pmu) {
    plan.pmu_reason = availability.hardware_reason;
    plan.why_one = "no hardware counters (" + availability.hardware_reason + "): one pass measures all there is";
    return plan;
  }
  // TD_* mistakes: each pass's runtime reports them.
  const Config config = ReadConfigFromEnvironment().config;
  const EventSelection selection = SelectForThisMachine(config.events, config.level, availability, 1, 1, config.memory,
                                                        config.uarch, config.metrics_dir);
  if (!selection.errors.empty()) plan.why_one = selection.errors.front();
  plan.hardware_groups = selection.hardware_groups_planned;
  return plan;
}

// `asked` passes, or one per hardware group for --passes auto (asked == 0).
// Passes share out hardware counter groups: without a PMU there is nothing
// to share, and a second pass would only measure the first one again.
int ChoosePasses(int asked) {
  const PassPlan plan = PlanHardwareGroups();
  if (asked == 0) {
    const int passes = std::max(1, plan.hardware_groups);
    std::fprintf(stderr, "td run: --passes auto: %d pass%s%s\n", passes, passes == 1 ? "" : "es",
                 plan.why_one.empty() ? " (one per hardware counter group)" : ("; " + plan.why_one).c_str());
    return passes;
  }
  if (asked > 1 && !plan.pmu) {
    Say(absl::StrFormat("--passes %d: no PMU: one pass is enough (%s)", asked, plan.pmu_reason));
    return 1;
  }
  return asked;
}

// Where an automatic output name goes: where the runtime itself writes.
std::string OutputDirectory() {
  return ReadConfigFromEnvironment().config.json_dir;  // each pass's runtime reports its problems
}

// The merged recording must be writable where it is going. Checked before
// the program starts: finding out after the last pass loses the whole run.
absl::Status CheckDestination(const std::string& out_path, const std::string& dir) {
  const std::string what = out_path.empty() ? "the recording in " + dir : out_path;
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat("cannot write %s: %s: %s", what, dir, std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrFormat("cannot write %s: %s: %s", what, dir, std::strerror(ENOTDIR)));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat("cannot write %s: %s: %s", what, dir, std::strerror(errno)));
  }
  if (!out_path.empty() && stat(out_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrFormat("cannot write %s: %s", out_path, std::strerror(EISDIR)));
  }
  return absl::OkStatus();
}

// Starts the program with TD_PASS=k/n, its report going to `dir`. When exec
// fails the child sends errno back through a close-on-exec pipe, so the
// reason is reported once, here.
// `env`: NAME=VALUE settings of td run's own (--simulate's).
absl::StatusOr<pid_t> StartPass(const std::vector<std::string>& program, int k, int n, const std::string& dir,
                                const std::string& preload, const std::vector<std::string>& env) {
  int exec_error[2];
  if (pipe2(exec_error, O_CLOEXEC) != 0) return absl::InternalError(absl::StrFormat("pipe: %s", std::strerror(errno)));
  const pid_t child = fork();
  if (child < 0) {
    const int err = errno;
    close(exec_error[0]);
    close(exec_error[1]);
    return absl::InternalError(absl::StrFormat("cannot fork: %s", std::strerror(err)));
  }
  if (child == 0) {
    close(exec_error[0]);
    setenv("TD_PASS", absl::StrFormat("%d/%d", k, n).c_str(), 1);
    setenv("TD_OUTPUT_DIR", dir.c_str(), 1);
    setenv("TD_OUTPUT", "none", 1);
    setenv("TD_JSON", "1", 1);
    setenv("TD_QUIET", "1", 1);  // td run says what matters once, not per pass
    if (!preload.empty()) setenv("LD_PRELOAD", preload.c_str(), 1);
    for (const std::string& setting : env) {
      const size_t equals = setting.find('=');
      setenv(setting.substr(0, equals).c_str(), setting.substr(equals + 1).c_str(), 1);
    }
    std::vector<char*> argv;
    for (const std::string& a : program) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const int err = errno;
    if (write(exec_error[1], &err, sizeof(err)) < 0) _exit(126);
    _exit(127);
  }
  ForwardSignalsToProgram::SetProgram(child);
  close(exec_error[1]);
  int err = 0;
  ssize_t got = 0;
  do {
    got = read(exec_error[0], &err, sizeof(err));
  } while (got < 0 && errno == EINTR);
  close(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof(err))) {
    waitpid(child, nullptr, 0);
    return absl::NotFoundError(absl::StrFormat("cannot start %s: %s", program[0], std::strerror(err)));
  }
  return child;
}

// The report of the child we started (the program may fork others).
absl::StatusOr<RunData> FindReport(const std::vector<std::string>& program, pid_t child, const std::string& dir) {
  const std::string path =
      dir + "/" + JsonFileName(std::filesystem::path(program[0]).filename().string(), static_cast<long>(child));
  auto run = ReadRunFile(path);
  if (run.ok()) return run;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json" && entry.path().string().find(".trace.") == std::string::npos) {
      auto other = ReadRunFile(entry.path().string());
      if (other.ok() && other->program.pid == child) return other;
    }
  }
  return absl::NotFoundError("no td report");
}

std::string HowItEnded(int status) {
  if (WIFEXITED(status)) return absl::StrFormat("exited with status %d", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrFormat("was killed by signal %d", WTERMSIG(status));
  return "ended abnormally";
}

// What a shell would give for the program's wait status: its exit status,
// or 128 + N when signal N ended it (as `time` passes it on).
int ShellStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return cli::kFailed;
}

// Runs pass k of n; one message for whatever went wrong. *status: how the
// program ended, as waitpid says.
absl::StatusOr<RunData> RunPass(const std::vector<std::string>& program, int k, int n, const std::string& dir,
                                const std::string& preload, const std::vector<std::string>& env, int* status_out) {
  TD_ASSIGN_OR_RETURN(const pid_t child, StartPass(program, k, n, dir, preload, env));
  int& status = *status_out;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  ForwardSignalsToProgram::SetProgram(0);
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  auto run = FindReport(program, child, dir);
  if (!run.ok() && !clean) {
    return absl::NotFoundError(
        absl::StrFormat("pass %d of %d: %s %s and wrote no td report", k, n, program[0], HowItEnded(status)));
  }
  if (!run.ok()) {
    return absl::NotFoundError(absl::StrFormat(
        "pass %d of %d wrote no td report (is %s linked with td, and did it use a marker?)", k, n, program[0]));
  }
  if (!clean) Say(absl::StrFormat("pass %d of %d: %s %s", k, n, program[0], HowItEnded(status)));
  return run;
}

// Every pass in a scratch folder of its own, removed afterwards.
// *program_status: the first pass that did not end with status 0, else 0.
absl::StatusOr<std::vector<RunData>> RunPasses(const std::vector<std::string>& program, int passes,
                                               const std::string& preload, const std::vector<std::string>& env,
                                               int* program_status) {
  // Each pass's runtime reports the settings' problems.
  const std::string tmpdir = ReadConfigFromEnvironment().config.tmpdir;
  std::string scratch = tmpdir + "/td-run-XXXXXX";
  if (mkdtemp(scratch.data()) == nullptr) {  // named by the folder the user chose, not mkdtemp's pattern
    return absl::FailedPreconditionError(
        absl::StrFormat("cannot create a scratch directory in %s (TMPDIR): %s", tmpdir, std::strerror(errno)));
  }
  const ForwardSignalsToProgram forwarding;
  std::vector<RunData> runs;
  for (int k = 1; k <= passes; ++k) {
    const std::string dir = absl::StrFormat("%s/pass-%d", scratch, k);
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    Say(absl::StrFormat("pass %d of %d: %s", k, passes, program[0]));
    int status = 0;
    auto run = RunPass(program, k, passes, dir, preload, env, &status);
    if (*program_status == 0) *program_status = ShellStatus(status);
    if (!run.ok()) {
      std::filesystem::remove_all(scratch, ignored);
      return run.status();
    }
    Say(absl::StrFormat("pass %d of %d: %s, %s", k, passes, Counted(run->regions.size(), "region"),
                        Counted(run->layout.groups.size(), "counter group")));
    runs.push_back(*std::move(run));
    if (const int signal_number = ForwardSignalsToProgram::Received(); signal_number != 0 && k < passes) {
      std::filesystem::remove_all(scratch, ignored);
      return absl::CancelledError(
          absl::StrFormat("stopped after pass %d of %d: td run received signal %d", k, passes, signal_number));
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(scratch, ignored);
  return runs;
}

// The process environment's value of NAME, "" when unset. Not td's
// configuration (that is read in runtime/driver/config.cc only): PATH, to find
// the program as execvp will, and LD_PRELOAD, to keep what the user preloads.
std::string InheritedVariable(const char* name) {
  const size_t length = std::strlen(name);
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (std::strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') return *entry + length + 1;
  }
  return "";
}

// Whether td run's notes about an MPI program go out here: once for the job,
// not once per rank, where the runtime prints its notices (rank 0 unless
// TD_REPORT_RANKS says otherwise). Warnings go out on every rank.
bool PrintsNotes() {
  return PrintsReports(ReadConfigFromEnvironment().config);  // the program's runtime reports its problems
}

// What td run preloads into the program.
struct Preload {
  std::string ld_preload;  // LD_PRELOAD for the program; "" leaves it as it is
  bool mpi = false;        // libtd-mpi is in it: the program runs once, as one rank of a job
  std::string mpi_note;    // what td run says about it, once the command line is known to be right
};

// libtd_compat in front of LD_PRELOAD (`value`), when the program is linked
// with liblikwid or libpapi (`needed`), or when --compat asks; `notes`: say so.
absl::Status AddCompat(const std::string& program, const std::vector<std::string>& needed, bool asked,
                       bool notes, std::string* value) {
  std::string reason = "--compat";
  if (!asked) {
    const std::string library = MarkerLibrary(needed);
    if (library.empty()) return absl::OkStatus();
    reason = program + " is linked with " + library;
  }
  std::vector<std::string> looked;
  const std::string compat = FindTdLibrary(TdLibrary::kCompat, &looked);
  if (compat.empty()) {
    const std::string message =
        looked.empty() ? reason + ", but this td was built without libtd_compat (-DTD_BUILD_COMPAT=OFF)"
                       : absl::StrFormat("%s, but libtd_compat is not installed (looked for %s)", reason,
                                         absl::StrJoin(looked, ", "));
    if (asked) return absl::NotFoundError(message);
    Say(message + "; its LIKWID/PAPI markers are not recorded");
    return absl::OkStatus();
  }
  if (notes) Say(absl::StrFormat("%s: preloading %s (LIKWID and PAPI markers recorded as td regions)", reason, compat));
  *value = PreloadValue(compat, *value);
  return absl::OkStatus();
}

// libtd-mpi and the libtd of its build in front of LD_PRELOAD (`value`), when
// the program is linked with MPI, or when --mpi asks. Both are named: a
// program that is not linked with td gets libtd this way, and one linked with
// another libtd of the same soname gets this one, the one libtd-mpi was built
// with (libtd-mpi calls into libtd through entry points that may change with
// any release). Their order does not matter to the loader, which maps every
// preloaded library before it resolves their dependencies: libtd-mpi's
// libtd is the preloaded one. What matters is that both come before libmpi,
// as preloaded libraries always do: libtd-mpi's MPI_Init and MPI_Finalize
// must be found before MPI's own.
absl::Status AddMpi(const std::string& program, const std::vector<std::string>& needed, bool asked,
                    std::string* value, Preload* preload) {
  std::string reason = "--mpi";
  if (!asked) {
    const std::string library = MpiLibrary(needed);
    if (library.empty()) return absl::OkStatus();
    reason = program + " is linked with " + library;
  }
  std::vector<std::string> looked;
  const std::string mpi = FindTdLibrary(TdLibrary::kMpi, &looked);
  const std::string libtd = mpi.empty() ? "" : LibtdBeside(TdLibrary::kMpi, mpi);
  if (mpi.empty() || libtd.empty()) {
    std::string message;
    if (looked.empty()) {
      message = reason + ", but this td was built without libtd-mpi (CMake found no MPI, or -DTD_BUILD_MPI=OFF)";
    } else if (mpi.empty()) {
      message = absl::StrFormat("%s, but libtd-mpi is not installed (looked for %s)", reason,
                                absl::StrJoin(looked, ", "));
    } else {
      message = absl::StrFormat("%s, but the libtd beside %s is missing", reason, mpi);
    }
    if (asked) return absl::NotFoundError(message);
    Say(message + "; each rank's recording is its own");
    return absl::OkStatus();
  }
  preload->mpi_note =
      absl::StrFormat("%s: preloading %s and %s (the job's ranks write one file at MPI_Finalize)", reason, mpi, libtd);
  *value = PreloadValue(mpi, PreloadValue(libtd, *value));
  preload->mpi = true;
  return absl::OkStatus();
}

// LD_PRELOAD for the program: what td run adds in front of what is set.
absl::StatusOr<Preload> ChoosePreload(const std::string& program, bool compat, bool mpi) {
  const std::string path = FindProgram(program, InheritedVariable("PATH"));
  const std::vector<std::string> needed = path.empty() ? std::vector<std::string>() : NeededLibraries(path);
  const std::string inherited = InheritedVariable("LD_PRELOAD");
  std::string value = inherited;
  Preload preload;
  TD_RETURN_IF_ERROR(AddMpi(program, needed, mpi, &value, &preload));
  // In an MPI job, the note once for the job, as libtd-mpi's.
  TD_RETURN_IF_ERROR(AddCompat(program, needed, compat, !preload.mpi || PrintsNotes(), &value));
  if (value != inherited) preload.ld_preload = value;
  return preload;
}

// An MPI program: this process is one rank of a job that the launcher
// started, and libtd-mpi writes the job's one file at MPI_Finalize from
// inside the program. There is nothing for td run to merge, and no second
// pass: a rank cannot start its program again inside the same job, so the
// program replaces td run (the launcher then sees the program's own exit
// status and signals, as without td run).
int RunMpiRank(const std::vector<std::string>& program, const Preload& preload, int asked) {
  const bool notes = PrintsNotes();
  if (notes) Say(preload.mpi_note);
  if (asked > 1 && notes) {
    Say(absl::StrFormat("--passes %d: %s is an MPI program: it runs once, with its counter groups multiplexed "
                        "(each pass would be a new job, which the launcher starts, not td run)",
                        asked, program[0]));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  // Empty: what was preloaded already holds both libraries.
  if (!preload.ld_preload.empty() && setenv("LD_PRELOAD", preload.ld_preload.c_str(), 1) != 0) {
    return FailRun(absl::StrFormat("cannot set LD_PRELOAD: %s", std::strerror(errno)));
  }
  std::vector<char*> argv;
  for (const std::string& a : program) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  return FailRun(absl::StrFormat("cannot start %s: %s", program[0], std::strerror(errno)));
}

void NoteSpread(int passes, MergedPasses* merged) {
  std::string worst;
  for (const PassSpread& s : merged->spread) {
    if (worst.empty()) worst = absl::StrFormat("%s %s %.1f%%", s.region, s.event, 100 * s.Relative());
  }
  const std::string line = absl::StrFormat(
      "td run: merged %d passes; largest run-to-run spread of the events every pass counted: %s", passes,
      worst.empty() ? "none measured" : worst);
  std::fprintf(stderr, "%s\n", line.c_str());
  merged->run.diagnostics.push_back({Severity::kNotice, line});
}

}  // namespace

int RunCommand(const cli::Command& self, const cli::Args& args) {
  std::string passes_arg = "auto";
  std::string out_path;
  bool compat = false;
  bool mpi = false;
  bool simulate = false;
  cli::Args program;
  const auto done =
      cli::Flags(self)
          .Value("--passes", &passes_arg)
          .Value("--out", &out_path)
          .Switch("--compat", &compat)
          .Switch("--mpi", &mpi)
          .Switch("--simulate", &simulate)
          .FirstOperandEndsFlags()
          .Parse(args, &program);
  if (done) return *done;
  if (program.empty()) return cli::WrongOperands(self, "a PROGRAM to run (after --)");
  int asked = 0;  // --passes auto
  if (passes_arg != "auto" && (!absl::SimpleAtoi(passes_arg, &asked) || asked < 1 || asked > 64)) {
    return cli::Misuse("--passes \"" + passes_arg + "\" is not understood; accepted: auto or 1 to 64");
  }
  const std::string out_dir =
      out_path.empty() ? OutputDirectory() : std::filesystem::path(out_path).parent_path().string();
  if (absl::Status s = CheckDestination(out_path, out_dir.empty() ? "." : out_dir); !s.ok()) {
    return FailRun(std::string(s.message()));
  }
  const auto preload = ChoosePreload(program[0], compat, mpi);
  if (!preload.ok()) return FailRun(std::string(preload.status().message()));
  if (preload->mpi) {
    if (!out_path.empty()) {
      return cli::Misuse("--out names one process's file; " + program[0] +
                         " is an MPI program, whose job file td names by program and job (TD_OUTPUT_DIR "
                         "chooses its folder)");
    }
    return RunMpiRank(program, *preload, asked);
  }
  // --simulate: one pass under tdsim, whose counts need no sharing out.
  std::vector<std::string> env;
  std::vector<std::string> command = program;
  int passes = 1;
  if (simulate) {
    if (asked > 1) Say(absl::StrFormat("--passes %d: --simulate counts everything in one pass", asked));
    auto simulated =
        SimulatedCommand(program, ReadCacheGeometry(), InheritedVariable("PATH"),
                         &env);
    if (!simulated.ok()) return FailRun("--simulate: " + std::string(simulated.status().message()));
    command = *std::move(simulated);
    Say("--simulate: " + absl::StrJoin(command, " ") + " (Valgrind slows the program down; docs/simulate.md)");
  } else {
    passes = ChoosePasses(asked);
  }
  // Scripts and CI read td run's status as the program's (time, perf stat and
  // valgrind pass it on too): td's own failures show only when it is 0.
  int program_status = 0;
  auto runs = RunPasses(command, passes, preload->ld_preload, env, &program_status);
  const auto fail = [&program_status](const std::string& message) {
    const int failed = FailRun(message);
    return program_status != 0 ? program_status : failed;
  };
  if (!runs.ok()) return fail(std::string(runs.status().message()));
  auto merged = MergePasses(*runs);
  if (!merged.ok()) return fail(std::string(merged.status().message()));
  if (passes > 1) NoteSpread(passes, &*merged);
  // Written as it is formatted, never held whole (as the runtime writes its
  // run file).
  const auto json = [&merged](PieceWriter write) { return WriteRunFileText(merged->run, write); };
  if (out_path.empty()) {
    // A name td chose never replaces a file: a pid twin's run lands beside it.
    const std::string stem = JsonFileStem(merged->run.program.name, static_cast<long>(merged->run.program.pid));
    auto written = WriteNewFile(out_dir.empty() ? "." : out_dir, stem, ".json", json);
    if (!written.ok()) return fail("the merged run: " + std::string(written.status().message()));
    out_path = out_dir.empty() || out_dir == "." ? std::filesystem::path(*written).filename().string() : *written;
  } else if (auto s = WriteFileAtomically(out_path, json); !s.ok()) {  // the file the user named
    return fail("the merged run: " + std::string(s.message()));
  }
  std::fprintf(stderr, "td run: wrote %s (td report %s --html for a page)\n", out_path.c_str(), out_path.c_str());
  // The same report `td report` prints: with the Top-Down trees when the run
  // has hardware counts.
  const Config config = ReadConfigFromEnvironment().config;
  ReportPipeline pipeline({config.metrics_dir, config.uarch, config.calibration_file, config.compensate});
  std::string problem;
  const std::string text = pipeline.Text(merged->run, TextReportOptions{}, &problem);
  if (!problem.empty()) std::fprintf(stderr, "td run: %s\n", problem.c_str());
  std::fputs(text.c_str(), stdout);
  return program_status;
}

const cli::Command kRunCommand = {
    "run", "run [--passes auto|N] [--out FILE] [--compat] [--mpi] [--simulate] [--] PROGRAM [ARGS…]",
    "run a program linked with td, once per share of the counter groups, merged",
    "Runs PROGRAM once per pass, each pass counting its share of the hardware counter\n"
    "groups, merges the passes' recordings by region into one file and prints its report.\n"
    "\n"
    "  --passes auto|N  how many passes (1 to 64); auto: one per hardware counter group.\n"
    "                   Without a PMU there is nothing to share out, so one pass.\n"
    "  --out FILE       the merged recording (default: td-PROGRAM-PID.json in\n"
    "                   TD_OUTPUT_DIR, else here); its folder must exist and be\n"
    "                   writable, which td checks before PROGRAM starts\n"
    "  --compat         preload libtd_compat (LIKWID and PAPI markers as td regions);\n"
    "                   done without asking when PROGRAM is linked with liblikwid\n"
    "                   or libpapi (docs/compat.md)\n"
    "  --mpi            preload libtd-mpi and libtd: the ranks of an MPI job write\n"
    "                   one file at MPI_Finalize; done without asking when PROGRAM\n"
    "                   is linked with MPI. PROGRAM then runs once, in place of td\n"
    "                   run (mpirun -np 4 td run -- ./prog; docs/hpc.md)\n"
    "  --simulate       one pass under td's Valgrind tool (TD_BACKEND=simulate):\n"
    "                   exact, repeatable simulated counts (sim.instructions,\n"
    "                   sim.branch_misses, sim.l1d_misses, …) of this machine's\n"
    "                   cache geometry, no PMU needed; much slower (matmul\n"
    "                   256: 20x)\n"
    "                   (docs/simulate.md)\n"
    "\n"
    "td's flags end at PROGRAM (or at --): what follows is PROGRAM's. td run exits\n"
    "with PROGRAM's exit status (128 + N when signal N killed it), as time does.",
    RunCommand};

}  // namespace td::tool

#include "tools/td/run_command.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "runtime/core/config.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/event_selection.h"
#include "runtime/report/json_report.h"
#include "runtime/report/merge_passes.h"
#include "runtime/report/output_files.h"
#include "runtime/report/text_report.h"

namespace td {
namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "td run: %s\n", message.c_str());
  return 1;
}

// How many hardware groups a run of this program would plan, as the runtime
// will (same environment, same machine).
int PlannedHardwareGroups(std::string* why_one) {
  const Availability availability = DescribeAvailability(ProbeMachine(&RealPerfEventOpen));
  if (!availability.hardware_counters) {
    *why_one = "no hardware counters (" + availability.hardware_reason + "): one pass measures all there is";
    return 0;
  }
  std::vector<std::string> errors;  // TD_* mistakes: each pass's runtime reports them
  const Config config = ReadConfig([](const char* name) { return std::getenv(name); }, &errors);
  const EventSelection selection = SelectForThisMachine(config.events, config.level, availability, 1, 1, config.memory);
  if (!selection.errors.empty()) *why_one = selection.errors.front();
  return selection.hardware_groups_planned;
}

// Runs the program once with TD_PASS=k/n; its JSON lands in `dir`.
absl::StatusOr<RunData> RunPass(const std::vector<std::string>& program, int k, int n,
                                const std::string& dir) {
  const pid_t child = fork();
  if (child < 0) return absl::InternalError("fork failed");
  if (child == 0) {
    setenv("TD_PASS", absl::StrFormat("%d/%d", k, n).c_str(), 1);
    setenv("TD_OUTPUT_DIR", dir.c_str(), 1);
    setenv("TD_OUTPUT", "none", 1);
    setenv("TD_JSON", "1", 1);
    setenv("TD_QUIET", "1", 1);  // td run says what matters once, not per pass
    std::vector<char*> argv;
    for (const std::string& a : program) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "td run: cannot start %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return absl::NotFoundError(absl::StrFormat("cannot start %s", program[0]));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "td run: pass %d of %d: %s exited with %s\n", k, n, program[0].c_str(),
                 WIFEXITED(status) ? absl::StrFormat("status %d", WEXITSTATUS(status)).c_str() : "a signal");
  }
  // The program may fork: take the report of the child we started.
  const std::string path = dir + "/" + JsonFileName(std::filesystem::path(program[0]).filename().string(),
                                                    static_cast<long>(child));
  auto run = ReadRunFile(path);
  if (run.ok()) return run;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".json" && entry.path().string().find(".trace.") == std::string::npos) {
      auto other = ReadRunFile(entry.path().string());
      if (other.ok() && other->program.pid == child) return other;
    }
  }
  return absl::NotFoundError(absl::StrFormat(
      "pass %d of %d wrote no td report (is %s linked with td, and did it use a marker?)", k, n, program[0]));
}

}  // namespace

int RunCommand(const std::vector<std::string>& args) {
  std::string passes_arg = "auto";
  std::string out_path;
  size_t i = 0;
  for (; i < args.size() && args[i] != "--"; ++i) {
    if (args[i] == "--passes" && i + 1 < args.size()) {
      passes_arg = args[++i];
    } else if (args[i] == "--out" && i + 1 < args.size()) {
      out_path = args[++i];
    } else {
      return Fail("usage: td run [--passes auto|N] [--out FILE] -- PROGRAM [ARGS…]");
    }
  }
  const std::vector<std::string> program(args.begin() + std::min(i + 1, args.size()), args.end());
  if (program.empty()) return Fail("usage: td run [--passes auto|N] [--out FILE] -- PROGRAM [ARGS…]");
  int passes = 0;
  if (passes_arg == "auto") {
    std::string why_one;
    passes = std::max(1, PlannedHardwareGroups(&why_one));
    std::fprintf(stderr, "td run: --passes auto: %d pass%s%s\n", passes, passes == 1 ? "" : "es",
                 why_one.empty() ? " (one per hardware counter group)" : ("; " + why_one).c_str());
  } else if (!absl::SimpleAtoi(passes_arg, &passes) || passes < 1 || passes > 64) {
    return Fail("--passes \"" + passes_arg + "\" is not understood; accepted: auto or 1 to 64");
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string base = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/td-run-XXXXXX";
  if (mkdtemp(base.data()) == nullptr) return Fail("cannot create a scratch directory under " + base);
  const std::string scratch = base;
  std::vector<RunData> runs;
  for (int k = 1; k <= passes; ++k) {
    const std::string dir = absl::StrFormat("%s/pass-%d", scratch, k);
    std::filesystem::create_directories(dir);
    std::fprintf(stderr, "td run: pass %d of %d: %s\n", k, passes, program[0].c_str());
    auto run = RunPass(program, k, passes, dir);
    if (!run.ok()) {
      std::filesystem::remove_all(scratch);
      return Fail(std::string(run.status().message()));
    }
    std::fprintf(stderr, "td run: pass %d of %d: %zu regions, %zu counter groups\n", k, passes,
                 run->regions.size(), run->layout.groups.size());
    runs.push_back(*std::move(run));
  }
  std::filesystem::remove_all(scratch);
  auto merged = MergePasses(runs);
  if (!merged.ok()) return Fail(std::string(merged.status().message()));
  if (passes > 1) {
    std::string worst;
    for (const PassSpread& s : merged->spread) {
      if (worst.empty()) {
        worst = absl::StrFormat("%s %s %.1f%%", s.region, s.event, 100 * s.Relative());
      }
    }
    const std::string line = absl::StrFormat(
        "td run: merged %d passes; largest run-to-run spread of the events every pass counted: %s",
        passes, worst.empty() ? "none measured" : worst);
    std::fprintf(stderr, "%s\n", line.c_str());
    merged->run.diagnostics.push_back({Severity::kNotice, line});
  }
  if (out_path.empty()) {
    out_path = absl::StrFormat("td-%s-%d-passes.json", merged->run.program.name, passes);
  }
  if (auto s = WriteFileAtomically(out_path, RunToJson(merged->run).dump(1) + "\n"); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  std::fprintf(stderr, "td run: wrote %s (td report %s for the trees)\n", out_path.c_str(), out_path.c_str());
  std::fputs(FormatTextReport(merged->run).c_str(), stdout);
  return 0;
}

}  // namespace td

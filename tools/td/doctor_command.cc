// td doctor: what td can measure on this machine and why not the rest; with
// --self-test, whether what it measures is right.
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "runtime/counters/availability.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"
#include "tools/td/commands.h"
#include "tools/td/doctor/checks.h"
#include "tools/td/doctor/facts.h"
#include "tools/td/doctor/self_test.h"

extern char** environ;

namespace td::tool {
namespace {

namespace fs = std::filesystem;

void PrintText(const doctor::Facts& facts, const std::vector<doctor::Finding>& findings) {
  const MachineInfo& m = facts.machine;
  absl::PrintF("td doctor: what td can measure on %s (Linux %s, %s, %d logical CPUs), and why not the rest\n\n",
               m.hostname, m.kernel, m.architecture, m.logical_cpus);
  for (const auto& f : findings) {
    const doctor::Check* check = nullptr;
    for (const auto& c : doctor::Checks()) {
      if (f.check == c.id) check = &c;
    }
    absl::PrintF("%-8s %-20s %s\n", doctor::StateName(f.state), check ? check->title : f.check, f.summary);
    for (const auto& d : f.details) absl::PrintF("%30s%s\n", "", d);
    for (const auto& l : f.lift) absl::PrintF("%30sto lift: %s\n", "", l);
  }
  const Availability a = DescribeAvailability(
      {facts.hardware_errno, facts.software_errno, facts.paranoid, false});
  absl::PrintF("\ntd measures here: %s%s\n", a.measured,
               facts.hardware_errno == 0 ? ", and the hardware events above that open" : "");
}

nlohmann::json ToJson(const doctor::Facts& facts, const std::vector<doctor::Finding>& findings) {
  nlohmann::json out;
  const MachineInfo& m = facts.machine;
  out["machine"] = {{"hostname", m.hostname},         {"kernel", m.kernel},
                    {"architecture", m.architecture}, {"cpu_vendor", m.cpu_vendor},
                    {"cpu_model_name", m.cpu_model_name}, {"cpu_family", m.cpu_family},
                    {"cpu_model", m.cpu_model},       {"cpu_stepping", m.cpu_stepping},
                    {"logical_cpus", m.logical_cpus}, {"hypervisor", facts.hypervisor_signature}};
  out["uarch"] = facts.uarch;
  out["tma_version"] = facts.tma_version;
  out["probed_general_counters"] = facts.probed_general_counters;
  out["model_general_counters"] = facts.model_general_counters;
  out["pmus"] = nlohmann::json::array();
  for (const auto& p : facts.pmus) out["pmus"].push_back({{"name", p.name}, {"type", p.type}, {"kind", p.kind}});
  out["events"] = nlohmann::json::array();
  for (const auto& e : facts.events) {
    out["events"].push_back({{"name", e.name},
                             {"type", e.type},
                             {"config", absl::StrFormat("0x%x", e.config)},
                             {"opened", e.err == 0},
                             {"errno", e.err == 0 ? "" : ErrnoName(e.err)}});
  }
  out["findings"] = nlohmann::json::array();
  for (const auto& f : findings) {
    out["findings"].push_back({{"check", f.check},
                               {"state", doctor::StateName(f.state)},
                               {"summary", f.summary},
                               {"details", f.details},
                               {"lift", f.lift}});
  }
  return out;
}

// Runs `argv` with extra environment entries, its output to `log`; the exit status.
int Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env, const std::string& log) {
  std::vector<std::string> env_strings(extra_env);
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) env_strings.emplace_back(*e);
  std::vector<char*> args, env;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (auto& e : env_strings) env.push_back(e.data());
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int err = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Recording {
  RunData data;
  RunAnalysis analysis;
};

// One `td run` of the kernels; nullopt (and a line on stderr) when it failed.
std::optional<Recording> RunKernels(const std::string& td, const std::string& kernels, bool quick,
                                    const std::string& dir, const std::string& name, const std::string& passes,
                                    const std::vector<std::string>& env) {
  const std::string out = dir + "/" + name + ".json", log = dir + "/" + name + ".log";
  std::vector<std::string> argv = {td, "run", "--passes", passes, "--out", out, "--", kernels};
  if (quick) argv.push_back("--quick");
  const int status = Spawn(argv, env, log);
  auto data = status == 0 ? ReadRunForReport(out) : absl::UnknownError("");
  if (!data.ok()) {
    absl::FPrintF(stderr, "td doctor: the %s run of td-self-test failed (exit %d); its output:\n", name, status);
    if (FILE* f = std::fopen(log.c_str(), "r")) {
      char line[512];
      while (std::fgets(line, sizeof line, f) != nullptr) std::fputs(line, stderr);
      std::fclose(f);
    }
    return std::nullopt;
  }
  auto analysis = Pipeline().Analyze(*data);
  Recording r{*std::move(data), analysis.ok() ? *std::move(analysis) : RunAnalysis{}};
  return r;
}

void Print(const std::vector<doctor::SelfTestCheck>& checks, int* failed, nlohmann::json* json) {
  for (const auto& c : checks) {
    if (c.outcome == doctor::Outcome::kFail) ++*failed;
    if (json != nullptr) {
      json->push_back({{"check", c.name},
                       {"outcome", c.outcome == doctor::Outcome::kFail ? "fail" : doctor::OutcomeName(c.outcome)},
                       {"expected", c.expected},
                       {"measured", c.measured}});
      continue;
    }
    absl::PrintF("%-10s %-30s expected: %s\n%42s%s\n", doctor::OutcomeName(c.outcome), c.name, c.expected, "",
                 c.measured);
  }
}

int SelfTest(const doctor::Facts& facts, bool quick, bool as_json) {
  std::error_code ec;
  const fs::path td = fs::read_symlink("/proc/self/exe", ec);
  const fs::path kernels = td.parent_path() / "td-self-test";
  if (ec || !fs::exists(kernels, ec)) {
    absl::FPrintF(stderr, "td doctor: td-self-test is not beside td (%s); the self-test cannot run\n",
                  kernels.string());
    return 1;
  }
  const fs::path tmp = fs::temp_directory_path(ec);  // TMPDIR, else /tmp
  std::string dir = (ec ? fs::path("/tmp") : tmp).string() + "/td-self-test-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) return Fail("cannot make a scratch folder in " + dir);
  const bool hardware = facts.hardware_errno == 0;
  const std::vector<std::string> level = {"TD_LEVEL=4", "TD_OUTPUT=none"};
  if (!as_json) {
    absl::PrintF("td doctor --self-test: td-self-test's 6 kernels under td run%s\n", quick ? " (--quick sizes)" : "");
    if (!hardware) {
      const Availability a = DescribeAvailability({facts.hardware_errno, facts.software_errno, facts.paranoid, false});
      absl::PrintF("no hardware counters here, so only the software part is checked: %s\n", a.hardware_reason);
    }
  }
  int failed = 0;
  nlohmann::json checks = nlohmann::json::array();
  nlohmann::json* sink = as_json ? &checks : nullptr;
  auto multiplexed = RunKernels(td.string(), kernels.string(), quick, dir, "multiplexed", "1", level);
  if (!multiplexed) {
    ++failed;
  } else {
    Print(doctor::JudgeSoftware(multiplexed->data), &failed, sink);
    if (hardware) {
      std::vector<std::string> no_rdpmc = level;
      no_rdpmc.push_back("TD_RDPMC=0");
      auto system_calls = RunKernels(td.string(), kernels.string(), quick, dir, "read", "1", no_rdpmc);
      auto by_pass = RunKernels(td.string(), kernels.string(), quick, dir, "by_pass", "auto", level);
      if (by_pass) {
        Print(doctor::JudgeSignatures(by_pass->data, by_pass->analysis), &failed, sink);
        Print(doctor::JudgeMultiplexing(multiplexed->data, multiplexed->analysis, by_pass->data, by_pass->analysis),
              &failed, sink);
      }
      if (system_calls) Print(doctor::JudgeReadPaths(multiplexed->data, system_calls->data), &failed, sink);
      if (!by_pass || !system_calls) ++failed;
    }
  }
  fs::remove_all(dir, ec);  // td made it and everything in it
  if (as_json) {
    absl::PrintF("%s\n", nlohmann::json({{"hardware", hardware}, {"failed", failed}, {"checks", checks}}).dump(1));
  } else {
    absl::PrintF("self-test: %s\n", failed == 0 ? "every judged check passed" : absl::StrFormat("%d failed", failed));
  }
  return failed == 0 ? 0 : 1;
}

int Doctor(const Command& self, const Args& args) {
  bool as_json = false, self_test = false, quick = false, markdown = false;
  Args operands;
  if (const auto done = Flags(self)
                            .Switch("--json", &as_json)
                            .Switch("--self-test", &self_test)
                            .Switch("--quick", &quick)
                            .Switch("--checks-markdown", &markdown)
                            .Parse(args, &operands)) {
    return *done;
  }
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  if (quick && !self_test) return Misuse("--quick goes with --self-test");
  if (markdown) {
    absl::PrintF("%s", doctor::ChecksMarkdown());
    return 0;
  }
  const doctor::Facts facts = doctor::Gather({}, &RealPerfEventOpen);
  if (self_test) return SelfTest(facts, quick, as_json);
  const auto findings = doctor::Examine(facts);
  if (as_json) {
    absl::PrintF("%s\n", ToJson(facts, findings).dump(1));
  } else {
    PrintText(facts, findings);
  }
  return 0;
}

}  // namespace

const cli::Command kDoctorCommand = {
    "doctor", "doctor [--json] [--self-test [--quick]] [--checks-markdown]",
    "what td can measure on this machine, why not the rest, and how to lift each limit",
    "Reads the CPU and td's definitions for it, the hypervisor, the PMUs in sysfs,\n"
    "perf_event_paranoid, seccomp, rdpmc and the NMI watchdog, probes how many\n"
    "counters a group may hold and opens each event of the CPU's Level 1-3 tree\n"
    "alone; then says, check by check, what td can measure and the command that\n"
    "lifts each limit. It changes nothing on the machine and exits 0.\n"
    "\n"
    "  --json             the facts and findings as JSON\n"
    "  --self-test        run td-self-test's kernels (pointer chase, random branch,\n"
    "                     large code, dense FMA, false sharing, stream) under td run\n"
    "                     and check each lands where its signature says, that rdpmc\n"
    "                     and read() agree and that multiplexed and one-group-per-pass\n"
    "                     runs agree; without a PMU, the software part only.\n"
    "                     Exits 1 when a judged check fails.\n"
    "  --quick            smaller kernels (with --self-test)\n"
    "  --checks-markdown  the checks as docs/usage.md lists them",
    Doctor};

}  // namespace td::tool

// The built `td doctor` on this machine and against a preloaded fake PMU: the
// same checks a user reads, with perf_event_open failing as partial PMUs,
// missing drivers and refusing kernels make it fail.
#include <errno.h>

#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/shell_command.h"
#include "tests/support/build_paths.h"
#include "tools/td/doctor/checks.h"

namespace td::doctor {
namespace {

using Ran = td::testing::CommandOutput;

// Runs td with `args`, FAKE_PMU_* settings in `env` (the fake preloaded when
// any is given); stdout only.
Ran Td(const std::string& args, const std::string& env = "") {
  std::string command = env.empty() ? std::string()
                                    : absl::StrFormat("LD_PRELOAD=%s ASAN_OPTIONS=verify_asan_link_order=0 %s ",
                                                      TD_FAKE_PMU, env);
  command += absl::StrFormat("%s %s 2>/dev/null", TD_CLI, args);
  return td::testing::RunShellCommand(command);
}

nlohmann::json Json(const Ran& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

std::string StateOf(const nlohmann::json& doctor, const std::string& check) {
  for (const auto& f : doctor["findings"]) {
    if (f["check"] == check) return f["state"];
  }
  return "absent";
}

TEST(DoctorCli, TextNamesEveryCheckAndExitsZero) {
  const Ran r = Td("doctor");
  EXPECT_EQ(r.status, 0);
  for (const Check& c : Checks()) EXPECT_NE(r.out.find(c.title), std::string::npos) << c.title;
  EXPECT_NE(r.out.find("td measures here: "), std::string::npos);
}

TEST(DoctorCli, JsonHasAFindingPerCheck) {
  const auto j = Json(Td("doctor --json"));
  ASSERT_TRUE(j.contains("findings"));
  EXPECT_EQ(j["findings"].size(), Checks().size());
  EXPECT_TRUE(j["uarch"].is_string());
}

TEST(DoctorCli, ProbesTheCountersAFakePmuOffers) {
  for (int counters : {2, 4, 6}) {
    const auto j = Json(Td("doctor --json", absl::StrFormat("FAKE_PMU_COUNTERS=%d", counters)));
    EXPECT_EQ(j["probed_general_counters"], counters);
    EXPECT_EQ(StateOf(j, "core_pmu"), "ok");
    const int model = j["model_general_counters"];
    EXPECT_EQ(StateOf(j, "counters"), model > counters ? "limited" : "ok") << counters << " of " << model;
  }
}

TEST(DoctorCli, NoDriverAndRefusalsEachGetTheirReason) {
  const auto missing = Json(Td("doctor --json", absl::StrFormat("FAKE_PMU_HARDWARE_ERRNO=%d", ENOENT)));
  EXPECT_EQ(StateOf(missing, "core_pmu"), "blocked");
  for (const auto& e : missing["events"]) EXPECT_EQ(e["errno"], "ENOENT");
  EXPECT_EQ(missing["probed_general_counters"], -1);

  const auto refused = Json(Td("doctor --json", absl::StrFormat("FAKE_PMU_HARDWARE_ERRNO=%d", EACCES)));
  EXPECT_EQ(StateOf(refused, "core_pmu"), "blocked");
  for (const auto& f : refused["findings"]) {
    if (f["check"] == "core_pmu") EXPECT_NE(f["summary"].get<std::string>().find("EACCES"), std::string::npos);
  }

  const auto filtered = Json(Td("doctor --json", absl::StrFormat("FAKE_PMU_SOFTWARE_ERRNO=%d FAKE_PMU_HARDWARE_ERRNO=%d",
                                                                 EPERM, EPERM)));
  EXPECT_EQ(StateOf(filtered, "perf_events"), "blocked");
}

TEST(DoctorCli, EventsThatDoNotOpenAreNamedWithTheirErrno) {
  const auto all = Json(Td("doctor --json", "FAKE_PMU_COUNTERS=8"));
  std::vector<std::string> configs;
  for (const auto& e : all["events"]) {
    EXPECT_TRUE(e["opened"].get<bool>()) << e.dump();
    if (e["type"] == 4) configs.push_back(e["config"]);  // raw events: FAKE_PMU_REFUSE matches their config
  }
  if (configs.size() < 2) GTEST_SKIP() << "this CPU's key has fewer than 2 raw Top-Down events to refuse";
  const auto some = Json(Td("doctor --json", absl::StrFormat("FAKE_PMU_COUNTERS=8 FAKE_PMU_REFUSE=%s:%d,%s:%d",
                                                             configs[0].substr(2), EOPNOTSUPP, configs[1].substr(2),
                                                             EINVAL)));
  int opened = 0, unsupported = 0, invalid = 0;
  for (const auto& e : some["events"]) {
    opened += e["opened"].get<bool>();
    unsupported += e["errno"] == "EOPNOTSUPP";
    invalid += e["errno"] == "EINVAL";
  }
  EXPECT_EQ(unsupported, 1);
  EXPECT_EQ(invalid, 1);
  EXPECT_EQ(opened, static_cast<int>(all["events"].size()) - 2);
  EXPECT_EQ(StateOf(some, "events"), "limited");
}

TEST(DoctorCli, SelfTestWithoutAPmuChecksTheSoftwarePartAndExitsZero) {
  const Ran r = Td("doctor --self-test --quick");
  if (r.out.find("no hardware counters here") == std::string::npos) {
    GTEST_SKIP() << "this machine has a PMU: the self-test judges signatures there";
  }
  EXPECT_EQ(r.status, 0) << r.out;
  int passes = 0;
  for (size_t at = r.out.find("\npass "); at != std::string::npos; at = r.out.find("\npass ", at + 1)) ++passes;
  EXPECT_EQ(passes, 6) << r.out;
  EXPECT_NE(r.out.find("self-test: every judged check passed"), std::string::npos);
}

TEST(DoctorCli, ChecksMarkdownIsWhatTheDocsHold) {
  const Ran r = Td("doctor --checks-markdown");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, ChecksMarkdown());
}

}  // namespace
}  // namespace td::doctor

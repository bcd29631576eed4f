// td doctor: its checks from facts alone, the self-test's judging from
// recordings made here, the docs section made from the checks, and the
// built tool against a preloaded fake PMU (tests/doctor/fake_pmu.c).
#include <errno.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/support/build_paths.h"
#include "tools/td/doctor/checks.h"
#include "tools/td/doctor/self_test.h"

namespace td::doctor {
namespace {

Facts KvmGuestWithoutPmu() {
  Facts f;
  f.machine.cpu_vendor = "GenuineIntel";
  f.machine.cpu_model_name = "Intel(R) Xeon(R) Processor";
  f.machine.cpu_family = 6;
  f.machine.cpu_model = 207;
  f.machine.architecture = "x86_64";
  f.uarch = "spr";
  f.tma_version = "4.8 (perf 6.12)";
  f.hypervisor = true;
  f.hypervisor_signature = "KVMKVMKVM";
  f.perfmon_version = 0;
  f.cpuid_general_counters = 0;
  f.pmus = {{"msr", 10, "other"}, {"power", 9, "other"}, {"software", 1, "software"}};
  f.paranoid = 2;
  f.privileged = true;
  f.seccomp = 0;
  f.nmi_watchdog = 0;
  f.hardware_errno = ENOENT;
  f.events = {{"CPU_CLK_UNHALTED.THREAD", ENOENT}, {"INST_RETIRED.ANY", ENOENT}};
  return f;
}

Facts BareMetalWithPmu() {
  Facts f;
  f.machine.cpu_vendor = "GenuineIntel";
  f.machine.architecture = "x86_64";
  f.uarch = "skl";
  f.pmus = {{"cpu", 4, "core"}, {"uncore_imc_0", 12, "memory"}, {"software", 1, "software"}};
  f.paranoid = 2;
  f.seccomp = 0;
  f.rdpmc = 1;
  f.nmi_watchdog = 0;
  f.perfmon_version = 4;
  f.cpuid_general_counters = 4;
  f.cpuid_fixed_counters = 3;
  f.probed_general_counters = 4;
  f.model_general_counters = 4;
  f.events = {{"CPU_CLK_UNHALTED.THREAD", 0}, {"UOPS_ISSUED.ANY", 0}};
  return f;
}

Finding Of(const std::vector<Finding>& findings, const std::string& check) {
  for (const Finding& f : findings) {
    if (f.check == check) return f;
  }
  ADD_FAILURE() << "no finding " << check;
  return {};
}

std::string Joined(const Finding& f) {
  std::string all = f.summary;
  for (const auto& d : f.details) all += "\n" + d;
  for (const auto& l : f.lift) all += "\nlift: " + l;
  return all;
}

TEST(DoctorChecks, AKvmGuestWithoutAVirtualPmuIsToldWhyAndHowToGetOne) {
  const auto findings = Examine(KvmGuestWithoutPmu());
  const Finding core = Of(findings, "core_pmu");
  EXPECT_EQ(core.state, State::kBlocked);
  EXPECT_NE(core.summary.find("ENOENT"), std::string::npos);
  EXPECT_NE(Joined(core).find("CPUID leaf 0xA reports no architectural performance monitoring"), std::string::npos);
  EXPECT_NE(Joined(core).find("KVM gives this guest no virtual PMU"), std::string::npos);
  EXPECT_NE(Joined(core).find("-cpu host,pmu=on"), std::string::npos);
  EXPECT_EQ(Of(findings, "counters").state, State::kBlocked);
  EXPECT_EQ(Of(findings, "events").state, State::kBlocked);
  EXPECT_EQ(Of(findings, "perf_events").state, State::kOk);
  EXPECT_EQ(Of(findings, "hypervisor").summary.find("KVM") != std::string::npos, true);
  EXPECT_EQ(Of(findings, "cpu").state, State::kOk);
  EXPECT_NE(Of(findings, "cpu").summary.find("key spr, TMA 4.8 (perf 6.12)"), std::string::npos);
}

TEST(DoctorChecks, ParanoidThreeBlocksUnprivilegedUsersWithTheSysctlThatLiftsIt) {
  Facts f = KvmGuestWithoutPmu();
  f.privileged = false;
  f.paranoid = 3;
  f.software_errno = EACCES;
  f.hardware_errno = EACCES;
  const auto findings = Examine(f);
  const Finding perf = Of(findings, "perf_events");
  EXPECT_EQ(perf.state, State::kBlocked);
  EXPECT_NE(perf.summary.find("kernel.perf_event_paranoid=3 forbids it"), std::string::npos);
  EXPECT_NE(Joined(perf).find("sudo sysctl -w kernel.perf_event_paranoid=2"), std::string::npos);
  EXPECT_EQ(Of(findings, "paranoid").state, State::kBlocked);
  EXPECT_EQ(Of(findings, "core_pmu").state, State::kBlocked);
}

TEST(DoctorChecks, ParanoidLevelsSayWhatTheyAllow) {
  Facts f = BareMetalWithPmu();
  const std::pair<int, const char*> cases[] = {{-1, "everything"},
                                               {0, "CPU-wide counting"},
                                               {1, "with kernel time; no CPU-wide"},
                                               {2, "user space only"},
                                               {4, "nothing for unprivileged users"}};
  for (const auto& [level, words] : cases) {
    f.paranoid = level;
    EXPECT_NE(Of(Examine(f), "paranoid").summary.find(words), std::string::npos) << level;
  }
}

TEST(DoctorChecks, ASeccompFilterThatRefusesPerfEventOpenIsNamed) {
  Facts f = BareMetalWithPmu();
  f.paranoid = 1;
  f.seccomp = 2;
  f.seccomp_filters = 1;
  f.software_errno = EPERM;
  f.hardware_errno = EPERM;
  const auto findings = Examine(f);
  EXPECT_EQ(Of(findings, "seccomp").state, State::kBlocked);
  EXPECT_NE(Joined(Of(findings, "seccomp")).find("--cap-add PERFMON"), std::string::npos);
  EXPECT_NE(Of(findings, "perf_events").summary.find("a seccomp filter"), std::string::npos);
  f.software_errno = 0;
  f.hardware_errno = 0;
  EXPECT_EQ(Of(Examine(f), "seccomp").state, State::kOk);
}

TEST(DoctorChecks, FewerCountersThanTheDefinitionsSayAreALimit) {
  Facts f = BareMetalWithPmu();
  f.hypervisor = true;
  f.hypervisor_signature = "KVMKVMKVM";
  for (int probed : {2, 4, 6}) {
    f.probed_general_counters = probed;
    f.model_general_counters = 6;
    const Finding c = Of(Examine(f), "counters");
    EXPECT_EQ(c.state, probed < 6 ? State::kLimited : State::kOk) << probed;
    EXPECT_NE(c.summary.find(std::to_string(probed) + " general-purpose counters"), std::string::npos);
    EXPECT_NE(c.summary.find("definitions say 6"), std::string::npos);
  }
}

TEST(DoctorChecks, TheNmiWatchdogCostsACounterOnlyWhereThereAreCounters) {
  Facts f = BareMetalWithPmu();
  f.nmi_watchdog = 1;
  EXPECT_EQ(Of(Examine(f), "nmi_watchdog").state, State::kLimited);
  EXPECT_NE(Joined(Of(Examine(f), "nmi_watchdog")).find("kernel.nmi_watchdog=0"), std::string::npos);
  f.hardware_errno = ENOENT;
  EXPECT_EQ(Of(Examine(f), "nmi_watchdog").state, State::kInfo);
  f.nmi_watchdog = 0;
  EXPECT_EQ(Of(Examine(f), "nmi_watchdog").state, State::kOk);
}

TEST(DoctorChecks, RdpmcOffMeansSystemCallReads) {
  Facts f = BareMetalWithPmu();
  f.rdpmc = 0;
  const Finding r = Of(Examine(f), "rdpmc");
  EXPECT_EQ(r.state, State::kLimited);
  EXPECT_NE(Joined(r).find("echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc"), std::string::npos);
  f.rdpmc = 2;
  EXPECT_EQ(Of(Examine(f), "rdpmc").state, State::kOk);
}

TEST(DoctorChecks, EventsThatDoNotOpenAreListedByErrno) {
  Facts f = BareMetalWithPmu();
  f.events = {{"A", 0}, {"B", ENOENT}, {"C", ENOENT}, {"D", EOPNOTSUPP}, {"E", EINVAL}, {"F", EACCES}};
  const Finding e = Of(Examine(f), "events");
  EXPECT_EQ(e.state, State::kLimited);
  EXPECT_NE(e.summary.find("1 of 6 events of skl's Level 1-3 tree open"), std::string::npos);
  const std::string all = Joined(e);
  EXPECT_NE(all.find("ENOENT (2): B, C"), std::string::npos);
  EXPECT_NE(all.find("EOPNOTSUPP (1): D"), std::string::npos);
  EXPECT_NE(all.find("EINVAL (1): E"), std::string::npos);
  EXPECT_NE(all.find("EACCES (1): F"), std::string::npos);
  f.events = {{"A", 0}};
  EXPECT_EQ(Of(Examine(f), "events").state, State::kOk);
}

TEST(DoctorChecks, MemoryControllersNeedCpuWidePermission) {
  Facts f = BareMetalWithPmu();
  f.paranoid = 2;
  EXPECT_EQ(Of(Examine(f), "memory").state, State::kLimited);
  EXPECT_NE(Of(Examine(f), "memory").summary.find("uncore_imc_0"), std::string::npos);
  f.paranoid = 0;
  EXPECT_EQ(Of(Examine(f), "memory").state, State::kOk);
  f.paranoid = 2;
  f.privileged = true;
  EXPECT_EQ(Of(Examine(f), "memory").state, State::kOk);
  f.pmus = {{"cpu", 4, "core"}};
  EXPECT_EQ(Of(Examine(f), "memory").state, State::kLimited);
  EXPECT_NE(Of(Examine(f), "memory").summary.find("estimated"), std::string::npos);
  f.hardware_errno = ENOENT;
  EXPECT_EQ(Of(Examine(f), "memory").state, State::kBlocked);
}

TEST(DoctorChecks, HybridPartsNameBothCoreTypes) {
  Facts f = BareMetalWithPmu();
  f.pmus = {{"cpu_atom", 10, "core"}, {"cpu_core", 4, "core"}};
  EXPECT_NE(Of(Examine(f), "hybrid").summary.find("cpu_atom (type 10) and cpu_core (type 4)"), std::string::npos);
}

TEST(DoctorChecks, PmusAreSortedIntoKinds) {
  EXPECT_EQ(KindOfPmu("cpu"), "core");
  EXPECT_EQ(KindOfPmu("cpu_core"), "core");
  EXPECT_EQ(KindOfPmu("armv8_pmuv3_0"), "core");
  EXPECT_EQ(KindOfPmu("uncore_imc_3"), "memory");
  EXPECT_EQ(KindOfPmu("amd_df"), "memory");
  EXPECT_EQ(KindOfPmu("software"), "software");
  EXPECT_EQ(KindOfPmu("msr"), "other");
}

TEST(DoctorChecks, StatusTextGivesSeccompAndCapabilities) {
  Facts f;
  ParseStatus("Name:\tx\nCapEff:\t0000004000000000\nSeccomp:\t2\nSeccomp_filters:\t3\n", &f);
  EXPECT_EQ(f.seccomp, 2);
  EXPECT_EQ(f.seccomp_filters, 3);
  EXPECT_TRUE(f.privileged);  // bit 38, CAP_PERFMON
  Facts g;
  ParseStatus("CapEff:\t0000000000000000\nSeccomp:\t0\n", &g);
  EXPECT_FALSE(g.privileged);
  EXPECT_EQ(g.seccomp, 0);
}

TEST(DoctorChecks, UsageMdListsEveryCheckAsTheDoctorWritesIt) {
  std::ifstream in(TD_SOURCE_DIR + "/docs/usage.md");
  std::stringstream s;
  s << in.rdbuf();
  const std::string usage = s.str();
  const std::string begin = "<!-- td doctor --checks-markdown: begin -->\n";
  const std::string end = "<!-- td doctor --checks-markdown: end -->";
  const size_t b = usage.find(begin), e = usage.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(usage.substr(b + begin.size(), e - b - begin.size()), ChecksMarkdown())
      << "regenerate: td doctor --checks-markdown";
  for (const Check& c : Checks()) {
    if (*c.symptom != '\0') EXPECT_NE(ChecksMarkdown().find(std::string("`") + c.id + "`"), std::string::npos);
  }
}

}  // namespace
}  // namespace td::doctor

// Encodings for PMUs this machine does not have, checked against the values
// the reference records (libpfm4 4.13 and Intel/AMD documentation).
#include "runtime/counters/event_encoder.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "gtest/gtest.h"
#include "tests/unit/embedded_library.h"

namespace td {
namespace {

uint64_t Config(const std::string& event, const std::string& pmu) {
  auto e = EncodeEvent(event, pmu, EmbeddedLibrary());
  EXPECT_TRUE(e.ok()) << event << " on " << pmu << ": " << e.status();
  return e.ok() ? e->config : ~uint64_t{0};
}

TEST(EventEncoder, ReferenceEncodingsThroughLibpfm) {
  EXPECT_EQ(Config("BR_INST_RETIRED:ALL_BRANCHES", "skl"), 0xc4u);
  EXPECT_EQ(Config("MACHINE_CLEARS:0x1:c=1:e", "ivb"), 0x10401c3u);
  EXPECT_EQ(Config("FP_ARITH_INST_RETIRED:256B_PACKED_SINGLE:512B_PACKED_DOUBLE", "skx"), 0x60c7u);
  EXPECT_EQ(Config("TOPDOWN:SLOTS_P", "icl"), 0x01a4u);
  EXPECT_EQ(Config("DISPATCH_STALLS_1:FE_NO_OPS:c=6", "zen4"), 0x1060001a0u);
  EXPECT_EQ(Config("CYCLES_NO_RETIRE:NOT_COMPLETE_MISSING_LOAD", "zen4"), 0xa2d6u);
  EXPECT_EQ(Config("UOPS_ISSUED.ANY", "skx"), 0x10eu) << "'.' works like ':'";
  EXPECT_EQ(Config("INT_MISC.RECOVERY_CYCLES:c1:e", "icx"), 0x104010du) << "td modifiers";
  auto e = EncodeEvent("RETIRED_OPS", "zen4", EmbeddedLibrary());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->pmu, "amd64_fam19h_zen4") << "td uarch keys map to libpfm4 PMU names";
  EXPECT_EQ(e->source, "libpfm4");
  EXPECT_EQ(e->type, 4u);  // PERF_TYPE_RAW
}

TEST(EventEncoder, TdTableCoversWhatLibpfm413GetsWrongOrLacks) {
  // libpfm4 4.13 encodes TOPDOWN:BACKEND_BOUND_SLOTS on icl as 0x0200 (event code 0).
  auto raw = EncodeWithLibpfm("TOPDOWN:BACKEND_BOUND_SLOTS", "icl");
  if (raw.ok()) {
    EXPECT_NE(raw->config, 0x2a4u) << "libpfm4 fixed this; td's override can go";
  }
  auto fixed = EncodeEvent("TOPDOWN.BACKEND_BOUND_SLOTS", "icl", EmbeddedLibrary());
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->config, 0x2a4u);
  EXPECT_EQ(fixed->source, "td table");
  // PERF_METRICS pseudo events do not exist in libpfm4 4.13.
  EXPECT_EQ(Config("topdown-retiring", "spr"), 0x8000u);
  EXPECT_EQ(Config("topdown-be-bound", "icl"), 0x8300u);
  EXPECT_EQ(Config("slots", "icx"), 0x400u);
}

// One name, other codes across generations: td's table must not carry
// Skylake's encoding to the older cores (the CYCLE_ACTIVITY stall counters).
TEST(EventEncoder, CycleActivityStallsAreEncodedPerGeneration) {
  EXPECT_EQ(Config("CYCLE_ACTIVITY.STALLS_MEM_ANY", "skl"), 0x140014a3u);      // 0xA3/0x14 c20
  EXPECT_EQ(Config("CYCLE_ACTIVITY.STALLS_LDM_PENDING", "hsw"), 0x60006a3u);   // 0xA3/0x06 c6
  EXPECT_EQ(Config("CYCLE_ACTIVITY.STALLS_LDM_PENDING", "ivb"), 0x60006a3u);
  EXPECT_EQ(Config("CYCLE_ACTIVITY.STALLS_L1D_PENDING", "snb"), 0x60006a3u);   // SNB: 0xA3/0x06 c6
  EXPECT_EQ(Config("CYCLE_ACTIVITY.STALLS_L1D_PENDING", "hsw"), 0xc000ca3u);   // IVB on: 0xA3/0x0C c12
  // Broadwell spells 0xA3/0x06 c6 STALLS_MEM_ANY: its depth file (from perf's
  // Broadwell event file) replaces the Skylake encoding for bdw only.
  EXPECT_EQ(Config("CYCLE_ACTIVITY.STALLS_MEM_ANY", "bdw"), 0x60006a3u);
}

TEST(EventEncoder, TdDefinitionEncodingsAgreeWithLibpfm) {
  // Every event of td's tables that libpfm4 also knows (by the same name) must
  // encode the same, except the documented libpfm4 4.13 errors.
  int compared = 0;
  for (const char* uarch : {"skl", "skx", "icl", "icx", "spr", "zen4"}) {
    auto set = EmbeddedLibrary().ForUarch(uarch);
    ASSERT_TRUE(set.ok());
    for (const EventDefinition& event : set->events) {
      // Deliberate differences: TOPDOWN.* (libpfm4 4.13 mis-encodes them) and the
      // fixed-counter events, which td programs with their general-purpose
      // encodings because the kernel only knows those (see the files' notes).
      if (event.config.empty() || event.name.rfind("TOPDOWN.", 0) == 0 ||
          event.name == "INST_RETIRED.ANY" || event.name == "CPU_CLK_UNHALTED.THREAD") {
        continue;
      }
      auto theirs = EncodeWithLibpfm(event.name, set->libpfm_pmu);
      if (!theirs.ok()) continue;  // a name libpfm4 spells differently
      uint64_t ours = 0;
      ASSERT_TRUE(absl::SimpleHexAtoi(event.config, &ours)) << event.config;
      // libpfm4 may set extra bits (usr/os are not in config on x86): compare the event fields.
      EXPECT_EQ(ours, theirs->config) << uarch << " " << event.name << " (libpfm4: " << theirs->name << ")";
      ++compared;
    }
  }
  EXPECT_GE(compared, 15) << "too few events compared to mean anything";
}

TEST(EventEncoder, UnknownEventNamesTheClosest) {
  auto e = EncodeEvent("UOPS_ISUED:ANY", "skl", EmbeddedLibrary());
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("unknown event \"UOPS_ISUED:ANY\" for PMU skl"), std::string::npos);
  EXPECT_NE(e.status().message().find("closest: UOPS_ISSUED"), std::string::npos) << e.status();
  auto pmu = ListEvents("no_such_pmu", EmbeddedLibrary());
  ASSERT_FALSE(pmu.ok());
  EXPECT_NE(pmu.status().message().find("unknown PMU \"no_such_pmu\""), std::string::npos);
  auto events = ListEvents("skl", EmbeddedLibrary());
  ASSERT_TRUE(events.ok());
  EXPECT_NE(std::find(events->begin(), events->end(), "UOPS_ISSUED.ANY"), events->end());
}

TEST(EventEncoder, OneEncodingWhateverTheSpelling) {
  // libpfm4 4.13 alone gives 0x200 for the ':' spelling; td's table must win
  // for every spelling, not only the one it is written in.
  for (const std::string spelling : {"TOPDOWN.BACKEND_BOUND_SLOTS", "TOPDOWN:BACKEND_BOUND_SLOTS",
                                     "topdown.backend_bound_slots", "topdown:backend_bound_slots",
                                     "icl::TOPDOWN:BACKEND_BOUND_SLOTS"}) {
    EXPECT_EQ(Config(spelling, "icl"), 0x2a4u) << spelling;
  }
  EXPECT_EQ(Config("TOPDOWN:BACKEND_BOUND_SLOTS", "tgl"), 0x2a4u) << "uarch key of the same PMU";
  // Modifiers the table does not list go into the event-select bits of its encoding.
  EXPECT_EQ(Config("TOPDOWN:BACKEND_BOUND_SLOTS:c1", "icl"), 0x10002a4u);
  EXPECT_EQ(Config("TOPDOWN.BACKEND_BOUND_SLOTS:c=2:e:i", "icl"), 0x28402a4u);
  EXPECT_EQ(Config("uops_issued:any", "skl"), Config("UOPS_ISSUED.ANY", "skl"));
}

TEST(EventEncoder, PerfGenericNamesAreGenericOnEveryPmu) {
  for (const std::string pmu : {"", "icl", "zen4", "skl"}) {
    auto e = EncodeEvent("cycles", pmu, EmbeddedLibrary());
    ASSERT_TRUE(e.ok()) << pmu << ": " << e.status();
    EXPECT_EQ(e->type, 0u) << pmu << ": PERF_TYPE_HARDWARE";
    EXPECT_EQ(e->config, 0u) << pmu << ": PERF_COUNT_HW_CPU_CYCLES";
    EXPECT_EQ(e->source, "perf generic");
  }
  auto clock = EncodeEvent("TASK-CLOCK", "", EmbeddedLibrary());
  ASSERT_TRUE(clock.ok()) << clock.status();
  EXPECT_EQ(clock->type, 1u) << "PERF_TYPE_SOFTWARE";
  EXPECT_EQ(clock->config, 1u) << "PERF_COUNT_SW_TASK_CLOCK";
}

TEST(EventEncoder, UnknownPmuNamesTheClosest) {
  auto e = EncodeEvent("cycles", "icx_", EmbeddedLibrary());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(e.status().message().find("unknown PMU \"icx_\"; closest: icx, icl"), std::string::npos) << e.status();
  EXPECT_NE(e.status().message().find("`td events list --pmus`"), std::string::npos) << e.status();
  auto events = ListEvents("nosuchpmu", EmbeddedLibrary());
  ASSERT_FALSE(events.ok());
  EXPECT_NE(events.status().message().find("unknown PMU \"nosuchpmu\""), std::string::npos);
}

TEST(EventEncoder, ListedNamesAreTheNamesThatEncode) {
  auto names = ListEvents("icl", EmbeddedLibrary());
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_GT(names->size(), 200u);
  for (const char* wanted : {"TOPDOWN.BACKEND_BOUND_SLOTS", "PERF_METRICS.BACKEND_BOUND", "cycles"}) {
    EXPECT_NE(std::find(names->begin(), names->end(), wanted), names->end()) << wanted;
  }
  for (const std::string& name : *names) {
    auto e = EncodeEvent(name, "icl", EmbeddedLibrary());
    EXPECT_TRUE(e.ok()) << name << ": " << e.status();
  }
  // The host's list and the host's encodings come from the same PMU.
  const std::string host = HostPmu(EmbeddedLibrary());
  ASSERT_FALSE(host.empty());
  auto here = ListEvents("", EmbeddedLibrary());
  ASSERT_TRUE(here.ok()) << here.status();
  ASSERT_FALSE(here->empty());
  for (const std::string& name : *here) {
    auto e = EncodeEvent(name, "", EmbeddedLibrary());
    ASSERT_TRUE(e.ok()) << name << ": " << e.status();
    EXPECT_TRUE(e->pmu == host || e->source == "perf generic") << name << " encoded for " << e->pmu;
  }
}

TEST(EventEncoder, PmuListingMarksTheHostAndTdKeys) {
  const std::vector<PmuListing> pmus = ListPmus(EmbeddedLibrary());
  const std::string host = HostPmu(EmbeddedLibrary());
  EXPECT_EQ(std::count_if(pmus.begin(), pmus.end(), [](const PmuListing& p) { return p.host; }), 1);
  auto icl = std::find_if(pmus.begin(), pmus.end(), [](const PmuListing& p) { return p.name == "icl"; });
  ASSERT_NE(icl, pmus.end());
  EXPECT_NE(std::find(icl->uarchs.begin(), icl->uarchs.end(), "tgl"), icl->uarchs.end());
  EXPECT_NE(std::find_if(pmus.begin(), pmus.end(), [&](const PmuListing& p) { return p.name == host; }), pmus.end());
}

}  // namespace
}  // namespace td

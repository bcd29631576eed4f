// Per-region Top-Down trees on constructed Skylake recordings shaped like the
// paper's case studies, through the JSON round trip a replayed file takes.
#include "runtime/analysis/run_analysis.h"

#include <algorithm>
#include <map>

#include "gtest/gtest.h"
#include "runtime/report/analysis_json.h"
#include "runtime/report/html_report.h"
#include "runtime/recorded/run_file.h"
#include "runtime/report/text_report.h"

namespace td {
namespace {

const std::vector<std::string> kSklEvents = {
    "CPU_CLK_UNHALTED.THREAD",       "IDQ_UOPS_NOT_DELIVERED.CORE",   "UOPS_ISSUED.ANY",
    "UOPS_RETIRED.RETIRE_SLOTS",     "INT_MISC.RECOVERY_CYCLES",      "INST_RETIRED.ANY",
    "CYCLE_ACTIVITY.STALLS_MEM_ANY", "CYCLE_ACTIVITY.STALLS_TOTAL",   "EXE_ACTIVITY.BOUND_ON_STORES",
    "EXE_ACTIVITY.1_PORTS_UTIL",     "EXE_ACTIVITY.2_PORTS_UTIL",     "CYCLE_ACTIVITY.STALLS_L1D_MISS",
    "CYCLE_ACTIVITY.STALLS_L2_MISS", "CYCLE_ACTIVITY.STALLS_L3_MISS"};

using Counts = std::map<std::string, double>;

// Counts for Level 1 shares fe/bad/ret over `cycles`, with the memory-side
// events given directly.
Counts SklCounts(double cycles, double fe, double bad, double ret, double instructions,
                 Counts memory) {
  const double slots = 4 * cycles;
  const double recovery = cycles / 100;
  Counts c = {{"CPU_CLK_UNHALTED.THREAD", cycles},
              {"IDQ_UOPS_NOT_DELIVERED.CORE", fe * slots},
              {"UOPS_RETIRED.RETIRE_SLOTS", ret * slots},
              {"INT_MISC.RECOVERY_CYCLES", recovery},
              {"INST_RETIRED.ANY", instructions}};
  c["UOPS_ISSUED.ANY"] = bad * slots + c["UOPS_RETIRED.RETIRE_SLOTS"] - 4 * recovery;
  for (const auto& [k, v] : memory) c[k] = v;
  return c;
}

// Hardware events by name, as a recording lists them.
std::vector<EventInfo> HardwareEvents(const std::vector<std::string>& names, uint32_t type = 4,
                                      const std::string& core_type = "") {
  std::vector<EventInfo> events;
  for (const auto& name : names) {
    EventInfo e;
    e.name = name;
    e.unit = name == "task-clock" ? "ns" : "count";  // as the software event records it
    e.perf_type = type;
    e.hardware = true;
    e.core_type = core_type;
    events.push_back(e);
  }
  return events;
}

RunData SklRecording(const std::vector<std::string>& event_names = kSklEvents) {
  RunData data;
  data.td_version = "0.1.0";
  data.program = {"matmul", 1, {"./matmul"}, 0, 1};
  data.machine.cpu_vendor = "GenuineIntel";
  data.machine.cpu_family = 6;
  data.machine.cpu_model = 94;  // Skylake client
  data.machine.cpu_stepping = 3;
  data.backend = "perf_event";
  data.availability.software_counters = true;
  data.availability.hardware_counters = true;
  data.layout.AddGroup(HardwareEvents(event_names));
  return data;
}

void AddRegion(RunData* data, const std::string& name, const std::vector<Counts>& per_thread,
               double running_share = 1.0) {
  Region region{name, name, -1, {}, {}};
  for (size_t t = 0; t < per_thread.size(); ++t) {
    if (data->threads.size() <= t) data->threads.push_back({uint32_t(t), 100 + int64_t(t), false, true, ""});
    RegionOnThread part{uint32_t(t), 1, 0, 0, 0, 1'000'000, 1'000'000, {}, {}};
    for (const EventInfo& event : data->layout.events) {
      const std::string& name = event.name;
      const double raw = per_thread[t].count(name) ? per_thread[t].at(name) * running_share : 0;
      part.events.push_back({static_cast<uint64_t>(raw), static_cast<uint64_t>(raw)});
    }
    part.groups = {{1'000'000, static_cast<uint64_t>(1'000'000 * running_share)}};
    region.threads.push_back(part);
  }
  data->regions.push_back(region);
}

const Counts kMultiply1 = SklCounts(1e9, 0.05, 0.02, 0.15, 5e8,
    {{"CYCLE_ACTIVITY.STALLS_MEM_ANY", 7e8}, {"CYCLE_ACTIVITY.STALLS_TOTAL", 8e8},
     {"EXE_ACTIVITY.BOUND_ON_STORES", 1e7}, {"EXE_ACTIVITY.1_PORTS_UTIL", 5e7},
     {"EXE_ACTIVITY.2_PORTS_UTIL", 5e7}, {"CYCLE_ACTIVITY.STALLS_L1D_MISS", 6.5e8},
     {"CYCLE_ACTIVITY.STALLS_L2_MISS", 6e8}, {"CYCLE_ACTIVITY.STALLS_L3_MISS", 4e8}});
const Counts kMultiply2 = SklCounts(4e8, 0.05, 0.02, 0.45, 5e8,
    {{"CYCLE_ACTIVITY.STALLS_MEM_ANY", 5e7}, {"CYCLE_ACTIVITY.STALLS_TOTAL", 2e8},
     {"EXE_ACTIVITY.BOUND_ON_STORES", 5e6}, {"EXE_ACTIVITY.1_PORTS_UTIL", 1.5e8},
     {"EXE_ACTIVITY.2_PORTS_UTIL", 1e8}, {"CYCLE_ACTIVITY.STALLS_L1D_MISS", 3e7},
     {"CYCLE_ACTIVITY.STALLS_L2_MISS", 1e7}, {"CYCLE_ACTIVITY.STALLS_L3_MISS", 5e6}});
// Table 5: the same loop with counters on one cache line, then padded.
const Counts kSharedCounters = SklCounts(1e9, 0.03, 0.01, 0.10, 4e8,
    {{"CYCLE_ACTIVITY.STALLS_MEM_ANY", 3e8}, {"CYCLE_ACTIVITY.STALLS_TOTAL", 8.5e8},
     {"EXE_ACTIVITY.BOUND_ON_STORES", 5e8}, {"EXE_ACTIVITY.1_PORTS_UTIL", 2e7},
     {"EXE_ACTIVITY.2_PORTS_UTIL", 2e7}});
const Counts kPaddedCounters = SklCounts(2e8, 0.05, 0.01, 0.60, 4e8,
    {{"CYCLE_ACTIVITY.STALLS_MEM_ANY", 1e7}, {"CYCLE_ACTIVITY.STALLS_TOTAL", 5e7},
     {"EXE_ACTIVITY.BOUND_ON_STORES", 2e6}, {"EXE_ACTIVITY.1_PORTS_UTIL", 5e7},
     {"EXE_ACTIVITY.2_PORTS_UTIL", 5e7}});

// A recording goes through the JSON file format, as a replayed run does.
RunAnalysis Replay(const RunData& data, RunData* replayed, std::optional<double> peak = std::nullopt) {
  auto back = RunFromJson(RunToJson(data));
  EXPECT_TRUE(back.ok()) << back.status();
  *replayed = *back;
  auto library = DefinitionLibrary::Load();
  EXPECT_TRUE(library.ok());
  return AnalyzeRun(*replayed, *library, "", peak);
}

std::vector<std::string> CriticalPath(const TopDownResult& r) {
  std::vector<std::string> path;
  for (const auto& n : r.tree) {
    if (n.critical) path.push_back(n.name);
  }
  return path;
}

TEST(RegionAnalysis, MatmulMovesFromMemoryBoundToCoreBound) {
  RunData data = SklRecording();
  AddRegion(&data, "multiply1", {kMultiply1});
  AddRegion(&data, "multiply2", {kMultiply2});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  ASSERT_TRUE(analysis.HasTrees()) << analysis.unavailable;
  EXPECT_EQ(analysis.uarch, "skl") << "identified from the recorded CPU";
  const TopDownResult& m1 = analysis.regions[0];
  const TopDownResult& m2 = analysis.regions[1];
  EXPECT_NEAR(m1.Find("Backend_Bound")->value.value(), 0.78, 1e-6);
  EXPECT_NEAR(m1.Find("Retiring")->value.value(), 0.15, 1e-6);
  EXPECT_NEAR(m1.Find("Backend_Bound.Memory_Bound")->value.value(), 0.78 * 7.1e8 / 8.675e8, 1e-6);
  EXPECT_EQ(CriticalPath(m1),
            (std::vector<std::string>{"Backend_Bound", "Backend_Bound.Memory_Bound",
                                      "Backend_Bound.Memory_Bound.L3_Miss_Bound"}));  // TMA 5.01 name
  EXPECT_EQ(CriticalPath(m2), (std::vector<std::string>{"Backend_Bound", "Backend_Bound.Core_Bound"}));
  EXPECT_NEAR(m1.MetricValue("IPC").value(), 0.5, 1e-9);
  EXPECT_NEAR(m2.MetricValue("IPC").value(), 1.25, 1e-9);
  // Hierarchical safety: Store_Bound is below its threshold, and Divider has
  // no events, so it is not measured rather than 0.
  EXPECT_FALSE(m1.Find("Backend_Bound.Memory_Bound.Store_Bound")->flagged);
  EXPECT_FALSE(m1.Find("Backend_Bound.Core_Bound.Divider")->value.has_value());
  const std::string text = FormatTextReport(replayed, &analysis);
  EXPECT_NE(text.find("Top-Down (skl)"), std::string::npos) << text;
  EXPECT_NE(text.find("▶ Backend_Bound 78.0% › Memory_Bound"), std::string::npos) << text;
  EXPECT_NE(text.find("▶ Backend_Bound 48.0% › Core_Bound"), std::string::npos) << text;
  EXPECT_NE(text.find("not measured: Fetch_Latency"), std::string::npos) << text;
}

TEST(RegionAnalysis, ExclusiveTreeOfAParentSubtractsItsChildren) {
  RunData data = SklRecording();
  AddRegion(&data, "matmul", {kMultiply1});      // inclusive = exclusive here…
  AddRegion(&data, "multiply2", {kMultiply2});
  // …then make matmul the parent of multiply2 with multiply2 subtracted from its exclusive counts.
  data.regions[1].path = "matmul/multiply2";
  data.regions[1].parent = 0;
  data.regions[0].children = {1};
  auto& parent = data.regions[0].threads[0];
  const auto& child = data.regions[1].threads[0];
  for (size_t e = 0; e < parent.events.size(); ++e) {
    parent.events[e].inclusive += child.events[e].inclusive;  // exclusive stays multiply1's
  }
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  ASSERT_EQ(analysis.exclusive.size(), 2u);
  EXPECT_TRUE(analysis.exclusive[1].tree.empty()) << "a leaf has no separate exclusive tree";
  const TopDownResult& own = analysis.exclusive[0];
  EXPECT_NEAR(own.Find("Backend_Bound")->value.value(), 0.78, 1e-6) << "multiply1's shape";
  const double inclusive_be = analysis.regions[0].Find("Backend_Bound")->value.value();
  EXPECT_NEAR(inclusive_be, (0.78 * 4e9 + 0.48 * 1.6e9) / 5.6e9, 1e-6) << "slot-weighted, not averaged";
  const std::string text = FormatTextReport(replayed, &analysis);
  EXPECT_NE(text.find("matmul (exclusive)"), std::string::npos) << text;
  const nlohmann::json j = RunAnalysisToJson(replayed, analysis);
  EXPECT_TRUE(j["regions"][1]["exclusive"].is_null());
  EXPECT_EQ(j["regions"][0]["exclusive"]["tree"][0]["name"], "Frontend_Bound");
}

TEST(RegionAnalysis, FalseSharingFlaggedOnlyOnTheSharedMultithreadedVersion) {
  RunData data = SklRecording();
  AddRegion(&data, "single_thread", {kPaddedCounters});
  AddRegion(&data, "adjacent_counters", {kSharedCounters, kSharedCounters, kSharedCounters, kSharedCounters});
  AddRegion(&data, "padded_counters", {kPaddedCounters, kPaddedCounters, kPaddedCounters, kPaddedCounters});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  ASSERT_TRUE(analysis.HasTrees());
  auto ids = [](const TopDownResult& r) {
    std::vector<std::string> v;
    for (const auto& d : r.diagnoses) v.push_back(d.id);
    return v;
  };
  EXPECT_TRUE(ids(analysis.regions[0]).empty());
  EXPECT_EQ(ids(analysis.regions[1]), std::vector<std::string>{"false_sharing"});
  EXPECT_TRUE(ids(analysis.regions[2]).empty());
  const Diagnosis& d = analysis.regions[1].diagnoses[0];
  EXPECT_EQ(d.evidence, "4 threads; Store_Bound 50.0% (threshold 20.0%)");
  // Counts are summed over threads, never percentages averaged.
  EXPECT_NEAR(analysis.regions[1].Find("Backend_Bound")->value.value(), 0.86, 1e-6);
  const std::string text = FormatTextReport(replayed, &analysis);
  EXPECT_NE(text.find("diagnosis: likely false sharing — 4 threads"), std::string::npos) << text;
  const size_t padded_row = text.find("padded_counters", text.find("Top-Down (skl)"));
  ASSERT_NE(padded_row, std::string::npos);
  EXPECT_EQ(text.find("diagnosis:", padded_row), std::string::npos) << text;
}

TEST(RegionAnalysis, SharingNodesFeedTheFalseSharingDiagnosis) {
  std::vector<std::string> events = kSklEvents;
  for (const char* e : {"task-clock", "MEM_LOAD_RETIRED.L1_MISS", "MEM_LOAD_RETIRED.FB_HIT",
                        "MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM", "MEM_LOAD_L3_HIT_RETIRED.XSNP_MISS",
                        "OFFCORE_RESPONSE.DEMAND_RFO.L3_HIT.SNOOP_HITM"}) {
    events.push_back(e);
  }
  RunData data = SklRecording(events);
  Counts shared = kSharedCounters;
  shared["task-clock"] = 0.5e9;  // 1e9 cycles in 0.5 s: 2 GHz
  shared["MEM_LOAD_RETIRED.L1_MISS"] = 2e6;
  shared["MEM_LOAD_RETIRED.FB_HIT"] = 0;
  shared["MEM_LOAD_L3_HIT_RETIRED.XSNP_HITM"] = 1e6;
  shared["MEM_LOAD_L3_HIT_RETIRED.XSNP_MISS"] = 0;
  shared["OFFCORE_RESPONSE.DEMAND_RFO.L3_HIT.SNOOP_HITM"] = 3e6;
  AddRegion(&data, "adjacent_counters", {shared, shared});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  const TopDownResult& r = analysis.regions[0];
  // Contested: (22 - 3.5) ns × 2 GHz × 2e6 HITM loads × FB factor 1 / 2e9 cycles = 0.037.
  EXPECT_NEAR(r.Find("Backend_Bound.Memory_Bound.L3_Bound.Contested_Accesses")->value.value(),
              18.5 * 2 * 2e6 / 2e9, 1e-9);
  // False sharing: 22 ns × 2 GHz × 6e6 RFO HITMs / 2e9 cycles = 0.132, under flagged Store_Bound.
  const TreeNode* fs = r.Find("Backend_Bound.Memory_Bound.Store_Bound.False_Sharing");
  EXPECT_NEAR(fs->value.value(), 44 * 6e6 / 2e9, 1e-9);
  EXPECT_TRUE(fs->flagged);
  EXPECT_TRUE(fs->critical);
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].evidence,
            "2 threads; Store_Bound 50.0% (threshold 20.0%), False_Sharing 13.2% (threshold 5.0%)");
}

TEST(RegionAnalysis, SingleThreadStoresBoundIsNotCalledFalseSharing) {
  RunData data = SklRecording();
  AddRegion(&data, "stores", {kSharedCounters});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  ASSERT_EQ(analysis.regions[0].diagnoses.size(), 1u);
  EXPECT_EQ(analysis.regions[0].diagnoses[0].id, "stores_bound");
}

TEST(RegionAnalysis, MultiplexedCountsAreScaledAndNeverRunGroupsAreNotMeasured) {
  RunData data = SklRecording();
  AddRegion(&data, "half_time", {kMultiply1}, 0.5);  // raw counts halved, running = enabled / 2
  AddRegion(&data, "never_ran", {kMultiply1}, 0.0);
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  EXPECT_NEAR(ScaledRegionCount(replayed, replayed.regions[0], 0).value(), 1e9, 1);
  EXPECT_NEAR(analysis.regions[0].Find("Backend_Bound")->value.value(), 0.78, 1e-6);
  EXPECT_FALSE(ScaledRegionCount(replayed, replayed.regions[1], 0).has_value());
  EXPECT_FALSE(analysis.regions[1].AnyMeasured());
  EXPECT_EQ(analysis.regions[1].Find("Frontend_Bound")->why_not,
            "IDQ_UOPS_NOT_DELIVERED.CORE or KERNEL.TOPDOWN_FETCH_BUBBLES not measured");
}

// An event the selection left out because it did not open: the recording
// keeps its errno, and the nodes that needed it say so.
TEST(RegionAnalysis, NodesMissingAnEventThatDidNotOpenSayWhy) {
  std::vector<std::string> events = kSklEvents;
  events.erase(std::find(events.begin(), events.end(), "IDQ_UOPS_NOT_DELIVERED.CORE"));
  RunData data = SklRecording(events);
  data.availability.events_not_opened = {{"IDQ_UOPS_NOT_DELIVERED.CORE", "ENOENT"}};
  AddRegion(&data, "multiply1", {kMultiply1});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  EXPECT_EQ(replayed.availability.events_not_opened, data.availability.events_not_opened);
  const TopDownResult& tree = analysis.regions[0];
  EXPECT_EQ(tree.Find("Frontend_Bound")->why_not,
            "IDQ_UOPS_NOT_DELIVERED.CORE did not open here (ENOENT) or KERNEL.TOPDOWN_FETCH_BUBBLES not measured");
  EXPECT_NEAR(tree.Find("Retiring")->value.value(), 0.15, 1e-9) << "nodes whose events opened are computed";
  EXPECT_NEAR(tree.Find("Bad_Speculation")->value.value(), 0.02, 1e-9);
}

TEST(RegionAnalysis, BandwidthDiagnosisComparesWithTheCalibratedPeak) {
  // A triad-like region: 1e9 LLC misses (64 GB) in 1.001 s of wall time.
  const std::vector<std::string> events = {"CPU_CLK_UNHALTED.THREAD", "LONGEST_LAT_CACHE.MISS"};
  RunData data = SklRecording();
  data.layout = CounterLayout{};
  data.layout.AddGroup(HardwareEvents(events));
  Region region{"triad", "triad", -1, {}, {}};
  RegionOnThread part{0, 1, 0, 0, 0, 1'001'000'000, 1'001'000'000, {}, {}};
  part.events = {{3'000'000'000, 3'000'000'000}, {1'000'000'000, 1'000'000'000}};
  part.groups = {{1'000, 1'000}};
  region.threads.push_back(part);
  data.regions.push_back(region);
  data.threads.push_back({0, 1, false, true, ""});
  RunData replayed;
  const RunAnalysis fast_machine = Replay(data, &replayed, 200.0);
  EXPECT_TRUE(fast_machine.regions[0].diagnoses.empty()) << "64 GB/s is 32% of 200 GB/s";
  const RunAnalysis near_peak = Replay(data, &replayed, 80.0);
  ASSERT_EQ(near_peak.regions[0].diagnoses.size(), 1u);
  EXPECT_EQ(near_peak.regions[0].diagnoses[0].evidence,
            "63.9 GB/s of DRAM reads (at least) = 80% of this machine's measured triad peak 80.0 GB/s");
  const RunAnalysis unknown_peak = Replay(data, &replayed);
  EXPECT_TRUE(unknown_peak.regions[0].diagnoses.empty()) << "no peak, no claim";
  const std::string text = FormatTextReport(replayed, &near_peak);
  EXPECT_NE(text.find("rates: ≥ 63.94 GB/s DRAM reads (peak 80.0 GB/s from td calibrate)"),
            std::string::npos)
      << text;
}

TEST(RegionAnalysis, SocketMemoryTrafficFromControllerCountsOfTheReadingThread) {
  RunData data = SklRecording({"CPU_CLK_UNHALTED.THREAD"});
  data.availability.memory = "socket-wide memory-controller counts, uncore_imc_0 on 1 socket";
  std::vector<EventInfo> imc(2);
  for (int i = 0; i < 2; ++i) {
    imc[i].name = i == 0 ? "uncore_imc_0.read@cpu0" : "uncore_imc_0.write@cpu0";
    imc[i].unit = "count";
    imc[i].hardware = true;
    imc[i].cpu = 0;
    imc[i].bytes_per_count = 64;
    imc[i].traffic = i == 0 ? "read" : "write";
  }
  data.layout.AddGroup(imc);
  // Two threads ran the 1 s region; only thread 0 had the controllers open.
  Region region{"stream", "stream", -1, {}, {}};
  for (uint32_t t = 0; t < 2; ++t) {
    RegionOnThread part{t, 1, 0, 0, 0, 1'000'000'000, 1'000'000'000, {}, {}};
    part.events = {{2'000'000'000, 2'000'000'000},
                   {t == 0 ? 500'000'000u : 0u, t == 0 ? 500'000'000u : 0u},
                   {t == 0 ? 250'000'000u : 0u, t == 0 ? 250'000'000u : 0u}};
    part.groups = {{1'000, 1'000}, {t == 0 ? 1'000u : 0u, t == 0 ? 1'000u : 0u}};
    region.threads.push_back(part);
    data.threads.push_back({t, 100 + int64_t(t), false, true, ""});
  }
  data.regions.push_back(region);
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed, 60.0);
  EXPECT_EQ(replayed.layout.events[1].cpu, 0) << "cpu, bytes and traffic survive the JSON file";
  EXPECT_EQ(replayed.layout.events[2].traffic, "write");
  const TopDownResult& r = analysis.regions[0];
  EXPECT_DOUBLE_EQ(*r.MetricValue("Socket_Read_Bytes"), 32e9);
  EXPECT_DOUBLE_EQ(*r.MetricValue("Socket_Write_Bytes"), 16e9);
  EXPECT_DOUBLE_EQ(*r.MetricValue("Socket_Memory_Bytes"), 48e9);
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses[0].evidence,
            "48.0 GB/s of memory traffic on the socket (controller counts) = 80% of this machine's measured "
            "triad peak 60.0 GB/s");
  const std::string text = FormatTextReport(replayed, &analysis);
  EXPECT_NE(text.find("memory traffic: socket-wide memory-controller counts, uncore_imc_0 on 1 socket\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rates: 48.00 GB/s memory traffic on the socket (read 32.00, write 16.00) (peak 60.0 GB/s"),
            std::string::npos)
      << text;
}

// Alder Lake: one thread ran 75% of the region on P-cores and 25% on
// E-cores; each core type's groups counted only there. Each type gets its own
// tree from its own events; nothing is mixed.
TEST(RegionAnalysis, HybridRecordingGetsATreePerCoreType) {
  RunData data = SklRecording({});
  data.machine.cpu_model = 0x97;  // Alder Lake
  data.layout = CounterLayout{};
  auto group = [&](const std::string& core_type, uint32_t type, const std::vector<std::string>& names) {
    data.layout.AddGroup(HardwareEvents(names, type, core_type));
  };
  group("cpu_core", 4, {"TOPDOWN.SLOTS", "PERF_METRICS.RETIRING", "PERF_METRICS.BAD_SPECULATION",
                        "PERF_METRICS.FRONTEND_BOUND", "PERF_METRICS.BACKEND_BOUND", "INST_RETIRED.ANY"});
  group("cpu_atom", 10, {"CPU_CLK_UNHALTED.CORE", "TOPDOWN_FE_BOUND.ALL", "TOPDOWN_BE_BOUND.ALL",
                         "TOPDOWN_RETIRING.ALL", "INST_RETIRED.ANY"});
  Region region{"solve", "solve", -1, {}, {}};
  RegionOnThread part{0, 1, 0, 0, 0, 1'000'000'000, 1'000'000'000, {}, {}};
  for (const double v : {1e9, 4e8, 1e8, 2e8, 3e8, 9e8, 1e8, 1e8, 2.5e8, 1e8, 1e8}) {
    part.events.push_back({static_cast<uint64_t>(v), static_cast<uint64_t>(v)});
  }
  part.groups = {{1'000'000'000, 750'000'000}, {1'000'000'000, 250'000'000}};
  region.threads.push_back(part);
  data.regions.push_back(region);
  data.threads.push_back({0, 1, false, true, ""});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  EXPECT_EQ(replayed.layout.events[6].core_type, "cpu_atom") << "core_type survives the JSON file";
  ASSERT_TRUE(analysis.HasTrees()) << analysis.unavailable;
  EXPECT_EQ(analysis.core_type, "cpu_core");
  EXPECT_EQ(analysis.uarch, "adl_glc");
  const TopDownResult& p = analysis.regions[0];
  EXPECT_NEAR(*p.Find("Retiring")->value, 0.4, 1e-9);
  EXPECT_NEAR(*p.Find("Frontend_Bound")->value, 0.2, 1e-9);
  EXPECT_NEAR(*p.Find("Backend_Bound")->value, 0.3, 1e-9);
  EXPECT_DOUBLE_EQ(*p.MetricValue("Core_Type_Time_Share"), 0.75);
  ASSERT_EQ(analysis.other_core_types.size(), 1u);
  const RunAnalysis& atom = analysis.other_core_types[0];
  EXPECT_EQ(atom.core_type, "cpu_atom");
  EXPECT_EQ(atom.uarch, "adl_grt");
  const TopDownResult& e = atom.regions[0];
  EXPECT_NEAR(*e.Find("Frontend_Bound")->value, 0.2, 1e-9) << "1e8 of 5 x 1e8 slots";
  EXPECT_NEAR(*e.Find("Backend_Bound")->value, 0.5, 1e-9);
  EXPECT_NEAR(*e.Find("Retiring")->value, 0.2, 1e-9);
  EXPECT_NEAR(*e.Find("Bad_Speculation")->value, 0.1, 1e-9);
  EXPECT_DOUBLE_EQ(*e.MetricValue("Core_Type_Time_Share"), 0.25);
  const std::string text = FormatTextReport(replayed, &analysis);
  EXPECT_NE(text.find("Top-Down (adl_glc, performance cores (cpu_core) only)"), std::string::npos) << text;
  EXPECT_NE(text.find("Top-Down (adl_grt, efficiency cores (cpu_atom) only)"), std::string::npos) << text;
  EXPECT_NE(text.find("counted on these cores for 25% of the region's time"), std::string::npos) << text;
  const nlohmann::json j = RunAnalysisToJson(replayed, analysis);
  EXPECT_EQ(j["core_type"], "cpu_core");
  EXPECT_EQ(j["other_core_types"][0]["uarch"], "adl_grt");
  const std::string html = FormatHtmlReport(replayed, analysis, "");
  EXPECT_NE(html.find("<h2>Efficiency cores (cpu_atom): definitions <b>adl_grt</b></h2>"), std::string::npos);
  EXPECT_NE(html.find("id=\"region-0-cpu_atom\""), std::string::npos);
}

TEST(RegionAnalysis, ReportOptionsLevelRegionThreadsColor) {
  RunData data = SklRecording();
  AddRegion(&data, "multiply1", {kMultiply1});
  AddRegion(&data, "multiply2", {kMultiply2, kMultiply2});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  TextReportOptions level1;
  level1.max_level = 1;
  const std::string shallow = FormatTextReport(replayed, &analysis, level1);
  EXPECT_NE(shallow.find("  ▶ Backend_Bound 78.0%\n"), std::string::npos) << shallow;
  EXPECT_EQ(shallow.find("not measured: Fetch_Latency"), std::string::npos) << "Level 2 is hidden";
  TextReportOptions only2;
  only2.region = "multiply2";
  only2.per_thread = false;
  const std::string one = FormatTextReport(replayed, &analysis, only2);
  EXPECT_EQ(one.find("multiply1"), std::string::npos) << one;
  EXPECT_NE(one.find("multiply2"), std::string::npos);
  EXPECT_EQ(one.find("· thread 1"), std::string::npos) << "no per-thread rows";
  TextReportOptions threads;
  EXPECT_NE(FormatTextReport(replayed, &analysis, threads).find("· thread 1"), std::string::npos);
  TextReportOptions color;
  color.color = true;
  const std::string colored = FormatTextReport(replayed, &analysis, color);
  EXPECT_NE(colored.find("\x1b[31m     78.0%!\x1b[0m"), std::string::npos) << colored;
  EXPECT_NE(colored.find("\x1b[1m▶ Backend_Bound"), std::string::npos);
  EXPECT_EQ(FormatTextReport(replayed, &analysis).find("\x1b["), std::string::npos) << "plain by default";
  TextReportOptions none;
  none.region = "nope";
  EXPECT_NE(FormatTextReport(replayed, &analysis, none).find("no region matches \"nope\""),
            std::string::npos);
}

TEST(RegionAnalysis, NoHardwareCountersSaysWhyInsteadOfATree) {
  RunData data;
  data.availability.hardware_reason = "no hardware PMU is exposed to this machine";
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  const RunAnalysis analysis = AnalyzeRun(data, *library, "");
  EXPECT_FALSE(analysis.HasTrees());
  EXPECT_EQ(analysis.unavailable, "no hardware counters: no hardware PMU is exposed to this machine");
}

TEST(RegionAnalysis, UnknownCpuNeedsTdUarch) {
  RunData data = SklRecording();
  data.machine.cpu_model = 999;
  AddRegion(&data, "r", {kMultiply1});
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  const RunAnalysis unknown = AnalyzeRun(data, *library, "");
  EXPECT_FALSE(unknown.HasTrees());
  EXPECT_NE(unknown.unavailable.find("family 6 model 999"), std::string::npos);
  EXPECT_NE(unknown.unavailable.find("TD_UARCH"), std::string::npos);
  const RunAnalysis forced = AnalyzeRun(data, *library, "skx");
  ASSERT_TRUE(forced.HasTrees());
  EXPECT_EQ(forced.uarch, "skx");
}

TEST(RegionAnalysis, UnknownCpuWithLinuxTopdownEventsGetsGenericLevelOne) {
  const std::vector<std::string> events = {"slots", "topdown-retiring", "topdown-bad-spec",
                                           "topdown-fe-bound", "topdown-be-bound"};
  RunData data = SklRecording(events);
  data.machine.cpu_model = 999;  // not in any table
  AddRegion(&data, "r", {{{"slots", 1000}, {"topdown-retiring", 300}, {"topdown-bad-spec", 100},
                          {"topdown-fe-bound", 250}, {"topdown-be-bound", 350}}});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  ASSERT_TRUE(analysis.HasTrees()) << analysis.unavailable;
  EXPECT_EQ(analysis.uarch, "generic");
  EXPECT_NE(analysis.unknown_cpu.find("model 999"), std::string::npos);
  EXPECT_NEAR(analysis.regions[0].Find("Backend_Bound")->value.value(), 0.35, 1e-12);
  const std::string text = FormatTextReport(replayed, &analysis);
  EXPECT_NE(text.find("Showing the generic Level 1"), std::string::npos) << text;
}

// Found with run_json_fuzzer: the iron-law line (instructions × CPI ÷ GHz, i.e.
// task-clock) converted its double to int64_t nanoseconds unchecked; a
// recording's task-clock can be up to 2^64 - 1 ns. It now shows the largest.
TEST(RegionAnalysis, IronLawOfAnAbsurdTaskClockIsClamped) {
  RunData data = SklRecording({"cycles", "instructions", "task-clock"});
  AddRegion(&data, "r", {{{"cycles", 1000}, {"instructions", 1000}, {"task-clock", 1.8e19}}});
  RunData replayed;
  const RunAnalysis analysis = Replay(data, &replayed);
  const std::string text = FormatTextReport(replayed, &analysis);
  EXPECT_NE(text.find("GHz = 9223372036.855 s of CPU time"), std::string::npos) << text;
}

}  // namespace
}  // namespace td

// td's definitions against the vendors' current formulas (issue 16): each test
// pins the values of one fix, computed by hand from the formula it follows
// (Linux perf 6.12's pmu-events metrics unless a test says otherwise).
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/uarch/event_names.h"
#include "runtime/analysis/metric_evaluator.h"
#include "runtime/analysis/perf_case.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/report/analysis_json.h"
#include "runtime/analysis/topdown_tree.h"
#include "runtime/machine/machine_info.h"
#include "runtime/report/csv_report.h"
#include "runtime/report/html_report.h"
#include "runtime/recorded/run_file.h"
#include "runtime/report/text_report.h"
#include "runtime/report/topdown_text.h"
#include "runtime/uarch/definitions.h"
#include "tests/unit/map_lookup.h"

namespace td {
namespace {


MetricSet Set(const std::string& uarch) {
  static const auto* library = new DefinitionLibrary(*DefinitionLibrary::Load());
  auto set = library->ForUarch(uarch);
  EXPECT_TRUE(set.ok()) << set.status();
  return *set;
}

// Gracemont: Resource_Bound is Backend_Bound less Core_Bound (perf 6.12
// tma_resource_bound), so Backend_Bound's children add up to it; before the
// fix Resource_Bound equalled Backend_Bound and the children summed to ~2×.
TEST(VendorFormulas, GracemontBackendChildrenAddUpToBackendBound) {
  const MetricSet grt = Set("adl_grt");
  const std::map<std::string, double> counts = {
      {"cpu_clk_unhalted.core", 1000},
      {"topdown_fe_bound.all", 1500},
      {"topdown_be_bound.all", 2000},
      {"topdown_retiring.all", 1000},
      {"topdown_be_bound.alloc_restrictions", 300},
      {"topdown_be_bound.mem_scheduler", 900},
      {"mem_scheduler_block.st_buf", 30},
      {"mem_scheduler_block.all", 60}};
  const TopDownResult r = AnalyzeCounts(grt, MapLookup(counts));
  const TreeNode* backend = r.Find("Backend_Bound");
  const TreeNode* core = r.Find("Backend_Bound.Core_Bound");
  const TreeNode* resource = r.Find("Backend_Bound.Resource_Bound");
  ASSERT_TRUE(backend && core && resource);
  ASSERT_TRUE(backend->value && core->value && resource->value);
  EXPECT_DOUBLE_EQ(*backend->value, 0.4);   // 2000 / (5 × 1000)
  EXPECT_DOUBLE_EQ(*core->value, 0.06);     // 300 / 5000
  EXPECT_DOUBLE_EQ(*resource->value, 0.34);  // 0.4 − 0.06
  double children = 0;
  for (const TreeNode& n : r.tree) {
    if (n.parent == "Backend_Bound" && n.value) children += *n.value;
  }
  EXPECT_NEAR(children, *backend->value, 1e-12);
  // Level 3: the scheduler share and, below it, the store-buffer part.
  const TreeNode* mem = r.Find("Backend_Bound.Resource_Bound.Mem_Scheduler");
  const TreeNode* st = r.Find("Backend_Bound.Resource_Bound.Mem_Scheduler.ST_Buffer");
  ASSERT_TRUE(mem && st && mem->value && st->value);
  EXPECT_DOUBLE_EQ(*mem->value, 0.18);
  EXPECT_DOUBLE_EQ(*st->value, 0.09);
  EXPECT_EQ(r.Find("Backend_Bound.Memory_Bound"), nullptr) << "not a sibling of Resource_Bound any more";
}

std::map<std::string, double> Level1(const MetricSet& set, const std::map<std::string, double>& counts,
                                     EvaluationOptions options = {}) {
  MetricEvaluator e(set, MapLookup(counts), options);
  std::map<std::string, double> out;
  for (const char* node : {"Frontend_Bound", "Backend_Bound", "Bad_Speculation", "Retiring"}) {
    const Value v = e.Evaluate(node);
    EXPECT_TRUE(v.measured) << node << ": " << v.missing;
    out[node] = v.number;
  }
  return out;
}

// Neoverse V2 and N2 Level 1 with the branch-mispredict slot terms (perf 6.12
// neoverse-n2-v2/metrics.json, Arm telemetry): 1 × BR_MIS_PRED/CPU_CYCLES out
// of Frontend_Bound, 3 × out of Backend_Bound, 4 × into Bad_Speculation.
TEST(VendorFormulas, NeoverseLevel1MovesMispredictSlotsToBadSpeculation) {
  // V2: 8 slots per cycle, no erratum.
  const auto v2 = Level1(Set("neoverse_v2"), {{"cpu_cycles", 1000}, {"stall_slot_frontend", 2000},
                                              {"stall_slot_backend", 3000}, {"stall_slot", 5000},
                                              {"op_spec", 2400}, {"op_retired", 1800}, {"br_mis_pred", 20}});
  EXPECT_NEAR(v2.at("Frontend_Bound"), 0.25 - 0.02, 1e-12);
  EXPECT_NEAR(v2.at("Backend_Bound"), 0.375 - 0.06, 1e-12);
  EXPECT_NEAR(v2.at("Retiring"), 0.75 * (1 - 0.625), 1e-12);
  EXPECT_NEAR(v2.at("Bad_Speculation"), 0.25 * (1 - 0.625) + 0.08, 1e-12);
  // N2 before r0p3: one slot per cycle less in STALL_SLOT(_FRONTEND).
  const std::map<std::string, double> n2_counts = {
      {"cpu_cycles", 1000}, {"stall_slot_frontend", 1500}, {"stall_slot_backend", 2000}, {"stall_slot", 3500},
      {"op_spec", 1500},    {"op_retired", 1200},          {"br_mis_pred", 10}};
  EvaluationOptions r0p0;
  r0p0.constants["CPU_Revision"] = 0;
  const auto n2 = Level1(Set("neoverse_n2"), n2_counts, r0p0);
  EXPECT_NEAR(n2.at("Frontend_Bound"), 0.1 - 0.01, 1e-12);
  EXPECT_NEAR(n2.at("Backend_Bound"), 0.4 - 0.03, 1e-12);
  EXPECT_NEAR(n2.at("Retiring"), 0.8 * 0.5, 1e-12);
  EXPECT_NEAR(n2.at("Bad_Speculation"), 0.2 * 0.5 + 0.04, 1e-12);
  for (const auto* l1 : {&v2, &n2}) {
    double sum = 0;
    for (const auto& [name, value] : *l1) sum += value;
    EXPECT_NEAR(sum, 1, 1e-12) << "the four Level-1 nodes cover every slot";
  }
}

const std::map<std::string, double> kN2Counts = {
    {"CPU_CYCLES", 1000}, {"STALL_SLOT_FRONTEND", 1500}, {"STALL_SLOT_BACKEND", 2000}, {"STALL_SLOT", 3500},
    {"OP_SPEC", 1500},    {"OP_RETIRED", 1200},          {"BR_MIS_PRED", 10}};

// A recording of one region on a Neoverse N2 of the given revision, sent
// through the JSON file format.
RunData N2Recording(int cpu_revision, bool drop_revision_field = false,
                    const std::map<std::string, double>& counts = kN2Counts) {
  RunData data;
  data.td_version = "0.1.0";
  data.program = {"n2", 1, {"./n2"}, 0, 1};
  data.machine.architecture = "aarch64";
  data.machine.cpu_vendor = "0x41";
  data.machine.cpu_family = cpu_revision >= 0 ? cpu_revision / 16 : 0;
  data.machine.cpu_model = 0xd49;
  data.machine.cpu_revision = cpu_revision;
  data.backend = "perf_event";
  data.availability.software_counters = true;
  data.availability.hardware_counters = true;
  std::vector<EventInfo> events;
  for (const auto& [name, value] : counts) {
    EventInfo e;
    e.name = name;
    e.unit = "count";
    e.perf_type = 4;
    e.hardware = true;
    events.push_back(e);
  }
  data.layout.AddGroup(events);
  data.threads.push_back({0, 100, false, true, ""});
  Region region{"loop", "loop", -1, {}, {}};
  RegionOnThread part{0, 1, 0, 0, 0, 1'000'000, 1'000'000, {}, {}};
  for (const EventInfo& e : data.layout.events) {
    const auto v = static_cast<uint64_t>(counts.at(e.name));
    part.events.push_back({v, v});
  }
  part.groups = {{1'000'000, 1'000'000}};
  region.threads.push_back(part);
  data.regions.push_back(region);
  nlohmann::json j = RunToJson(data);
  if (drop_revision_field) j["machine"]["cpu"].erase("revision");
  auto back = RunFromJson(j);
  EXPECT_TRUE(back.ok()) << back.status();
  return *back;
}

double RegionNode(const RunData& run, const std::string& node) {
  static const auto* library = new DefinitionLibrary(*DefinitionLibrary::Load());
  const RunAnalysis analysis = AnalyzeRun(run, *library, "", std::nullopt);
  EXPECT_EQ(analysis.uarch, "neoverse_n2");
  EXPECT_FALSE(analysis.regions.empty());
  const TreeNode* n = analysis.regions.empty() ? nullptr : analysis.regions[0].Find(node);
  EXPECT_TRUE(n != nullptr && n->value) << node;
  return n != nullptr && n->value ? *n->value : -1;
}

// Neoverse N2's erratum correction applies below r0p3 only (perf 6.12:
// strcmp_cpuid_str(0x410fd493)); the revision comes from the MIDR, travels
// in the recorded JSON and in the case format, and the formulas read it as
// CPU_Revision. Unknown (old files) keeps the correction.
// A machine field written to the run file and read back; a file written
// before the field existed reads it as -1 (unknown).
void ExpectMachineFieldRoundTrips(const char* field, int MachineInfo::*member, int value) {
  RunData run = N2Recording(0);
  run.machine.*member = value;
  auto back = RunFromJson(RunToJson(run));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->machine.*member, value) << field;
  nlohmann::json old = RunToJson(run);
  old["machine"].erase(field);
  EXPECT_EQ(RunFromJson(old)->machine.*member, -1) << field;
}

TEST(VendorFormulas, NeoverseN2ErratumCorrectionOnlyBeforeR0p3) {
  EXPECT_EQ(CpuRevisionFromMidr("0x00000000410fd493\n"), 3);
  EXPECT_EQ(CpuRevisionFromMidr("0x410fd490"), 0);
  EXPECT_EQ(CpuRevisionFromMidr("0x411fd4f1"), 17);  // r1p1
  EXPECT_EQ(CpuRevisionFromMidr("n2"), -1);
  MachineInfo cpuinfo;
  ParseCpuinfo("processor\t: 0\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\n"
               "CPU part\t: 0xd49\nCPU revision\t: 3\n\nprocessor\t: 1\nCPU revision\t: 0\n",
               &cpuinfo);
  EXPECT_EQ(cpuinfo.cpu_model, 0xd49);
  EXPECT_EQ(cpuinfo.cpu_revision, 3);

  // r0p3: STALL_SLOT(_FRONTEND) as counted; r0p0 and unknown: one slot per cycle less.
  const RunData r0p3 = N2Recording(3);
  EXPECT_EQ(r0p3.machine.cpu_revision, 3) << "the revision survives the JSON file";
  EXPECT_NEAR(RegionNode(r0p3, "Frontend_Bound"), 0.3 - 0.01, 1e-12);
  EXPECT_NEAR(RegionNode(r0p3, "Retiring"), 0.8 * 0.3, 1e-12);
  EXPECT_NEAR(RegionNode(r0p3, "Bad_Speculation"), 0.2 * 0.3 + 0.04, 1e-12);
  EXPECT_NEAR(RegionNode(N2Recording(0), "Frontend_Bound"), 0.1 - 0.01, 1e-12);
  const RunData old_file = N2Recording(3, /*drop_revision_field=*/true);
  EXPECT_EQ(old_file.machine.cpu_revision, -1) << "files from before the field read as unknown";
  EXPECT_NEAR(RegionNode(old_file, "Frontend_Bound"), 0.1 - 0.01, 1e-12);

  // The case format: "midr" as perf's cpuid prints it, or "cpu_revision".
  nlohmann::json c = {{"uarch", "neoverse_n2"}, {"midr", "0x410fd493"}, {"counts", nlohmann::json::array()},
                      {"expected", {{{"metric", "Frontend_Bound"}}}}};
  for (const auto& [name, value] : kN2Counts) c["counts"].push_back({{"event", name}, {"value", value}});
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  for (const auto& [key, value, frontend] :
       {std::tuple<const char*, nlohmann::json, double>{"midr", "0x410fd493", 0.29},
        {"midr", "0x410fd492", 0.09}, {"cpu_revision", 3, 0.29}, {"cpuid", "0x410fd493", 0.29}, {"", nullptr, 0.09}}) {
    nlohmann::json one = c;
    one.erase("midr");
    if (*key) one[key] = value;
    auto parsed = ParsePerfCase(one);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    auto answers = Recompute(*parsed, *library);
    ASSERT_TRUE(answers.ok());
    ASSERT_TRUE((*answers)[0].value) << (*answers)[0].why_not;
    EXPECT_NEAR(*(*answers)[0].value, frontend, 1e-12) << key << " " << value;
  }
  nlohmann::json bad = c;
  bad["midr"] = "r0p3";
  EXPECT_FALSE(ParsePerfCase(bad).ok());
}

// Skylake-SP / Cascade Lake False_Sharing: TMA's multi-socket form adds the
// RFOs that hit a line modified in another socket (110 ns each) when the
// machine has more than one socket (Sockets, from machine.sockets or the
// case's "sockets"); one socket or unknown keeps the local form.
TEST(VendorFormulas, SkylakeServerFalseSharingCountsRemoteHitmOnMultiSocket) {
  const std::map<std::string, double> counts = {
      {"cpu_clk_unhalted.thread", 2e9},  // 2 GHz over the task-clock below
      {"task-clock", 1000},              // ms, as perf stat prints it
      {"ocr.demand_rfo.l3_hit.hitm_other_core", 1e6},
      {"ocr.pf_l2_rfo.l3_hit.hitm_other_core", 0},
      {"offcore_response.demand_rfo.l3_miss.remote_hitm", 2e6},  // SKX's spelling
      {"ocr.pf_l2_rfo.l3_miss.remote_hitm", 0}};
  const double local = 47.5 * 2 * 1e6 / 2e9;                  // 0.0475
  const double two_sockets = (110 * 2 * 2e6 + 47.5 * 2 * 1e6) / 2e9;  // 0.2675
  for (const char* uarch : {"skx", "clx"}) {
    const MetricSet set = Set(uarch);
    for (const auto& [sockets, expected] : {std::pair<double, double>{-1, local}, {1, local}, {2, two_sockets}}) {
      EvaluationOptions options;
      options.constants["Sockets"] = sockets;
      MetricEvaluator e(set, MapLookup(counts), options);
      const Value v = e.Evaluate("Backend_Bound.Memory_Bound.Store_Bound.False_Sharing");
      ASSERT_TRUE(v.measured) << v.missing;
      EXPECT_NEAR(v.number, expected, 1e-12) << uarch << " sockets " << sockets;
    }
  }
  // Two sockets but no remote-HITM counts: the local form, with a note.
  std::map<std::string, double> local_only = counts;
  local_only.erase("offcore_response.demand_rfo.l3_miss.remote_hitm");
  EvaluationOptions two;
  two.constants["Sockets"] = 2;
  const MetricSet skx = Set("skx");
  MetricEvaluator fallback(skx, MapLookup(local_only), two);
  EXPECT_NEAR(fallback.Evaluate("Backend_Bound.Memory_Bound.Store_Bound.False_Sharing").number, local, 1e-12);
  ASSERT_FALSE(fallback.notes().empty());

  // The machine's socket count: sysfs, the recorded JSON, the case.
  const std::string dir = ::testing::TempDir() + "/td_sockets_cpu";
  for (const auto& [cpu, package] : {std::pair<int, int>{0, 0}, {1, 0}, {2, 1}, {3, 1}}) {
    const std::string topology = dir + "/cpu" + std::to_string(cpu) + "/topology";
    ASSERT_EQ(system(("mkdir -p " + topology).c_str()), 0);
    std::ofstream(topology + "/physical_package_id") << package << "\n";
  }
  ASSERT_EQ(system(("mkdir -p " + dir + "/cpufreq " + dir + "/cpu9x").c_str()), 0);
  EXPECT_EQ(CountSockets(dir), 2);
  EXPECT_EQ(CountSockets(dir + "/none"), -1);
  nlohmann::json c = {{"uarch", "clx"}, {"sockets", 2}, {"counts", nlohmann::json::array()},
                      {"expected", {{{"metric", "Backend_Bound.Memory_Bound.Store_Bound.False_Sharing"}}}}};
  for (const auto& [name, value] : counts) c["counts"].push_back({{"event", name}, {"value", value}});
  auto parsed = ParsePerfCase(c);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  auto answers = Recompute(*parsed, *DefinitionLibrary::Load());
  ASSERT_TRUE(answers.ok() && (*answers)[0].value) << (*answers)[0].why_not;
  EXPECT_NEAR(*(*answers)[0].value, two_sockets, 1e-12);
  c["sockets"] = 0;
  EXPECT_FALSE(ParsePerfCase(c).ok());
  ExpectMachineFieldRoundTrips("sockets", &MachineInfo::sockets, 2);
}

// Persistent memory (perf's #has_pmem, td's Has_PMEM from machine.persistent_memory):
// PMM_Bound is the PMM share of the weighted L3-miss loads times the
// memory-stall share beyond L2; 0 on a machine without it or not known to have it.
TEST(VendorFormulas, PmmBoundOnlyOnMachinesWithPersistentMemory) {
  const MetricSet clx = Set("clx");
  const std::map<std::string, double> counts = {
      {"cpu_clk_unhalted.thread", 1e6},           {"cycle_activity.stalls_l3_miss", 2e5},
      {"cycle_activity.stalls_l1d_miss", 4e5},    {"cycle_activity.stalls_l2_miss", 3e5},
      {"mem_load_retired.l1_miss", 1000},         {"mem_load_retired.l2_hit", 1000},
      {"mem_load_l3_miss_retired.local_dram", 300}, {"mem_load_retired.local_pmm", 100}};
  // Every other event counted 0.
  const CountLookup lookup = [&counts](const std::vector<std::string>& spellings, std::string*) {
    for (const auto& s : spellings) {
      if (auto it = counts.find(s); it != counts.end()) return std::optional<double>(it->second);
    }
    return std::optional<double>(0);
  };
  const std::string pmm = "Backend_Bound.Memory_Bound.PMM_Bound";
  for (const double has_pmem : {-1.0, 0.0, 1.0}) {
    EvaluationOptions options;
    options.constants["Has_PMEM"] = has_pmem;
    MetricEvaluator e(clx, lookup, options);
    const Value v = e.Evaluate(pmm);
    ASSERT_TRUE(v.measured) << v.missing;
    const double l2_bound = e.Evaluate("Backend_Bound.Memory_Bound.L2_Bound").number;
    // DRAM weight 10 x 300, PMM weight 25 x 100; stalls (2e5 + 1e5) / 1e6 less L2_Bound.
    const double expected = has_pmem > 0 ? 2500.0 / 5500.0 * (0.3 - l2_bound) : 0.0;
    EXPECT_NEAR(v.number, expected, 1e-12) << "Has_PMEM " << has_pmem;
    if (has_pmem > 0) EXPECT_GT(v.number, 0.05);
  }
  // The machine's answer: the firmware's NFIT table (perf's test), the recorded JSON, the case.
  const std::string tables = ::testing::TempDir() + "/td_acpi_tables";
  ASSERT_EQ(system(("rm -rf " + tables + " && mkdir -p " + tables).c_str()), 0);
  EXPECT_EQ(HasPersistentMemory(tables + "/NFIT"), 0);
  std::ofstream(tables + "/NFIT") << "table";
  EXPECT_EQ(HasPersistentMemory(tables + "/NFIT"), 1);
  ExpectMachineFieldRoundTrips("persistent_memory", &MachineInfo::persistent_memory, 1);
  nlohmann::json c = {{"uarch", "clx"}, {"persistent_memory", true}, {"counts", nlohmann::json::array()},
                      {"expected", {{{"metric", pmm}}}}};
  for (const auto& [name, value] : counts) c["counts"].push_back({{"event", name}, {"value", value}});
  for (const char* zero : {"mem_load_retired.fb_hit", "mem_load_l3_miss_retired.remote_dram",
                           "mem_load_l3_miss_retired.remote_fwd", "mem_load_l3_miss_retired.remote_hitm",
                           "mem_load_l3_miss_retired.remote_pmm", "l1d_pend_miss.fb_full:c1"}) {
    c["counts"].push_back({{"event", zero}, {"value", 0}});
  }
  auto parsed = ParsePerfCase(c);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  auto answers = Recompute(*parsed, *DefinitionLibrary::Load());
  ASSERT_TRUE(answers.ok() && (*answers)[0].value) << (*answers)[0].why_not;
  EXPECT_GT(*(*answers)[0].value, 0.05);
  c["persistent_memory"] = 1;
  EXPECT_FALSE(ParsePerfCase(c).ok()) << "persistent_memory is true or false";
}

// Thresholds are TMA's per node (perf 6.12 MetricThreshold, same TMA as the
// formulas): Retiring > 0.7 or Heavy_Operations > 0.1; Fetch_Bandwidth > 0.2,
// Heavy_Operations > 0.1 and Light_Operations > 0.6 without a parent
// condition; Microcode_Sequencer > 0.05 and Heavy_Operations > 0.1.
TEST(VendorFormulas, IntelThresholdsFollowTmaRulesPerNode) {
  auto flags = [](const std::string& uarch, double retire_slots, double instructions, double ms_uops) {
    const MetricSet set = Set(uarch);
    const std::map<std::string, double> counts = {
        {"cpu_clk_unhalted.thread", 1000},  // 4000 slots
        {"idq_uops_not_delivered.core", 1200},
        {"idq_uops_not_delivered.cycles_0_uops_deliv.core", 150},
        {"uops_issued.any", retire_slots},
        {"uops_retired.retire_slots", retire_slots},
        {"int_misc.recovery_cycles", 0},
        {"uops_retired.macro_fused", 0},
        {"inst_retired.any", instructions},
        {"idq.ms_uops", ms_uops}};
    std::map<std::string, std::pair<double, bool>> out;
    for (const TreeNode& n : AnalyzeCounts(set, MapLookup(counts)).tree) {
      if (n.value) out[n.name] = {*n.value, n.flagged};
    }
    return out;
  };
  // Retiring 0.6, Heavy 0.15, Light 0.45, MS 0.075; FE 0.3 with Fetch_Bandwidth 0.15.
  auto heavy = flags("skl", 2400, 1800, 300);
  EXPECT_DOUBLE_EQ(heavy.at("Retiring").first, 0.6);
  EXPECT_TRUE(heavy.at("Retiring").second) << "Heavy_Operations > 0.1 flags Retiring below 0.7";
  EXPECT_DOUBLE_EQ(heavy.at("Retiring.Heavy_Operations").first, 0.15);
  EXPECT_TRUE(heavy.at("Retiring.Heavy_Operations").second);
  EXPECT_FALSE(heavy.at("Retiring.Light_Operations").second);
  EXPECT_DOUBLE_EQ(heavy.at("Retiring.Heavy_Operations.Microcode_Sequencer").first, 0.075);
  EXPECT_TRUE(heavy.at("Retiring.Heavy_Operations.Microcode_Sequencer").second);
  EXPECT_TRUE(heavy.at("Frontend_Bound").second);
  EXPECT_DOUBLE_EQ(heavy.at("Frontend_Bound.Fetch_Bandwidth").first, 0.15);
  EXPECT_FALSE(heavy.at("Frontend_Bound.Fetch_Bandwidth").second) << "TMA: > 0.2, not > 0.1";
  // Retiring 0.65 (not flagged), Heavy 0.02, Light 0.63: Light is flagged on its own.
  auto skl_light = flags("skl", 2600, 2520, 0);
  EXPECT_FALSE(skl_light.at("Retiring").second);
  EXPECT_NEAR(skl_light.at("Retiring.Light_Operations").first, 0.63, 1e-12);
  EXPECT_TRUE(skl_light.at("Retiring.Light_Operations").second) << "no parent condition";
  // The rules are data: every Intel uarch carries them.
  for (const char* uarch : {"snb", "hsw", "skx", "icl", "spr", "adl_glc"}) {
    const MetricSet set = Set(uarch);
    for (const char* node : {"Retiring", "Frontend_Bound.Fetch_Bandwidth", "Retiring.Heavy_Operations",
                             "Retiring.Light_Operations"}) {
      const FormulaDefinition* def = set.FindNode(node);
      ASSERT_NE(def, nullptr) << uarch << " " << node;
      EXPECT_TRUE(def->flagged_if.has_value()) << uarch << " " << node;
    }
    EXPECT_DOUBLE_EQ(*set.FindNode("Frontend_Bound.Fetch_Bandwidth")->threshold, 0.2);
  }
}

// `td import-perf`: perf prints events with their terms ("EVENT,umask=0x80",
// "cpu/RS.EMPTY,umask=1/"), commas included and unquoted in -x, output;
// they are read back as one event and matched with the formulas' names.
TEST(VendorFormulas, ImportPerfReadsPerfsPrintedUmaskSpellings) {
  EXPECT_EQ(NormalizeEventName("EXE_ACTIVITY.3_PORTS_UTIL,umask=0x80"), "exe_activity.3_ports_util:u0x80");
  EXPECT_EQ(NormalizeEventName("cpu/RS.EMPTY,umask=1/"), "rs.empty:u0x1");
  EXPECT_EQ(NormalizeEventName("cpu_core/EXE_ACTIVITY.2_PORTS_UTIL,umask=0xc/"), "exe_activity.2_ports_util:u0xc");
  EXPECT_EQ(NormalizeEventName("EXE_ACTIVITY.2_PORTS_UTIL:u0x0C"), "exe_activity.2_ports_util:u0xc");
  EXPECT_EQ(NormalizeEventName("EXE_ACTIVITY.2_PORTS_UTIL,cmask=1,umask=0xc"), "exe_activity.2_ports_util:u0xc:c1");

  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  auto value_of = [&library](const std::string& csv, const std::string& uarch, const std::string& metric) {
    auto c = ParsePerfStatCsv(csv, uarch);
    EXPECT_TRUE(c.ok()) << c.status();
    WantedMetric w;
    w.metric = metric;
    c->wanted = {w};
    auto answers = Recompute(*c, *library);
    EXPECT_TRUE(answers.ok());
    EXPECT_TRUE((*answers)[0].value.has_value()) << (*answers)[0].why_not;
    return (*answers)[0].value.value_or(-1);
  };
  // Ice Lake: Ports_Utilized_0 = EXE_ACTIVITY.3_PORTS_UTIL (umask 0x80) / CLKS.
  EXPECT_DOUBLE_EQ(value_of("10000,,CPU_CLK_UNHALTED.THREAD,1000000,100.00,,\n"
                            "2000,,EXE_ACTIVITY.3_PORTS_UTIL,umask=0x80,1000000,100.00,,\n",
                            "icl", "Backend_Bound.Core_Bound.Ports_Utilization.Ports_Utilized_0"),
                   0.2);
  // Sapphire Rapids: RS.EMPTY umask 1 is RS.EMPTY_RESOURCE.
  const std::string spr =
      "1000000,,cpu/CPU_CLK_UNHALTED.THREAD/,1000000,100.00,,\n"
      "100000,,cpu/EXE_ACTIVITY.EXE_BOUND_0_PORTS/,1000000,100.00,,\n"
      "50000,,cpu/RS.EMPTY,umask=1/,1000000,100.00,,\n"
      "20000,,cpu/RESOURCE_STALLS.SCOREBOARD/,1000000,100.00,,\n"
      "400000,,cpu/CYCLE_ACTIVITY.STALLS_TOTAL/,1000000,100.00,,\n"
      "100000,,cpu/EXE_ACTIVITY.BOUND_ON_LOADS/,1000000,100.00,,\n"
      "300000,,EXE_ACTIVITY.2_PORTS_UTIL,umask=0xc,1000000,100.00,,\n";
  EXPECT_NEAR(value_of(spr, "spr", "Backend_Bound.Core_Bound.Ports_Utilization.Ports_Utilized_0"),
              (100000 + 30000) / 1e6 * (400000 - 100000) / 1e6, 1e-15);
  auto c = ParsePerfStatCsv(spr, "spr");
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->counts.size(), 7u);
  EXPECT_EQ(c->counts[2].printed, "cpu/RS.EMPTY,umask=1/");
  EXPECT_EQ(c->counts[6].event, "exe_activity.2_ports_util:u0xc");
  EXPECT_EQ(*c->counts[6].value, 300000);
  const MetricSet set = Set("spr");
  const EventDefinition* two_three = set.FindEvent("EXE_ACTIVITY.2_PORTS_UTIL,umask=0xc");
  const EventDefinition* rs_empty = set.FindEvent("cpu_core/RS.EMPTY,umask=1/");
  ASSERT_TRUE(two_three != nullptr && rs_empty != nullptr);
  EXPECT_EQ(two_three->name, "EXE_ACTIVITY.2_3_PORTS_UTIL");
  EXPECT_EQ(rs_empty->name, "RS.EMPTY_RESOURCE");
}

// Frequency: td's cycles / task-clock is named for what it is
// (Active_Clock_GHz; "Clock_GHz" still finds it), and import-perf computes
// TMA's Core_Frequency as perf prints it when TSC and the duration are in
// the input (duration_time, which perf prints in ns).
TEST(VendorFormulas, ImportPerfReproducesPerfsCoreFrequency) {
  const std::string csv =
      "2000.00,msec,task-clock,2000000000,100.00,2.000,CPUs utilized\n"
      "3000000000,,cycles,2000000000,100.00,1.500,GHz\n"
      "2000000000,,ref-cycles,2000000000,100.00,,\n"
      "2000000000,,msr/tsc/,2000000000,100.00,,\n"
      "1000000000,ns,duration_time,1000000000,100.00,,\n";
  auto c = ParsePerfStatCsv(csv, "skl");
  ASSERT_TRUE(c.ok()) << c.status();
  for (const char* m : {"Active_Clock_GHz", "Clock_GHz", "Core_Frequency", "CPUs_Utilized"}) {
    WantedMetric w;
    w.metric = m;
    c->wanted.push_back(w);
  }
  EXPECT_EQ(c->counts[3].pmu, "") << "msr/tsc/ is no core PMU";
  auto answers = Recompute(*c, *DefinitionLibrary::Load());
  ASSERT_TRUE(answers.ok());
  std::map<std::string, double> values;
  for (const MetricAnswer& a : *answers) {
    ASSERT_TRUE(a.value) << a.wanted.metric << ": " << a.why_not;
    values[a.wanted.metric] = *a.value;
  }
  EXPECT_DOUBLE_EQ(values["Active_Clock_GHz"], 1.5);  // 3e9 cycles / 2 s of task-clock
  EXPECT_DOUBLE_EQ(values["Clock_GHz"], 1.5) << "the former name still reads";
  EXPECT_DOUBLE_EQ(values["Core_Frequency"], 3.0);    // 3e9 / 2e9 × 2e9 TSC ticks / 1e9 / 1 s
  EXPECT_DOUBLE_EQ(values["CPUs_Utilized"], 2.0);     // duration_time read as 1 s, not 1e9 s

  const MetricSet skl = Set("skl");
  const std::map<std::string, double> counts = {{"cycles", 3e9}, {"task-clock", 2000}};
  const TopDownResult r = AnalyzeCounts(skl, MapLookup(counts));
  EXPECT_DOUBLE_EQ(*r.MetricValue("Active_Clock_GHz"), 1.5);
  EXPECT_DOUBLE_EQ(*r.MetricValue("Clock_GHz"), 1.5);
  EXPECT_FALSE(r.MetricValue("Core_Frequency").has_value()) << "no TSC in a region's counts";
}

// A ratio of 0 / 0 stays 0 (td's choice; perf gives NaN) but is marked, and
// the reports say "no samples" instead of 0 %.
TEST(VendorFormulas, ZeroOverZeroShowsAsNoSamples) {
  auto eval = [](const std::string& text, const std::map<std::string, double>& names) {
    auto e = Expression::Parse(text);
    EXPECT_TRUE(e.ok()) << e.status();
    return e->Evaluate([&names](const std::string& n) { return Value::Of(names.at(n)); });
  };
  const std::map<std::string, double> none = {{"a", 0}, {"b", 0}, {"c", 5}};
  for (const char* text : {"a / (a + b)", "1 - a / b", "c * d_ratio(a, b)", "max(0, a / b)", "c if c > 1 else 0"}) {
    const Value v = eval(text, none);
    EXPECT_EQ(v.number, std::string(text) == "1 - a / b" ? 1 : text[0] == 'c' && text[2] == 'i' ? 5 : 0) << text;
    EXPECT_EQ(v.no_samples, std::string(text) != "c if c > 1 else 0") << text;
  }
  EXPECT_FALSE(eval("c / b", none).no_samples) << "x / 0 with x != 0 is not 'no samples'";
  EXPECT_FALSE(eval("(a / b) < 1", none).no_samples) << "a comparison is a plain truth value";
  EXPECT_FALSE(eval("a / c", none).no_samples);

  std::map<std::string, double> zeros = kN2Counts;
  for (auto& [name, value] : zeros) value = 0;  // counters ran, nothing counted
  const RunData run = N2Recording(3, false, zeros);
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  const RunAnalysis analysis = AnalyzeRun(run, *library, "", std::nullopt);
  ASSERT_FALSE(analysis.regions.empty());
  const TreeNode* frontend = analysis.regions[0].Find("Frontend_Bound");
  ASSERT_TRUE(frontend && frontend->value);
  EXPECT_EQ(*frontend->value, 0);
  EXPECT_TRUE(frontend->no_samples);
  TextReportOptions options;
  const std::string text = FormatTopDownSection(run, analysis, options);
  EXPECT_NE(text.find("loop   no samples no samples no samples no samples"), std::string::npos) << text;
  EXPECT_EQ(text.find("0.0%"), std::string::npos) << text;
  const std::string csv = FormatCsvReport(run, &analysis);
  EXPECT_NE(csv.find("loop,node,Frontend_Bound,no samples,0,0\n"), std::string::npos) << csv;
  const std::string html = FormatHtmlReport(run, analysis);
  EXPECT_NE(html.find("Frontend_Bound — no samples"), std::string::npos);
  const nlohmann::json j = RunAnalysisToJson(run, analysis);
  EXPECT_EQ(j["regions"][0]["inclusive"]["tree"][0]["no_samples"], true);
  EXPECT_EQ(j["regions"][0]["inclusive"]["tree"][0]["value"], 0.0);
  // Skylake's Backend_Bound is 1 − the others: 1 from nothing counted, but
  // marked, never flagged, never on the critical path.
  const std::map<std::string, double> skl_zeros = {
      {"cpu_clk_unhalted.thread", 0}, {"idq_uops_not_delivered.core", 0}, {"uops_issued.any", 0},
      {"uops_retired.retire_slots", 0}, {"int_misc.recovery_cycles", 0}};
  const TopDownResult skl = AnalyzeCounts(Set("skl"), MapLookup(skl_zeros));
  const TreeNode* backend = skl.Find("Backend_Bound");
  ASSERT_TRUE(backend && backend->value);
  EXPECT_TRUE(backend->no_samples);
  EXPECT_FALSE(backend->flagged);
  EXPECT_FALSE(backend->critical);
  // Counted work is never "no samples".
  const RunAnalysis counted = AnalyzeRun(N2Recording(3), *library, "", std::nullopt);
  EXPECT_FALSE(counted.regions[0].Find("Frontend_Bound")->no_samples);
}

// Granite Rapids (TMA 5.2): without sampled retire latencies the nodes built on
// the vendor's mean say so in the text report and the analysis JSON.
TEST(VendorFormulas, StaticRetireLatencyIsShownInTheReports) {
  auto library = DefinitionLibrary::Load();
  ASSERT_TRUE(library.ok());
  std::map<std::string, double> counts;
  for (const EventDefinition& e : library->Find("gnr")->events) counts[e.name] = 1000;
  counts["CPU_CLK_UNHALTED.THREAD"] = 1'000'000;
  counts["TOPDOWN.SLOTS"] = 8'000'000;
  const RunData run = N2Recording(3, false, counts);  // the machine does not matter: the key is named
  const RunAnalysis analysis = AnalyzeRun(run, *library, "gnr", std::nullopt);
  ASSERT_FALSE(analysis.regions.empty());
  const TreeNode* lock = analysis.regions[0].Find("Backend_Bound.Memory_Bound.L1_Bound.Lock_Latency");
  ASSERT_TRUE(lock && lock->value);
  EXPECT_DOUBLE_EQ(*lock->value, 1000 * 63.76 / 1'000'000);  // LOCK_LOADS x its mean retire latency / clocks
  EXPECT_EQ(lock->estimated, kStaticRetireLatency);
  EXPECT_EQ(analysis.regions[0].Find("Backend_Bound")->estimated, "");
  TextReportOptions options;
  options.max_level = 0;
  const std::string text = FormatTopDownSection(run, analysis, options);
  EXPECT_NE(text.find("estimated: static retire latency ("), std::string::npos) << text;
  EXPECT_NE(text.find("Lock_Latency"), std::string::npos) << text;
  const nlohmann::json j = RunAnalysisToJson(run, analysis);
  bool marked = false;
  for (const auto& node : j["regions"][0]["inclusive"]["tree"]) {
    if (node["name"] == lock->name) marked = node["estimated"] == kStaticRetireLatency;
  }
  EXPECT_TRUE(marked);
  const std::string html = FormatHtmlReport(run, analysis);
  EXPECT_NE(html.find("Lock_Latency — 6.4% of cycles (estimated: static retire latency)"), std::string::npos);
}

}  // namespace
}  // namespace td

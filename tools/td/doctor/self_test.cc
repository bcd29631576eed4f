#include "tools/td/doctor/self_test.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace td::doctor {
namespace {

constexpr const char* kLevelOne[] = {"Frontend_Bound", "Bad_Speculation", "Retiring", "Backend_Bound"};

int RegionIndex(const RunData& run, const std::string& name) {
  for (size_t i = 0; i < run.regions.size(); ++i) {
    if (run.regions[i].parent < 0 && run.regions[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool EndsWithLeaf(const std::string& name, const std::string& leaf) {
  return name == leaf ||
         (name.size() > leaf.size() && name.compare(name.size() - leaf.size() - 1, std::string::npos, "." + leaf) == 0);
}

// A node by its last name component, or a former one ("DRAM_Bound").
const TreeNode* Leaf(const TopDownResult& result, const std::string& leaf) {
  for (const TreeNode& n : result.tree) {
    if (EndsWithLeaf(n.name, leaf)) return &n;
  }
  for (const TreeNode& n : result.tree) {
    for (const std::string& former : n.former_names) {
      if (EndsWithLeaf(former, leaf)) return &n;
    }
  }
  return nullptr;
}

std::optional<double> ValueOf(const TopDownResult& result, const std::string& leaf) {
  const TreeNode* n = Leaf(result, leaf);
  return n == nullptr ? std::nullopt : n->value;
}

std::string Percent(std::optional<double> v) {
  return v ? absl::StrFormat("%.1f%%", *v * 100) : std::string("not measured");
}

// The Level-1 node with the largest value; "" when none is measured.
std::string LargestLevelOne(const TopDownResult& result) {
  std::string best;
  double best_value = -1;
  for (const char* node : kLevelOne) {
    if (const auto v = ValueOf(result, node); v && *v > best_value) {
      best = node;
      best_value = *v;
    }
  }
  return best;
}

std::string LevelOneText(const TopDownResult& result) {
  std::vector<std::string> parts;
  for (const char* node : kLevelOne) parts.push_back(absl::StrFormat("%s %s", node, Percent(ValueOf(result, node))));
  return absl::StrJoin(parts, ", ");
}

SelfTestCheck Missing(const std::string& name, const std::string& expected) {
  return {name, expected, "region not recorded", Outcome::kFail};
}

SelfTestCheck PointerChase(const TopDownResult& r) {
  SelfTestCheck c{"pointer_chase", "Backend_Bound largest; Memory_Bound over Core_Bound; DRAM_Bound largest memory level",
                  LevelOneText(r), Outcome::kPass};
  const auto memory = ValueOf(r, "Memory_Bound"), core = ValueOf(r, "Core_Bound"), dram = ValueOf(r, "DRAM_Bound");
  c.measured += absl::StrFormat("; Memory_Bound %s, Core_Bound %s, DRAM_Bound %s", Percent(memory), Percent(core),
                                Percent(dram));
  if (LargestLevelOne(r) != "Backend_Bound") c.outcome = Outcome::kFail;
  if (memory && core && *memory <= *core) c.outcome = Outcome::kFail;
  if (dram) {
    for (const char* level : {"L1_Bound", "L2_Bound", "L3_Bound", "Store_Bound"}) {
      if (const auto v = ValueOf(r, level); v && *v > *dram) c.outcome = Outcome::kFail;
    }
  }
  return c;
}

SelfTestCheck RandomBranch(const TopDownResult& r) {
  SelfTestCheck c{"random_branch", "Bad_Speculation at least 15%, mostly Branch_Mispredicts", LevelOneText(r),
                  Outcome::kPass};
  const auto bad = ValueOf(r, "Bad_Speculation"), mispredicts = ValueOf(r, "Branch_Mispredicts");
  c.measured += "; Branch_Mispredicts " + Percent(mispredicts);
  if (!bad || *bad < 0.15) c.outcome = Outcome::kFail;
  if (bad && mispredicts && *mispredicts < 0.5 * *bad) c.outcome = Outcome::kFail;
  return c;
}

SelfTestCheck CodeFootprint(const TopDownResult& r) {
  SelfTestCheck c{"code_footprint", "Frontend_Bound at least 15%", LevelOneText(r), Outcome::kPass};
  const auto frontend = ValueOf(r, "Frontend_Bound");
  if (!frontend || *frontend < 0.15) c.outcome = Outcome::kFail;
  return c;
}

SelfTestCheck DenseFma(const TopDownResult& r) {
  SelfTestCheck c{"dense_fma", "Retiring largest", LevelOneText(r), Outcome::kPass};
  if (LargestLevelOne(r) != "Retiring") c.outcome = Outcome::kFail;
  return c;
}

SelfTestCheck FalseSharing(const TopDownResult& r) {
  SelfTestCheck c{"false_sharing", "flagged as likely false sharing", "", Outcome::kPass};
  const auto store = ValueOf(r, "Store_Bound"), contested = ValueOf(r, "Contested_Accesses"),
             sharing = ValueOf(r, "False_Sharing");
  c.measured = absl::StrFormat("Store_Bound %s, Contested_Accesses %s, False_Sharing %s", Percent(store),
                               Percent(contested), Percent(sharing));
  const bool flagged = std::any_of(r.diagnoses.begin(), r.diagnoses.end(),
                                   [](const Diagnosis& d) { return d.id == "false_sharing"; });
  if (flagged) {
    c.measured += "; flagged";
  } else if (!store && !contested && !sharing) {
    c.outcome = Outcome::kNotJudged;
    c.measured += ": this key's tree measures none of the nodes that show sharing";
  } else {
    c.outcome = Outcome::kFail;
    c.measured += "; not flagged";
  }
  return c;
}

SelfTestCheck Stream(const TopDownResult& r, std::optional<double> peak_gbps) {
  SelfTestCheck c{"stream", "Backend_Bound largest, Memory_Bound over Core_Bound; bandwidth at least 40% of td "
                            "calibrate's peak where both are known",
                  LevelOneText(r), Outcome::kPass};
  if (LargestLevelOne(r) != "Backend_Bound") c.outcome = Outcome::kFail;
  const auto memory = ValueOf(r, "Memory_Bound"), core = ValueOf(r, "Core_Bound");
  if (memory && core && *memory <= *core) c.outcome = Outcome::kFail;
  const auto socket = r.MetricValue("Socket_Memory_Bytes");
  const auto bytes = socket ? socket : r.MetricValue("DRAM_Read_Bytes");
  const auto seconds = r.MetricValue("Elapsed_Seconds");
  if (bytes && seconds && *seconds > 0) {
    const double gbps = *bytes / *seconds / 1e9;
    c.measured += absl::StrFormat("; %.1f GB/s%s", gbps, socket ? "" : " (estimated from cache misses)");
    if (peak_gbps && *peak_gbps > 0) {
      c.measured += absl::StrFormat(" of a %.1f GB/s peak", *peak_gbps);
      if (gbps < 0.4 * *peak_gbps) c.outcome = Outcome::kFail;
    }
  }
  return c;
}

}  // namespace

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "FAIL";
    case Outcome::kNotJudged: return "not judged";
  }
  return "not judged";
}

const std::vector<Kernel>& Kernels() {
  static const std::vector<Kernel> kernels = {{"pointer_chase", 1}, {"random_branch", 1}, {"code_footprint", 1},
                                              {"dense_fma", 1},     {"false_sharing", 2}, {"stream", 1}};
  return kernels;
}

std::vector<SelfTestCheck> JudgeSoftware(const RunData& run) {
  std::vector<SelfTestCheck> checks;
  const auto task_clock = run.EventIndex("task-clock");
  for (const Kernel& k : Kernels()) {
    SelfTestCheck c{k.region,
                    absl::StrFormat("recorded on %d thread%s, 1 call each; task-clock at most %d × wall time",
                                    k.threads, k.threads == 1 ? "" : "s", k.threads),
                    "", Outcome::kPass};
    const int i = RegionIndex(run, k.region);
    if (i < 0) {
      checks.push_back(Missing(k.region, c.expected));
      continue;
    }
    const Region& region = run.regions[static_cast<size_t>(i)];
    int64_t wall = 0;
    uint64_t calls = 0;
    for (const RegionOnThread& t : region.threads) {
      wall = std::max(wall, t.wall_inclusive_ns);
      calls += t.calls;
    }
    c.measured = absl::StrFormat("%d thread%s, %d call%s, wall %.3f s", region.threads.size(),
                                 region.threads.size() == 1 ? "" : "s", calls, calls == 1 ? "" : "s", wall / 1e9);
    if (static_cast<int>(region.threads.size()) != k.threads || calls != static_cast<uint64_t>(k.threads)) {
      c.outcome = Outcome::kFail;
    }
    const auto cpu_ns = task_clock ? ScaledRegionCount(run, region, *task_clock) : std::nullopt;
    if (cpu_ns) {
      c.measured += absl::StrFormat(", task-clock %.3f s", *cpu_ns / 1e9);
      // 1 ms of slack: the clocks are read at slightly different moments.
      if (*cpu_ns <= 0 || *cpu_ns > k.threads * static_cast<double>(wall) * 1.05 + 1e6) c.outcome = Outcome::kFail;
    } else {
      c.measured += ", task-clock not measured";
      c.outcome = Outcome::kFail;
    }
    checks.push_back(std::move(c));
  }
  return checks;
}

std::vector<SelfTestCheck> JudgeSignatures(const RunData& run, const RunAnalysis& analysis) {
  std::vector<SelfTestCheck> checks;
  for (const Kernel& k : Kernels()) {
    const int i = RegionIndex(run, k.region);
    if (i < 0 || static_cast<size_t>(i) >= analysis.regions.size()) {
      checks.push_back(Missing(k.region, "its signature"));
      continue;
    }
    const TopDownResult& r = analysis.regions[static_cast<size_t>(i)];
    const std::string name = k.region;
    if (!r.AnyMeasured()) {
      checks.push_back({name, "its signature", "no Top-Down node measured", Outcome::kNotJudged});
    } else if (name == "pointer_chase") {
      checks.push_back(PointerChase(r));
    } else if (name == "random_branch") {
      checks.push_back(RandomBranch(r));
    } else if (name == "code_footprint") {
      checks.push_back(CodeFootprint(r));
    } else if (name == "dense_fma") {
      checks.push_back(DenseFma(r));
    } else if (name == "false_sharing") {
      checks.push_back(FalseSharing(r));
    } else {
      checks.push_back(Stream(r, analysis.peak_gbps));
    }
  }
  return checks;
}

std::vector<SelfTestCheck> JudgeReadPaths(const RunData& user_reads, const RunData& system_call_reads) {
  std::vector<SelfTestCheck> checks;
  const auto a = user_reads.EventIndex("instructions");
  const auto b = system_call_reads.EventIndex("instructions");
  for (const Kernel& k : Kernels()) {
    SelfTestCheck c{std::string("read paths: ") + k.region, "instructions within 1% (rdpmc against read())", "",
                    Outcome::kPass};
    const int i = RegionIndex(user_reads, k.region), j = RegionIndex(system_call_reads, k.region);
    const auto x = a && i >= 0 ? ScaledRegionCount(user_reads, user_reads.regions[static_cast<size_t>(i)], *a)
                               : std::nullopt;
    const auto y = b && j >= 0
                       ? ScaledRegionCount(system_call_reads, system_call_reads.regions[static_cast<size_t>(j)], *b)
                       : std::nullopt;
    if (!x || !y || *y <= 0) {
      c.outcome = Outcome::kNotJudged;
      c.measured = "instructions not measured in both runs";
    } else {
      const double diff = std::fabs(*x - *y) / *y;
      c.measured = absl::StrFormat("%.0f against %.0f: %.3f%% apart", *x, *y, diff * 100);
      if (diff > 0.01) c.outcome = Outcome::kFail;
    }
    checks.push_back(std::move(c));
  }
  return checks;
}

std::vector<SelfTestCheck> JudgeMultiplexing(const RunData& multiplexed, const RunAnalysis& multiplexed_analysis,
                                             const RunData& by_pass, const RunAnalysis& by_pass_analysis) {
  std::vector<SelfTestCheck> checks;
  for (const Kernel& k : Kernels()) {
    SelfTestCheck c{std::string("multiplexing: ") + k.region,
                    "each Level-1 node within 5 points + half the uncounted share", "", Outcome::kPass};
    const int i = RegionIndex(multiplexed, k.region), j = RegionIndex(by_pass, k.region);
    if (i < 0 || j < 0 || static_cast<size_t>(i) >= multiplexed_analysis.regions.size() ||
        static_cast<size_t>(j) >= by_pass_analysis.regions.size()) {
      checks.push_back(Missing(c.name, c.expected));
      continue;
    }
    const Region& region = multiplexed.regions[static_cast<size_t>(i)];
    double coverage = 1;
    for (size_t g = 0; g < multiplexed.layout.groups.size(); ++g) {
      if (const auto share = GroupCoverage(region, g)) coverage = std::min(coverage, *share);
    }
    const double allowed = 0.05 + 0.5 * (1 - coverage);
    std::vector<std::string> parts;
    int compared = 0;
    for (const char* node : kLevelOne) {
      const auto x = ValueOf(multiplexed_analysis.regions[static_cast<size_t>(i)], node);
      const auto y = ValueOf(by_pass_analysis.regions[static_cast<size_t>(j)], node);
      if (!x || !y) continue;
      ++compared;
      parts.push_back(absl::StrFormat("%s %.1f/%.1f", node, *x * 100, *y * 100));
      if (std::fabs(*x - *y) > allowed) c.outcome = Outcome::kFail;
    }
    c.measured = absl::StrFormat("coverage %.0f%%, allowed %.1f points: %s", coverage * 100, allowed * 100,
                                 parts.empty() ? "nothing to compare" : absl::StrJoin(parts, ", "));
    if (compared == 0) c.outcome = Outcome::kNotJudged;
    checks.push_back(std::move(c));
  }
  return checks;
}

}  // namespace td::doctor

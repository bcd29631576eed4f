#include "runtime/analysis/topdown_tree.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/base/text_format.h"

namespace td {

std::string FormulaVersionText(const std::string& formula_version) {
  return kOlderFormulaNotePrefix + formula_version;
}

std::string NodeValueText(const TreeNode& n) {
  if (!n.value) return "not measured";
  if (n.no_samples) return "no samples";
  return n.kind == NodeKind::kCyclesFraction ? PercentText(*n.value) + " of cycles" : PercentText(*n.value);
}

bool TopDownResult::AnyMeasured() const {
  return std::any_of(tree.begin(), tree.end(),
                     [](const TreeNode& n) { return n.level == 1 && n.value.has_value(); });
}

const TreeNode* TopDownResult::Find(const std::string& name) const {
  for (const auto& n : tree) {
    if (n.name == name) return &n;
  }
  for (const auto& n : tree) {
    if (std::find(n.former_names.begin(), n.former_names.end(), name) != n.former_names.end()) return &n;
  }
  return nullptr;
}

const TreeNode* TopDownResult::FindSame(const TreeNode& node) const {
  if (const TreeNode* n = Find(node.name)) return n;
  for (const std::string& former : node.former_names) {
    if (const TreeNode* n = Find(former)) return n;
  }
  return nullptr;
}

const Metric* TopDownResult::FindMetric(const std::string& name) const {
  for (const auto& m : metrics) {
    if (m.name == name) return &m;
  }
  for (const auto& m : metrics) {
    if (std::find(m.former_names.begin(), m.former_names.end(), name) != m.former_names.end()) return &m;
  }
  return nullptr;
}

std::optional<double> TopDownResult::MetricValue(const std::string& name) const {
  const Metric* m = FindMetric(name);
  return m != nullptr ? std::optional<double>(m->value) : std::nullopt;
}

namespace {

// Why a node has no value: each missing name ("A or B" when every form
// lacked something) "not measured", or, for an event that did not open on
// the recording machine, which errno it got.
std::string WhyNotMeasured(const std::string& missing,
                           const absl::flat_hash_map<std::string, std::string>& not_opened) {
  const std::vector<std::string> names = absl::StrSplit(missing, " or ");
  if (std::none_of(names.begin(), names.end(), [&](const std::string& n) { return not_opened.contains(n); })) {
    return missing + " not measured";
  }
  std::vector<std::string> said;
  for (const std::string& name : names) {
    const auto it = not_opened.find(name);
    said.push_back(it != not_opened.end() ? absl::StrFormat("%s did not open here (%s)", name, it->second)
                                          : absl::StrCat(name, " not measured"));
  }
  return absl::StrJoin(said, " or ");
}

}  // namespace

TopDownResult AnalyzeCounts(const MetricSet& set, const CountLookup& lookup,
                            EvaluationOptions options) {
  TopDownResult result;
  result.uarch = set.uarch;
  MetricEvaluator evaluator(set, lookup, options);

  // Depth-first order over the tree nodes, children in definition order.
  std::vector<const FormulaDefinition*> tree_defs;
  std::function<void(const std::string&)> visit = [&](const std::string& parent) {
    for (const auto& def : set.nodes) {
      if (def.level > 0 && def.Parent() == parent) {
        tree_defs.push_back(&def);
        visit(def.name);
      }
    }
  };
  visit("");

  for (const FormulaDefinition* def : tree_defs) {
    TreeNode node;
    node.name = def->name;
    node.parent = def->Parent();
    node.level = def->level;
    node.kind = def->kind;
    node.threshold = def->threshold;
    node.former_names = def->former_names;
    const TreeNode* parent = node.parent.empty() ? nullptr : result.Find(node.parent);
    if (parent != nullptr && !parent->value) {
      node.why_not = "parent not measured";  // the subtree is skipped
    } else {
      MetricEvaluator::Trail trail;
      const Value v = evaluator.Evaluate(def->name, &trail);
      for (const std::string& note : trail.notes) {
        if (note.rfind(kEstimatedNotePrefix, 0) == 0 && node.estimated.empty()) node.estimated = kStaticRetireLatency;
        if (note.rfind(kOlderFormulaNotePrefix, 0) == 0 && node.formula_version.empty()) {
          const size_t end = note.find(": ");
          node.formula_version = note.substr(sizeof(kOlderFormulaNotePrefix) - 1, end - (sizeof(kOlderFormulaNotePrefix) - 1));
        }
      }
      if (v.measured) {
        node.value = v.number;
        node.no_samples = v.no_samples;
      } else {
        node.why_not = WhyNotMeasured(v.missing, options.not_opened);
      }
    }
    if (node.no_samples) {
      node.flagged = false;  // nothing was counted: nothing to flag
    } else if (def->flagged_if) {
      // TMA's own rule for this node, over node values (no implied parent condition).
      const Value rule = def->flagged_if->Evaluate([&evaluator](const std::string& n) { return evaluator.Evaluate(n); });
      node.flagged = node.value && rule.measured && rule.number != 0;
    } else {
      const bool parent_flagged = parent == nullptr || parent->flagged;
      node.flagged = node.value && node.threshold && *node.value > *node.threshold && parent_flagged;
    }
    result.tree.push_back(std::move(node));
  }

  // Critical path: from Level 1 down, the largest flagged sibling at each level
  // (siblings share a unit, so comparing them is meaningful).
  std::string parent;
  while (true) {
    TreeNode* best = nullptr;
    for (auto& n : result.tree) {
      if (n.parent == parent && n.flagged && (best == nullptr || *n.value > *best->value)) {
        best = &n;
      }
    }
    if (best == nullptr) break;
    best->critical = true;
    parent = best->name;
  }

  for (const auto& def : set.nodes) {
    if (def.level != 0) continue;
    const Value v = evaluator.Evaluate(def.name);
    if (v.measured) result.metrics.push_back({def.name, v.number, def.former_names, v.no_samples});
  }
  result.notes = evaluator.notes();
  for (const auto& e : evaluator.errors()) result.notes.push_back("error: " + e);
  return result;
}

const std::vector<DiagnosisKind>& DiagnosisKinds() {
  static const auto* kinds = new std::vector<DiagnosisKind>{
      {"false_sharing", "likely false sharing",
       "td diagnosis: the region ran on several threads and stores (or loads of lines modified "
       "by other cores) stall it — the signature of threads writing the same cache lines.",
       "threads write to data on the same 64-byte cache lines: give each thread's data its own "
       "line (alignas(64) or padding), or accumulate in locals and combine once at the end"},
      {"stores_bound", "stores bound", "td diagnosis: on one thread, the store buffer fills.",
       "the store buffer fills: write less (narrower types, fewer passes), use streaming stores "
       "for data not read again soon, and check for 4 KiB aliasing between loads and stores"},
      {"memory_bandwidth", "memory bandwidth bound",
       "td diagnosis: the region moves data at a rate close to what `td calibrate` measured for "
       "this machine, or MEM_Bandwidth is flagged.",
       "the region streams more data than DRAM delivers: block loops for cache reuse, fuse "
       "passes over the same arrays, use smaller element types"},
  };
  return *kinds;
}

namespace {

Diagnosis Diagnosed(const std::string& id, std::string evidence) {
  for (const DiagnosisKind& k : DiagnosisKinds()) {
    if (id == k.id) return {k.id, k.title, std::move(evidence), k.advice};
  }
  return {id, id, std::move(evidence), ""};
}

std::string Evidence(const TreeNode& n) {
  return absl::StrFormat("%s %s (threshold %s)", n.ShortName(), PercentText(*n.value),
                         PercentText(*n.threshold));
}

}  // namespace

void Diagnose(int threads, std::optional<double> peak_gbps, TopDownResult* result) {
  const TreeNode* store = result->Find("Backend_Bound.Memory_Bound.Store_Bound");
  // Gracemont's tree has no Store_Bound: its store-buffer share of Mem_Scheduler stands in.
  if (store == nullptr) store = result->Find("Backend_Bound.Resource_Bound.Mem_Scheduler.ST_Buffer");
  const TreeNode* contested = result->Find("Backend_Bound.Memory_Bound.L3_Bound.Contested_Accesses");
  const TreeNode* false_sharing = result->Find("Backend_Bound.Memory_Bound.Store_Bound.False_Sharing");
  const TreeNode* bandwidth = result->Find("Backend_Bound.Memory_Bound.DRAM_Bound.MEM_Bandwidth");
  std::vector<const TreeNode*> sharing_evidence;
  for (const TreeNode* n : {store, contested, false_sharing}) {
    if (n != nullptr && n->flagged) sharing_evidence.push_back(n);
  }
  if (threads >= 2 && !sharing_evidence.empty()) {
    std::string evidence = absl::StrFormat("%d threads; ", threads);
    for (size_t i = 0; i < sharing_evidence.size(); ++i) {
      evidence += (i ? ", " : "") + Evidence(*sharing_evidence[i]);
    }
    result->diagnoses.push_back(Diagnosed("false_sharing", evidence));
  } else if (store != nullptr && store->flagged) {
    result->diagnoses.push_back(Diagnosed("stores_bound", Evidence(*store)));
  }
  // Bandwidth: the region's DRAM read rate against the measured peak, and
  // the MEM_Bandwidth node where the definitions have it.
  std::vector<std::string> bandwidth_evidence;
  // Socket-wide controller counts when they were opened, else the per-thread lower bound.
  const auto socket_bytes = result->MetricValue("Socket_Memory_Bytes");
  const auto bytes = socket_bytes ? socket_bytes : result->MetricValue("DRAM_Read_Bytes");
  const auto seconds = result->MetricValue("Elapsed_Seconds");
  if (bytes && seconds && *seconds > 0 && peak_gbps && *peak_gbps > 0) {
    const double gbps = *bytes / *seconds / 1e9;
    if (gbps >= kBandwidthFlagShare * *peak_gbps) {
      bandwidth_evidence.push_back(absl::StrFormat(
          "%.1f GB/s %s = %.0f%% of this machine's measured triad peak %.1f GB/s", gbps,
          socket_bytes ? "of memory traffic on the socket (controller counts)" : "of DRAM reads (at least)",
          100 * gbps / *peak_gbps, *peak_gbps));
    }
  }
  if (bandwidth != nullptr && bandwidth->flagged) bandwidth_evidence.push_back(Evidence(*bandwidth));
  if (!bandwidth_evidence.empty()) {
    std::string evidence;
    for (const auto& e : bandwidth_evidence) evidence += (evidence.empty() ? "" : "; ") + e;
    result->diagnoses.push_back(Diagnosed("memory_bandwidth", evidence));
  }
}

}  // namespace td

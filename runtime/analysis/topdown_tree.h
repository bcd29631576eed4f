// The Top-Down tree of one set of counts (a region, a whole run), with the
// paper's hierarchical safety: a node is flagged only when it is above its
// threshold and its parent is flagged (or by TMA's own rule for it, where the
// definition has one); only siblings are compared.
#ifndef TD_RUNTIME_ANALYSIS_TOPDOWN_TREE_H_
#define TD_RUNTIME_ANALYSIS_TOPDOWN_TREE_H_

#include <optional>
#include <string>
#include <vector>

#include "runtime/analysis/metric_evaluator.h"
#include "runtime/uarch/definitions.h"

namespace td {

struct TreeNode {
  std::string name;     // "Backend_Bound.Memory_Bound"
  std::string parent;   // "" at Level 1
  int level = 0;
  NodeKind kind = NodeKind::kSlotsFraction;
  std::optional<double> threshold;
  std::optional<double> value;  // nullopt: not measured
  bool no_samples = false;      // value is 0 from a 0 / 0: reports say "no samples"
  std::string why_not;
  bool flagged = false;
  bool critical = false;  // on the path of largest flagged siblings from Level 1
  // Non-empty when the value rests on an estimate ("static retire latency"):
  // every output shows it beside the value.
  std::string estimated;
  // Non-empty when the value (or one it is built on) came from an older TMA
  // version's formula, because the recording lacks the current one's events:
  // that version ("4.8 (perf 6.12)"), shown beside the value.
  std::string formula_version;
  // The names it had before a TMA rename ("…DRAM_Bound" of "…L3_Miss_Bound"):
  // Find and compare match a tree that uses either.
  std::vector<std::string> former_names;

  std::string ShortName() const { return name.substr(name.rfind('.') + 1); }
};

// How outputs name a value's older formula: "formula of TMA 4.8 (perf 6.12)".
std::string FormulaVersionText(const std::string& formula_version);

struct Metric {
  std::string name;
  double value = 0;
  std::vector<std::string> former_names = {};  // the definition's "formerly": FindMetric finds these too
  bool no_samples = false;                       // value is 0 from a 0 / 0
};

struct Diagnosis {
  std::string id;        // "false_sharing", "stores_bound", "memory_bandwidth"
  std::string title;
  std::string evidence;  // the numbers it used
  std::string advice;    // what to try
};

// The diagnoses td makes, each in one wording: the report's advice and
// `td explain` both show these words.
struct DiagnosisKind {
  const char* id;       // "false_sharing"
  const char* title;    // "likely false sharing"
  const char* meaning;  // what td saw
  const char* advice;   // what to try
};
const std::vector<DiagnosisKind>& DiagnosisKinds();

struct TopDownResult {
  std::string uarch;
  std::vector<TreeNode> tree;    // depth-first: each parent before its children
  std::vector<Metric> metrics;   // level-0 quantities that could be computed (IPC…)
  std::vector<std::string> notes;
  std::vector<Diagnosis> diagnoses;

  bool AnyMeasured() const;
  // By name, or by a name the node had before a rename.
  const TreeNode* Find(const std::string& name) const;
  // `node` of another tree here: by its name or any of its former names.
  const TreeNode* FindSame(const TreeNode& node) const;
  std::optional<double> MetricValue(const std::string& name) const;
  // A level-0 metric by name (or former name); null when it was not computed.
  const Metric* FindMetric(const std::string& name) const;
};

TopDownResult AnalyzeCounts(const MetricSet& set, const CountLookup& lookup,
                            EvaluationOptions options = {});

// Adds the case-study diagnoses; `threads` is how many threads ran the region,
// `peak_gbps` the machine's measured triad bandwidth when known (td calibrate).
void Diagnose(int threads, std::optional<double> peak_gbps, TopDownResult* result);

// Yasin's four Level-1 categories, in the order every report draws them.
struct LevelOneCategory {
  const char* node;         // "Bad_Speculation"
  const char* label;        // "Bad Speculation"
  const char* short_label;  // "Bad Spec", for narrow text columns
  char letter;              // 'S', drawn in the text bar
  const char* css;          // "bs", the HTML bar's class
};
inline constexpr LevelOneCategory kLevelOneCategories[] = {
    {"Frontend_Bound", "Frontend", "Frontend", 'F', "fe"},
    {"Bad_Speculation", "Bad Speculation", "Bad Spec", 'S', "bs"},
    {"Retiring", "Retiring", "Retiring", 'R', "rt"},
    {"Backend_Bound", "Backend", "Backend", 'B', "be"}};

// A node's value for people: "25.3%", "12.0% of cycles", "not measured", or
// "no samples" (0 / 0: nothing was counted, docs/analysis.md).
std::string NodeValueText(const TreeNode& n);

// The share of the measured peak above which a region is called bandwidth bound.
inline constexpr double kBandwidthFlagShare = 0.7;

}  // namespace td

#endif  // TD_RUNTIME_ANALYSIS_TOPDOWN_TREE_H_

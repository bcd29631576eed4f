// The translator behind ImportPerfMetrics (perf_metrics_import.h), internal
// to td. Three files share it: reading perf's metrics and placing them in
// td's tree (perf_metrics_import.cc), the events and literals a formula
// names (perf_metrics_events.cc), and what is kept and written out as a
// definition file (perf_metrics_output.cc).
#ifndef TD_RUNTIME_UARCH_PERF_METRICS_IMPORTER_H_
#define TD_RUNTIME_UARCH_PERF_METRICS_IMPORTER_H_

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/uarch/definitions.h"
#include "runtime/uarch/perf_metrics_import.h"

namespace td::perf_import {

struct PerfMetricEntry {
  std::string name, expr, threshold, scale_unit, brief, unit;
  std::vector<std::string> groups;
  int level = 0;  // Top-Down level, 0 = not a tree node
};

// One event of the event files, with its encoding fields.
struct PerfEventEntry {
  std::string name;  // as the file spells it
  std::string code_text;
  uint64_t code = 0, umask = 0, cmask = 0;
  bool edge = false, inv = false, any = false;
  std::string msr;  // "MSRIndex=… MSRValue=…" when the event needs more than config
  bool deprecated = false;
  // The vendor's mean retire latency in cycles (RetirementLatencyMean), what
  // a ":R" term stands for when no sampled value is at hand.
  std::optional<double> retire_latency_mean;
};

// The translation of one set of files. With `td` (options.extend), td's own
// set for the key: nodes it has are not written, events it knows are named as
// td names them and not declared again.
class Importer {
 public:
  Importer(const PerfImportOptions& options, const MetricSet* td) : options_(options), td_(td) {}

  absl::StatusOr<PerfImportResult> Run(const std::vector<PerfInputFile>& files);

 private:
  using json = nlohmann::json;

  // perf_metrics_import.cc
  absl::Status Load(const std::vector<PerfInputFile>& files);
  void PlaceNodes();
  absl::StatusOr<std::string> Path(const std::string& metric, std::set<std::string>* visiting);
  // The td formula of a metric (a node or an auxiliary); errors say why not.
  absl::StatusOr<std::string> Formula(const std::string& metric);
  absl::StatusOr<std::string> Name(const PerfExprName& name, std::string* depends_on);
  void Threshold(const PerfMetricEntry& m, json* node);
  std::string Skip(const std::string& metric, const std::string& why);
  static std::string AuxiliaryName(const std::string& metric);
  static std::string RenamedFrom(const std::string& metric);
  std::string KindOf(const PerfMetricEntry& m) const;

  // perf_metrics_events.cc
  absl::StatusOr<std::string> Event(const std::string& normalized, const std::string& privilege);
  absl::StatusOr<std::string> Literal(const std::string& literal);
  // "EVENT:R": a constant, the event file's mean retire latency.
  absl::StatusOr<std::string> RetireLatency(const std::string& normalized);
  // This CPU's config of a plain event from its event file (no modifiers, no
  // extra registers), and whether td's table encodes `known` otherwise.
  std::optional<uint64_t> FileConfig(const std::string& normalized) const;
  bool EncodedOtherwise(const EventDefinition& known, const std::string& normalized) const;
  // Records a declared event; returns `formula_name`, the name formulas use.
  std::string Declare(const std::string& normalized, const std::string& formula_name, json entry);

  // perf_metrics_arm_amd.cc
  // arm64 metrics named by "ArchStdEvent": the standard metric of that name
  // (sbsa.json) with the CPU's fields over it, placed before the others.
  void ResolveArchStdMetrics(std::vector<json>* lists);
  bool IsArm() const;
  // An event the event files do not encode: Arm's common event numbers, or
  // (AMD without event files) td's own AMD encoding. NotFound otherwise.
  absl::StatusOr<json> VendorEvent(const std::string& normalized) const;
  static json ArmCounters();

  // perf_metrics_output.cc
  std::vector<std::string> TreeOrder() const;  // depth-first, Level 1 in TMA's order
  json KeptNodes(const std::vector<std::string>& order);
  void DropNodesUsingDropped(json* nodes, std::set<std::string>* kept_paths);
  // Every name the nodes' formulas and rules reach, through auxiliaries.
  std::set<std::string> ReachedNames(const json& nodes) const;
  void MarkEstimated(json* nodes) const;
  std::string RetireLatencyText() const;
  json Definition(const json& nodes, const json& auxiliaries, const json& events, const PerfImportResult& counts) const;

  const PerfImportOptions& options_;
  const MetricSet* td_;  // td's own set of the key when extending it
  std::map<std::string, PerfMetricEntry> metrics_;  // after the PMU filter
  std::vector<std::string> metric_order_;
  std::map<std::string, PerfEventEntry> events_;  // by normalized name
  std::map<std::string, std::string> paths_;      // node metric -> td path
  std::map<std::string, std::string> former_paths_;  // node metric -> its td path under TMA's older names
  std::map<std::string, absl::StatusOr<std::string>> formulas_;  // memo
  std::set<std::string> in_progress_;
  std::set<std::string> auxiliaries_used_;  // metrics written as auxiliaries
  std::map<std::string, json> declared_events_;  // normalized -> td event entry
  std::map<std::string, std::string> formula_names_;  // normalized -> the name formulas use
  std::map<std::string, std::string> event_keys_;     // the name formulas use -> declared_events_ key
  std::vector<std::string> skipped_;
  std::set<std::string> skipped_names_;
  std::set<std::string> used_literals_;
  std::map<std::string, double> retire_latencies_;  // "MEM_INST_RETIRED.LOCK_LOADS:R" -> mean cycles
  std::map<std::string, double> used_retire_latencies_;  // those the kept nodes reach: the key's constants
  std::vector<json> sources_;
  bool arm_ = false;  // arm64 files: ArchStdEvent entries met
  bool amd_ = false;  // AMD's pipeline files: PipelineL groups met
};

// The characters of perf's metric expressions: blanks between tokens, and
// what an event's or a metric's name is made of.
inline bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
inline bool NameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '#';
}

}  // namespace td::perf_import

#endif  // TD_RUNTIME_UARCH_PERF_METRICS_IMPORTER_H_

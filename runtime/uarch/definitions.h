// Microarchitecture definitions: which events exist, how they are spelled,
// and the formulas of every node — loaded from data files (definitions/*.json,
// embedded at build time, or TD_METRICS_DIR), never from C++ branches.
#ifndef TD_RUNTIME_UARCH_DEFINITIONS_H_
#define TD_RUNTIME_UARCH_DEFINITIONS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "nlohmann/json_fwd.hpp"
#include "runtime/uarch/expression.h"
#include "runtime/uarch/counter_model.h"
#include "runtime/uarch/memory_model.h"

namespace td {

enum class NodeKind {
  kSlotsFraction,     // share of pipeline slots (Top-Down tree nodes)
  kCyclesFraction,    // share of cycles (stall-cycle nodes, cycle accounting)
  kRatio,             // any other ratio (IPC, miss ratio…)
  kCount,             // an absolute quantity (SLOTS)
};

// The spelling definition files and the --json report use: "fraction_of_slots"…
const char* NodeKindName(NodeKind kind);

// What a node's "estimated" field says when its formula rests on a vendor's
// mean retire latency (a "EVENT:R" constant) rather than a measured one.
inline constexpr char kStaticRetireLatency[] = "static retire latency";

struct FormulaDefinition {
  std::string name;                   // "Backend_Bound.Memory_Bound", "#CORE_CLKS"
  std::vector<Expression> alternatives;  // the first one that is measured wins
  int level = 0;                      // Top-Down level; 0 = not part of the tree
  std::optional<double> threshold;    // flagged above this (with its parent)
  // TMA's own rule for the node ("flagged_if"), which then replaces
  // "above threshold and parent flagged"; nodes' names stand for their values.
  std::optional<Expression> flagged_if;
  NodeKind kind = NodeKind::kSlotsFraction;
  std::string note;
  std::string family;                 // the file it came from
  // Names it had before ("formerly"): still found by FindNode, so case files
  // and readers of older output that use them keep working.
  std::vector<std::string> former_names;
  // Non-empty (kStaticRetireLatency) when the value may rest on an estimate.
  std::string estimated;
  // Per alternative, the older TMA version it follows ("4.8 (perf 6.12)"),
  // "" for the current one: a value an older formula gives shows it. Older
  // forms come from the file ({"formula", "tma_version"}) or from td's own
  // definitions under a newer vendor tree (definition_versions.h).
  std::vector<std::string> alternative_versions;

  // The version of alternative `i`, "" when current.
  const std::string& VersionOf(size_t i) const;

  // "Backend_Bound" for "Backend_Bound.Memory_Bound"; empty at Level 1.
  std::string Parent() const;
};

struct EventDefinition {
  std::string name;                   // canonical, as in formulas
  std::vector<std::string> spellings; // normalized: the name first, then aliases
  std::string libpfm;                 // libpfm4 string, if known
  std::string config;                 // raw perf_event_attr.config, if known
  // Raw perf_event_attr.config1 (an offcore response value), with `config`
  // only; "" when the event has none.
  std::string config1;
  std::string note;

  // `config` as a number: td's own encoding of the event (a raw perf event on
  // the core PMU); nullopt when the table has none or it is not hex.
  std::optional<uint64_t> RawConfig() const;
  // `config1` as a number; 0 when there is none.
  uint64_t RawConfig1() const;
};

// Everything needed to evaluate one microarchitecture.
struct MetricSet {
  std::string uarch;
  std::string libpfm_pmu;  // libpfm4's name for this core PMU, when it has one
  // The TMA version the formulas follow ("5.2"), "" when the files do not say.
  std::string tma_version;
  // The CPUs of the "cpus" table as perf's mapfile spells them ("GenuineIntel-6-AD").
  std::vector<std::string> cpuids;
  std::vector<std::string> families;
  absl::flat_hash_map<std::string, double> constants;
  std::vector<FormulaDefinition> nodes;        // file order, generic first
  std::vector<FormulaDefinition> auxiliaries;
  std::vector<EventDefinition> events;
  CounterModel counters;  // unknown (general == 0) when no file describes them
  MemoryModel memory;     // empty when no file describes it

  const FormulaDefinition* FindNode(const std::string& name) const;
  const FormulaDefinition* FindAuxiliary(const std::string& name) const;
  // The event a formula name refers to (any spelling), or null.
  const EventDefinition* FindEvent(const std::string& name) const;

  // Indexes the names above for the Find functions (the loader calls it once
  // the set is complete). Evaluating a tree looks names up per term, per
  // region and per thread: a walk of ~400 events there was most of the cost
  // of recomputing a perf case. Positions, not pointers, so copies stay valid;
  // a set changed after indexing is walked instead.
  void IndexNames();

 private:
  struct NameIndex {
    absl::flat_hash_map<std::string, size_t> nodes;  // names and former names
    absl::flat_hash_map<std::string, size_t> auxiliaries;
    absl::flat_hash_map<std::string, size_t> events;  // every normalized spelling
    size_t node_count = 0, auxiliary_count = 0, event_count = 0;
  };
  bool IndexIsCurrent() const {
    return index_.node_count == nodes.size() && index_.auxiliary_count == auxiliaries.size() &&
           index_.event_count == events.size() && (nodes.size() + auxiliaries.size() + events.size()) > 0;
  }
  NameIndex index_;
};

class DefinitionLibrary {
 public:
  // (file name, JSON text) pairs. Every formula is parsed and every name in
  // it checked; errors name the file, the node and the name.
  static absl::StatusOr<DefinitionLibrary> FromTexts(
      const std::vector<std::pair<std::string, std::string>>& files);
  // The files built into td; with `metrics_dir` (TD_METRICS_DIR), those
  // files plus the directory's, a file of the same name replacing td's, and
  // every uarch checked as FromTexts does. td's own files alone are parsed
  // and each uarch's set is built when first asked for: a report needs one
  // or two of the 33 (the test suite checks them all).
  static absl::StatusOr<DefinitionLibrary> Load(const std::string& metrics_dir = "");
  static absl::StatusOr<DefinitionLibrary> LoadDirectory(const std::string& dir);

  absl::StatusOr<MetricSet> ForUarch(const std::string& uarch) const;

  // The library's own set for `uarch` (valid while the library lives), or
  // nullptr when no file defines it or its set has an error; ForUarch says
  // why. No copy: analysis and encoding look sets up per region and per event.
  const MetricSet* Find(const std::string& uarch) const;
  // Every uarch key some file defines, sorted.
  std::vector<std::string> Uarchs() const;

  // The uarch key of a CPU from the "cpus" tables of the files: vendor
  // (vendor_id, or the Arm implementer "0x41"), family, model (the Arm part
  // number) and stepping. A hybrid part gets its whole-part key ("adl").
  absl::StatusOr<std::string> Identify(const std::string& vendor, int family, int model,
                                       int stepping) const;
  // The same from a CPUID as perf's mapfiles spell it: x86
  // "GenuineIntel-6-AD" or "AuthenticAMD-25-61" (vendor, family in decimal,
  // model and an optional stepping in hex), or an Arm MIDR ("0x410fd840").
  absl::StatusOr<std::string> IdentifyCpuid(const std::string& cpuid) const;
  // The uarch whose definitions apply to counts of `pmu` on a part whose
  // whole-part key is `uarch`: the uarch with a "cpus" entry naming `uarch`
  // as its "hybrid" part (or `uarch` + "_hybrid", as perf cases spell it) and
  // `pmu` as its "core_pmu" ("adl" + cpu_atom -> adl_grt). `uarch` itself
  // for a part that is not hybrid.
  std::string UarchForPmu(const std::string& uarch, const std::string& pmu) const;

 private:
  absl::StatusOr<MetricSet> ForUarchUnchecked(const std::string& uarch,
                                              std::string* current_file) const;

  // The files parsed, and a place for each uarch's set; no set built yet.
  static absl::StatusOr<DefinitionLibrary> Parse(const std::vector<std::pair<std::string, std::string>>& files);
  // Builds every uarch's set now: the first error, if any.
  absl::Status BuildAll() const;

  // Each file is parsed once, at load. Each uarch's set is built once, by
  // whichever thread asks first (threads share a library: the job view's
  // loaders), and kept, so ForUarch and Find never build one again. Building
  // all of them took about 45 of a load's 52–56 ms on the development VM
  // (about 1 s under ASan, in every test that loads the library).
  struct File {
    std::string name;
    std::shared_ptr<const nlohmann::json> json;
  };
  struct UarchSet {
    std::once_flag built;
    absl::StatusOr<MetricSet> set;
  };
  const UarchSet* Built(const std::string& uarch) const;  // nullptr: no file defines it
  std::vector<File> files_;
  // Keys fixed at load, so lookups need no lock; copies share the sets.
  absl::flat_hash_map<std::string, std::shared_ptr<UarchSet>> sets_;
};

// The definition files compiled into the library.
const std::vector<std::pair<std::string, std::string>>& EmbeddedDefinitionFiles();

}  // namespace td

#endif  // TD_RUNTIME_UARCH_DEFINITIONS_H_

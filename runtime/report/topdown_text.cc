#include "runtime/report/topdown_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "absl/strings/str_format.h"
#include "runtime/base/byte_strings.h"
#include "runtime/report/explanations.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/report/text_report.h"
#include "runtime/base/text_format.h"

namespace td {

std::string LevelOneBar(const TopDownResult& result, int width) {
  std::string bar;
  double cumulative = 0;
  int drawn = 0;
  for (const LevelOneCategory& c : kLevelOneCategories) {
    const TreeNode* n = result.Find(c.node);
    if (n == nullptr || !n->value || n->no_samples) continue;
    cumulative += std::max(0.0, *n->value);
    const int upto = std::min(width, static_cast<int>(std::lround(cumulative * width)));
    bar.append(static_cast<size_t>(std::max(0, upto - drawn)), c.letter);
    drawn = std::max(drawn, upto);
  }
  return bar;
}

namespace {

// One region's row, rates, Iron-law line, critical path, diagnoses and
// what was not measured.
constexpr char kBold[] = "\x1b[1m";
constexpr char kRed[] = "\x1b[31m";
constexpr char kReset[] = "\x1b[0m";

void AppendRegion(const std::string& label, const TopDownResult& result,
                  const RunAnalysis& analysis, size_t width, const TextReportOptions& options,
                  std::string* out) {
  if (!result.AnyMeasured() && result.metrics.empty() && result.diagnoses.empty()) return;
  *out += absl::StrFormat("%-*s", static_cast<int>(width), label);
  for (const LevelOneCategory& c : kLevelOneCategories) {
    const TreeNode* n = result.Find(c.node);
    const std::string cell = !(n && n->value) ? "—" : n->no_samples ? "no samples" : PercentText(*n->value) + (n->flagged ? "!" : " ");
    // Every cell is 11 columns wide ("—" is 3 bytes, "no samples" 10 columns).
    const std::string padded = cell == "no samples" ? " " + cell : absl::StrFormat("  %*s", cell == "—" ? 11 : 9, cell);
    *out += options.color && n != nullptr && n->flagged ? kRed + padded + kReset : padded;
  }
  const Metric* ipc = result.FindMetric("IPC");
  *out += ipc == nullptr ? "  —" : ipc->no_samples ? "  no samples" : absl::StrFormat("  %.2f", ipc->value);
  *out += "  " + LevelOneBar(result, 40) + "\n";
  if (const auto share = result.MetricValue("Core_Type_Time_Share")) {
    absl::StrAppendFormat(out, "  counted on these cores for %.0f%% of the region's time\n", 100 * *share);
  }

  const auto flops = result.MetricValue("FLOPs");
  const auto seconds = result.MetricValue("Elapsed_Seconds");
  const auto dram = result.MetricValue("DRAM_Read_Bytes");
  const auto socket = result.MetricValue("Socket_Memory_Bytes");
  if (seconds && *seconds > 0 && (flops || dram || socket)) {
    std::string rates;
    if (flops) {
      rates += absl::StrFormat("%.2f GFLOP/s", *flops / *seconds / 1e9);
      if (const auto vector = result.MetricValue("Vector_FLOP_Share")) {
        rates += absl::StrFormat(" (%.0f%% vector)", 100 * *vector);
      }
    }
    if (socket) {
      rates += absl::StrFormat("%s%.2f GB/s memory traffic on the socket", rates.empty() ? "" : ", ",
                               *socket / *seconds / 1e9);
      const auto read = result.MetricValue("Socket_Read_Bytes");
      const auto write = result.MetricValue("Socket_Write_Bytes");
      if (read && write) {
        rates += absl::StrFormat(" (read %.2f, write %.2f)", *read / *seconds / 1e9, *write / *seconds / 1e9);
      }
    }
    if (dram) {
      rates += absl::StrFormat("%s≥ %.2f GB/s DRAM reads", rates.empty() ? "" : ", ",
                               *dram / *seconds / 1e9);
    }
    if (dram || socket) {
      if (analysis.peak_gbps) {
        rates += absl::StrFormat(" (peak %.1f GB/s from td calibrate)", *analysis.peak_gbps);
      }
    }
    absl::StrAppendFormat(out, "  rates: %s\n", rates);
  }
  const auto retired = result.MetricValue("Cycle_Accounting.Retired");
  const auto non_retired = result.MetricValue("Cycle_Accounting.Non_Retired");
  const auto stalls = result.MetricValue("Cycle_Accounting.Stalls");
  if (retired && non_retired && stalls) {
    // Levinthal's view: every cycle dispatches retiring work, discarded work, or nothing.
    absl::StrAppendFormat(out, "  cycles: %.1f%% retired work, %.1f%% non-retired work, %.1f%% stalled\n",
                          100 * *retired, 100 * *non_retired, 100 * *stalls);
  }
  if (const std::string law = IronLawText(result); !law.empty()) absl::StrAppendFormat(out, "  %s\n", law);
  std::string path;
  for (const TreeNode& n : result.tree) {
    if (!n.critical || (options.max_level > 0 && n.level > options.max_level)) continue;
    path += (path.empty() ? "" : " › ") + n.ShortName() + " " + NodeValueText(n);
  }
  if (!path.empty()) {
    absl::StrAppendFormat(out, "  %s▶ %s%s\n", options.color ? kBold : "", path,
                          options.color ? kReset : "");
  }
  for (const Diagnosis& d : result.diagnoses) {
    absl::StrAppendFormat(out, "  diagnosis: %s — %s\n      try: %s\n", d.title, d.evidence,
                          d.advice);
  }
  std::string missing;
  for (const TreeNode& n : result.tree) {
    if (!result.AnyMeasured()) break;  // nothing of the tree was collected: no list
    if (options.max_level > 0 && n.level > options.max_level) continue;
    if (!n.value && n.why_not != "parent not measured") {
      missing += (missing.empty() ? "" : ", ") + n.ShortName();
    }
  }
  if (!missing.empty()) absl::StrAppendFormat(out, "  not measured: %s\n", missing);
  std::string estimated;
  for (const TreeNode& n : result.tree) {
    if (n.value && !n.estimated.empty() && (options.max_level == 0 || n.level <= options.max_level)) {
      estimated += (estimated.empty() ? "" : ", ") + n.ShortName();
    }
  }
  if (!estimated.empty()) absl::StrAppendFormat(out, "  estimated: %s (%s)\n", kStaticRetireLatency, estimated);
  // Nodes the recording could give only an older TMA version's formula, by version.
  std::map<std::string, std::string> older;
  for (const TreeNode& n : result.tree) {
    if (n.value && !n.formula_version.empty() && (options.max_level == 0 || n.level <= options.max_level)) {
      std::string& names = older[n.formula_version];
      names += (names.empty() ? "" : ", ") + n.ShortName();
    }
  }
  for (const auto& [version, names] : older) {
    absl::StrAppendFormat(out, "  older formulas, TMA %s, where this recording lacks the current ones' events: %s\n",
                          version, names);
  }
}

}  // namespace

std::string IronLawText(const TopDownResult& result) {
  const auto instructions = result.MetricValue("Instructions");
  const auto cpi = result.MetricValue("CPI");
  const auto ghz = result.MetricValue("Active_Clock_GHz");
  if (!instructions || !cpi || !ghz || *ghz <= 0) return "";
  // Yasin's starting point: time = instructions × CPI × cycle time.
  // Clamped: counts from a file can make it exceed int64_t nanoseconds.
  const uint64_t ns = std::min(SoftwareIntegerValue(*instructions * *cpi / *ghz),
                               static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  return absl::StrFormat("iron law: %.3g instructions × %.2f CPI ÷ %.2f GHz = %s of CPU time", *instructions, *cpi,
                         *ghz, HumanDuration(static_cast<int64_t>(ns)));
}

std::string FormatExplanations(const RunAnalysis& analysis) {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const auto* results : {&analysis.regions, &analysis.exclusive}) {
    for (const TopDownResult& r : *results) {
      for (const TreeNode& n : r.tree) {
        if (n.flagged) add(n.ShortName());
      }
      for (const Diagnosis& d : r.diagnoses) add(d.id);
    }
  }
  if (names.empty()) return "\nNothing was flagged, so there is nothing to explain.\n";
  std::string out = "\nWhat the flagged nodes and diagnoses mean (td explain lists all):\n";
  for (const std::string& name : names) {
    const Explanation* e = ExplanationFor(name);
    if (e == nullptr) continue;
    absl::StrAppendFormat(&out, "\n%s\n  %s\n  When flagged: %s\n", name, e->meaning, e->to_try);
  }
  return out;
}

std::string FormatTopDownSection(const RunData& data, const RunAnalysis& analysis,
                                 const TextReportOptions& options) {
  std::string out = "\n";
  if (!analysis.HasTrees()) {
    absl::StrAppendFormat(&out, "Top-Down: not available — %s\n", analysis.unavailable);
    return out;
  }
  if (!analysis.unknown_cpu.empty()) {
    absl::StrAppendFormat(&out, "%s\nShowing the generic Level 1 from Linux's topdown events only.\n",
                          analysis.unknown_cpu);
  }
  std::string cores;
  if (analysis.core_type == "cpu_core") cores = ", performance cores (cpu_core) only";
  if (analysis.core_type == "cpu_atom") cores = ", efficiency cores (cpu_atom) only";
  absl::StrAppendFormat(&out,
                        "Top-Down (%s%s): share of pipeline slots; ▶ is the flagged path, bar letters "
                        "F S R B = Frontend, Bad Speculation, Retiring, Backend\n",
                        analysis.uarch, cores);
  size_t width = 6;
  const std::vector<bool> shown = ShownRegions(data, options);
  for (size_t i = 0; i < data.regions.size(); ++i) {
    if (shown[i]) width = std::max(width, data.regions[i].path.size());
  }
  out += absl::StrFormat("%-*s", static_cast<int>(width), "region");
  for (const LevelOneCategory& c : kLevelOneCategories) out += absl::StrFormat("  %9s", c.short_label);
  out += "  IPC\n";
  for (size_t i = 0; i < data.regions.size() && i < analysis.regions.size(); ++i) {
    if (!shown[i]) continue;
    // Paths are printable as td builds them; one read from a file may not be.
    const std::string path = Printable(data.regions[i].path);
    AppendRegion(path, analysis.regions[i], analysis, width, options, &out);
    if (i < analysis.exclusive.size() && !analysis.exclusive[i].tree.empty()) {
      AppendRegion(path + " (exclusive)", analysis.exclusive[i], analysis, width,
                   options, &out);
    }
  }
  // Hybrid: each other core type's own trees, never mixed with these.
  for (const RunAnalysis& other : analysis.other_core_types) out += FormatTopDownSection(data, other, options);
  return out;
}

}  // namespace td

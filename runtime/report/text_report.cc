#include "runtime/report/text_report.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/text_format.h"
#include "runtime/regions/node_stats.h"
#include "runtime/report/call_times_text.h"
#include "runtime/report/counter_text.h"
#include "runtime/report/mpi_text.h"
#include "runtime/report/run_identity.h"
#include "runtime/analysis/measurement_conditions.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/report/topdown_text.h"

namespace td {

namespace {

struct TextRow {
  std::string label;
  uint64_t calls = 0;
  int64_t wall_inclusive_ns = 0;
  int64_t wall_exclusive_ns = 0;
  bool measured = false;
  std::vector<EventDelta> events;
  std::string note;
};

class TableWriter {
 public:
  explicit TableWriter(const RunData& data) : data_(data) {}

  void Add(TextRow row) { rows_.push_back(std::move(row)); }

  std::string Render() const {
    size_t label_width = 6;
    for (const TextRow& r : rows_) label_width = std::max(label_width, DisplayColumns(r.label));
    std::vector<std::string> header = {"calls", "wall incl", "wall excl"};
    for (const SoftwareMetric& m : SoftwareMetricColumns(data_)) header.push_back(m.label);
    std::vector<size_t> widths;
    for (const auto& h : header) widths.push_back(std::max<size_t>(DisplayColumns(h), 10));

    std::string out = PadRight("region", label_width);
    for (size_t c = 0; c < header.size(); ++c) out += "  " + PadLeft(header[c], widths[c]);
    out += '\n';
    for (const TextRow& r : rows_) {
      std::vector<std::string> cells = {WithThousands(r.calls), HumanDuration(r.wall_inclusive_ns),
                                        HumanDuration(r.wall_exclusive_ns)};
      const std::vector<SoftwareMetric> software =
          SoftwareMetricsOf(data_, r.measured ? absl::MakeConstSpan(r.events) : absl::Span<const EventDelta>(), r.wall_inclusive_ns);
      for (const SoftwareMetric& m : software) cells.push_back(FormatSoftwareValue(m));
      out += PadRight(r.label, label_width);
      for (size_t c = 0; c < cells.size(); ++c) out += "  " + PadLeft(cells[c], widths[c]);
      if (!r.note.empty()) out += "  " + r.note;
      out += '\n';
    }
    return out;
  }

 private:
  const RunData& data_;
  std::vector<TextRow> rows_;
};

std::string RegionNote(const Region& region) {
  uint64_t unterminated = 0, implicit = 0, recursive = 0;
  for (const RegionOnThread& t : region.threads) {
    unterminated += t.unterminated;
    implicit += t.closed_implicitly;
    recursive += t.recursive_calls;
  }
  std::vector<std::string> notes;
  if (unterminated) notes.push_back(absl::StrCat("unterminated ×", unterminated));
  if (implicit) notes.push_back(absl::StrCat("closed by an outer END ×", implicit));
  if (recursive) notes.push_back(absl::StrCat("recursive calls ", recursive));
  if (notes.empty()) return "";
  std::string joined;
  for (const auto& n : notes) joined += (joined.empty() ? "" : ", ") + n;
  return "[" + joined + "]";
}

// Indentation stops growing past this depth, so that a deeply nested
// recording does not make each label as long as its depth.
constexpr size_t kMaxIndentLevels = 32;

// Rows for `root` and its subtree, depth first. A loop with an explicit
// stack: a recording can nest regions deeper than the call stack.
void AddRegionRows(const RunData& data, const std::vector<bool>& shown, int root, bool last_root, bool per_thread,
                   TableWriter* table) {
  struct Pending {
    int index;
    std::string prefix;
    bool last;
    bool top;
    size_t depth;
  };
  std::vector<Pending> pending;
  pending.push_back({root, "", last_root, true, 0});
  const size_t num_events = data.layout.events.size();
  while (!pending.empty()) {
    const Pending node = std::move(pending.back());
    pending.pop_back();
    const Region& region = data.regions[node.index];
    const RegionTotals totals = Totals(region, num_events);
    TextRow row;
    const std::string branch = node.top ? "" : (node.last ? "└─ " : "├─ ");
    row.label = node.prefix + branch + Printable(region.name);  // ESC, other controls, bad UTF-8 as \xHH
    row.calls = totals.calls;
    row.wall_inclusive_ns = totals.wall_inclusive_ns;
    row.wall_exclusive_ns = totals.wall_exclusive_ns;
    row.measured = totals.counters_measured;
    row.events = totals.events;
    row.note = RegionNote(region);
    if (region.threads.size() > 1) {
      absl::StrAppend(&row.note, row.note.empty() ? "" : " ",
                      absl::StrFormat("(%d threads; wall = longest)", region.threads.size()));
    }
    table->Add(std::move(row));

    const std::string child_prefix = node.top                        ? ""
                                     : node.depth >= kMaxIndentLevels ? node.prefix
                                                                      : node.prefix + (node.last ? "   " : "│  ");
    if (per_thread && data.threads.size() > 1) {
      for (const RegionOnThread& t : region.threads) {
        TextRow trow;
        trow.label = child_prefix + (region.children.empty() ? "   " : "│  ") +
                     absl::StrFormat("· thread %d", t.thread);
        trow.calls = t.calls;
        trow.wall_inclusive_ns = t.wall_inclusive_ns;
        trow.wall_exclusive_ns = t.wall_exclusive_ns;
        trow.measured = t.events.size() == num_events;
        trow.events.assign(t.events.begin(), t.events.end());
        table->Add(std::move(trow));
      }
    }
    // Only children that name this region as parent, so the walk stays in
    // the array and ends; pushed last first so they come out in order.
    std::vector<int> children;
    for (const int child : region.children) {
      if (child < 0 || static_cast<size_t>(child) >= data.regions.size() ||
          data.regions[static_cast<size_t>(child)].parent != node.index || !shown[static_cast<size_t>(child)]) {
        continue;
      }
      children.push_back(child);
    }
    for (size_t c = children.size(); c-- > 0;) {
      pending.push_back({children[c], child_prefix, c + 1 == children.size(), false, node.depth + 1});
    }
  }
}

}  // namespace

bool RegionSelected(const RunData& data, size_t index, const std::string& filter) {
  if (filter.empty()) return true;
  for (int r = static_cast<int>(index); r >= 0; r = data.regions[r].parent) {
    if (data.regions[r].path == filter || data.regions[r].name == filter) return true;
  }
  return false;
}

std::vector<bool> ShownRegions(const RunData& data, const TextReportOptions& options) {
  const size_t n = data.regions.size();
  std::vector<bool> shown(n);
  std::vector<size_t> selected;
  for (size_t r = 0; r < n; ++r) {
    shown[r] = RegionSelected(data, r, options.region);
    if (shown[r]) selected.push_back(r);
  }
  if (options.max_regions == 0 || selected.size() <= options.max_regions) return shown;
  std::vector<int64_t> wall(n, 0);
  for (const size_t r : selected) wall[r] = Totals(data.regions[r], 0).wall_inclusive_ns;
  // Longest first; ties in recording order, so the choice is the same every time.
  std::stable_sort(selected.begin(), selected.end(), [&wall](size_t a, size_t b) { return wall[a] > wall[b]; });
  std::fill(shown.begin(), shown.end(), false);
  for (size_t k = 0; k < options.max_regions; ++k) {
    // The region and what contains it; a parent index that does not lead
    // upwards ends the climb (the reader checks this, a hand-made run may not).
    size_t steps = 0;
    for (int r = static_cast<int>(selected[k]); r >= 0 && static_cast<size_t>(r) < n && steps <= n; ++steps) {
      if (!RegionSelected(data, static_cast<size_t>(r), options.region) || shown[static_cast<size_t>(r)]) break;
      shown[static_cast<size_t>(r)] = true;
      r = data.regions[static_cast<size_t>(r)].parent;
    }
  }
  return shown;
}

std::string ThreadLabel(const RunData& data, uint32_t thread) {
  const int openmp = thread < data.threads.size() ? data.threads[thread].openmp_thread : -1;
  return openmp >= 0 ? absl::StrFormat("thread %d (OpenMP %d)", thread, openmp) : absl::StrFormat("thread %d", thread);
}

// The shown regions whose spread covers more than one thread (an OpenMP
// team's, or any threads'; thread_spread.h): wall time min, mean, max over
// the threads, imbalance = max / mean, and the slowest thread, as the job
// view does for ranks; then the nested copies counted and the regions whose
// CPU time includes team threads. Empty when no such region is shown.
std::string FormatAcrossThreads(const RunData& data, const std::vector<bool>& shown) {
  const std::vector<ThreadSpread> spreads = TeamSpreads(data);
  std::string rows;
  std::string copies;
  for (size_t r = 0; r < data.regions.size(); ++r) {
    const ThreadSpread& s = spreads[r];
    if (!shown[r] || s.threads < 2) continue;
    absl::StrAppendFormat(&rows, "  %-24s %7d %10s %10s %10s %9s  %s\n", Printable(data.regions[r].path), s.threads,
                          HumanDuration(s.min), HumanDuration(static_cast<int64_t>(s.mean + 0.5)), HumanDuration(s.max),
                          s.mean > 0 ? absl::StrFormat("%.2f", s.Imbalance()) : "—", ThreadLabel(data, s.slowest));
    std::vector<std::string> paths;
    for (const size_t c : s.copies) paths.push_back(Printable(data.regions[c].path));
    if (!paths.empty()) {
      absl::StrAppendFormat(&copies, "  %s: with the threads that ran it only nested, in %s\n",
                            Printable(data.regions[r].path), absl::StrJoin(paths, ", "));
    }
    if (!s.outer_copies.empty()) {
      absl::StrAppendFormat(&copies,
                            "  %s: %s %s also opened it around the team's (a recursive call): %s outer; a "
                            "different name around the parallel region gives the team's own times\n",
                            Printable(data.regions[r].path), s.outer_copies.size() == 1 ? "thread" : "threads",
                            absl::StrJoin(s.outer_copies, ", "),
                            s.outer_copies.size() == 1 ? "its time is the" : "their times are the");
    }
  }
  if (rows.empty()) return "";
  std::string out = absl::StrFormat("\nacross threads (imbalance = the slowest thread's wall time / the mean over the "
                                    "threads that ran the region):\n  %-24s %7s %10s %10s %10s %9s  %s\n",
                                    "region", "threads", "wall min", "wall mean", "wall max", "imbalance", "slowest") +
                    rows + copies;
  std::string team;
  const std::vector<TeamCpu> cpu = TeamTaskClock(data, spreads);
  for (size_t r = 0; r < data.regions.size(); ++r) {
    if (!shown[r] || cpu[r].team_paths.empty() || !cpu[r].team_ns) continue;
    absl::StrAppendFormat(&team, "  %-24s %10s (its own threads %s; + %s)\n", Printable(data.regions[r].path),
                          HumanDuration(static_cast<int64_t>(*cpu[r].team_ns + 0.5)),
                          cpu[r].own_ns ? HumanDuration(static_cast<int64_t>(*cpu[r].own_ns + 0.5)) : "—",
                          Printable(absl::StrJoin(cpu[r].team_paths, ", ")));
  }
  if (!team.empty()) {
    out += "team CPU (task-clock of the region's threads plus the team threads' copies run inside it; threads "
           "that ran no marker are not measured):\n" + team;
  }
  return out;
}

// One line: what td took out of every region per marker pair, and how to
// see the raw values.
std::string MarkerCostLine(const RunData& data) {
  const MarkerCost& cost = *data.marker_cost;
  std::string line = absl::StrFormat("td's own cost taken out per marker pair: wall %.0f ns inside the region, %.0f ns around it",
                                     cost.inside_wall_ns, cost.around_wall_ns);
  if (const std::optional<size_t> e = data.EventIndex("task-clock");
      e && cost.inside.size() == data.layout.events.size()) {
    absl::StrAppendFormat(&line, "; task-clock %.0f ns inside, %.0f ns around", cost.inside[*e], cost.around[*e]);
  }
  absl::StrAppendFormat(&line, " (measured over %d pairs at exit; TD_COMPENSATE=0 for raw values)\n", cost.pairs);
  if (cost.wall_times_held != 0) {
    absl::StrAppendFormat(&line,
                          "%d region wall time%s would have gone below 0 or below %s children's with it taken out "
                          "and %s held there: the cost measured at exit exceeds what those regions' pairs cost\n",
                          cost.wall_times_held, cost.wall_times_held == 1 ? "" : "s",
                          cost.wall_times_held == 1 ? "its" : "their", cost.wall_times_held == 1 ? "is" : "are");
  }
  return line;
}

// One line: the share of calls read (TD_SAMPLE, td_region_sample), over the
// whole run, or over the regions with an interval of their own.
std::string SampledLine(const RunData& data) {
  uint64_t calls = 0;
  uint64_t read = 0;
  std::vector<std::string> own;  // "name 1 in N", each region name once
  std::set<std::string> listed;
  for (const Region& region : data.regions) {
    const uint32_t every = data.SampleEveryOf(region);
    // A sweep's values share their name's interval: named once.
    if (region.sample_every != 0 && listed.insert(region.base_name).second) {
      own.push_back(absl::StrFormat("%s 1 in %d", Printable(region.base_name), every));
    }
    if (data.sample_every <= 1 && region.sample_every == 0) continue;
    for (const RegionOnThread& t : region.threads) {
      calls += t.calls;
      read += MeasuredCalls(t.calls, t.recursive_calls, every);
    }
  }
  const std::string regions = absl::StrJoin(own, ", ");
  if (data.sample_every > 1) {
    return absl::StrFormat("sampled (TD_SAMPLE=%d%s): times and counts read on 1 call in %d per region and thread "
                           "(%s of %s calls) and scaled to all calls; call counts are exact\n",
                           data.sample_every, own.empty() ? "" : "; td_region_sample: " + regions, data.sample_every,
                           WithThousands(read), WithThousands(calls));
  }
  return absl::StrFormat("sampled (td_region_sample: %s): times and counts read on those calls per thread (%s of %s "
                         "calls of these regions) and scaled to all calls; call counts are exact\n",
                         regions, WithThousands(read), WithThousands(calls));
}

// What may have spoiled the measurement (measurement_conditions.h); the
// first few lines, the JSON holds them all.
std::string FormatConditions(const RunData& data) {
  constexpr size_t kShown = 10;
  const std::vector<ConditionWarning> warnings = CheckMeasurementConditions(data);
  if (warnings.empty()) return "";
  std::string out = "\nmeasurement conditions:\n";
  for (size_t i = 0; i < warnings.size() && i < kShown; ++i) {
    absl::StrAppendFormat(&out, "  %s\n", Printable(warnings[i].text));
  }
  if (warnings.size() > kShown) {
    absl::StrAppendFormat(&out, "  … %d more in the JSON (td report --json)\n", warnings.size() - kShown);
  }
  return out;
}

std::string FormatTextReport(const RunData& data, const RunAnalysis* analysis,
                             const TextReportOptions& options) {
  std::string out;
  const int64_t elapsed = data.program.end_unix_ns - data.program.start_unix_ns;
  absl::StrAppendFormat(&out, "td report: %s (pid %d), %d thread%s, %s measured, backend %s\n",
                        Printable(data.program.name), data.program.pid, data.threads.size(),
                        data.threads.size() == 1 ? "" : "s", HumanDuration(elapsed), Printable(data.backend));
  out += RunIdentityLines(data, analysis);
  absl::StrAppendFormat(&out, "cpu: %s (%s family %d model %d), %d logical CPUs\n",
                        Printable(data.machine.cpu_model_name), Printable(data.machine.cpu_vendor),
                        data.machine.cpu_family, data.machine.cpu_model,
                        data.machine.logical_cpus);
  const Availability& a = data.availability;
  if (!a.hardware_counters) {
    absl::StrAppendFormat(&out, "hardware counters unavailable: %s\n", Printable(a.hardware_reason));
  }
  absl::StrAppendFormat(&out, "measured: %s\n", Printable(a.measured));
  if (data.partial) {
    absl::StrAppendFormat(&out, "partial: last flushed at +%.0f s (%s); the program did not reach its end, so this "
                                "is its data up to then, open regions counted up to the flush\n",
                          static_cast<double>(data.partial->flushed_unix_ns - data.program.start_unix_ns) / 1e9,
                          Printable(data.partial->reason));
  }
  if (!a.memory.empty()) absl::StrAppendFormat(&out, "memory traffic: %s\n", Printable(a.memory));
  if (data.marker_cost && data.marker_cost->taken_out) out += MarkerCostLine(data);
  if (data.Sampled()) out += SampledLine(data);
  for (const ThreadInfo& t : data.threads) {
    if (!t.counters_measured && a.software_counters) {
      absl::StrAppendFormat(&out, "thread %d: counters not measured: %s\n", t.index,
                            Printable(t.counters_error));
    }
  }
  out += '\n';
  if (data.regions.empty()) {
    out += "no regions were recorded\n";
    return out;
  }
  TableWriter table(data);
  const std::vector<bool> shown = ShownRegions(data, options);
  // Roots: top-level regions, or the regions the filter names.
  std::vector<int> roots;
  size_t selected = 0;
  int64_t longest_hidden_ns = 0;
  for (size_t r = 0; r < data.regions.size(); ++r) {
    const int parent = data.regions[r].parent;
    const bool in_filter = RegionSelected(data, r, options.region);
    const bool parent_in_filter = parent >= 0 && RegionSelected(data, parent, options.region);
    selected += in_filter;
    if (in_filter && !shown[r]) {
      longest_hidden_ns = std::max(longest_hidden_ns, Totals(data.regions[r], 0).wall_inclusive_ns);
    }
    if (shown[r] && !parent_in_filter) roots.push_back(static_cast<int>(r));
  }
  if (roots.empty()) {
    absl::StrAppendFormat(&out, "no region matches \"%s\"\n", Printable(options.region));
    return out;
  }
  const bool folded = options.max_regions != 0;
  const bool thread_rows = options.per_thread && (!folded || data.threads.size() <= kFoldedThreadRows);
  for (size_t i = 0; i < roots.size(); ++i) {
    AddRegionRows(data, shown, roots[i], i + 1 == roots.size(), thread_rows, &table);
  }
  out += table.Render();
  const size_t shown_count = static_cast<size_t>(std::count(shown.begin(), shown.end(), true));
  if (shown_count < selected) {
    absl::StrAppendFormat(&out, "… %s more regions, none longer than %s inclusive: `td report --all` on the JSON "
                                "shows every region (TD_REPORT_REGIONS sets how many are shown here)\n",
                          WithThousands(selected - shown_count), HumanDuration(longest_hidden_ns));
  }
  if (options.per_thread && !thread_rows && data.threads.size() > 1) {
    absl::StrAppendFormat(&out, "per-thread rows of the %d threads left out: `td report --all --threads` shows them\n",
                          data.threads.size());
  }
  out += FormatAcrossThreads(data, shown);
  out += FormatCallTimesSection(data, shown);
  out += FormatMpiSection(data, shown);
  out += FormatConditions(data);
  out += FormatCounterSection(data, options);
  if (analysis != nullptr) out += FormatTopDownSection(data, *analysis, options);
  if (data.threads.size() > 1) {
    out += "\nthreads:";
    for (const ThreadInfo& t : data.threads) {
      absl::StrAppendFormat(&out, " %d=tid %d%s%s", t.index, t.tid,
                            t.openmp_thread >= 0 ? absl::StrFormat(" (OpenMP %d)", t.openmp_thread) : "",
                            t.exited_before_finalize ? " (exited early)" : "");
    }
    out += '\n';
  }
  size_t warnings = 0;
  for (const Diagnostic& d : data.diagnostics) warnings += d.severity != Severity::kNotice;
  if (warnings != 0) {
    absl::StrAppendFormat(&out, "\n%d problem%s reported during the run:\n", warnings,
                          warnings == 1 ? "" : "s");
    for (const Diagnostic& d : data.diagnostics) {
      if (d.severity != Severity::kNotice) {
        absl::StrAppendFormat(&out, "  %s: %s\n", SeverityName(d.severity), Printable(d.message));
      }
    }
  }
  return out;
}

}  // namespace td

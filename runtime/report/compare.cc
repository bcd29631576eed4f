#include "runtime/report/compare.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/base/byte_strings.h"
#include "runtime/report/html_report.h"
#include "runtime/analysis/measurement_conditions.h"
#include "runtime/analysis/software_metrics.h"
#include "runtime/report/text_report.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

constexpr char kNone[] = "—";

struct CompareRow {
  std::string name;
  std::vector<std::string> cells;  // as text and HTML show them
  std::vector<std::string> csv;    // empty: the cells, "—" left empty
};

std::string Cell(const TreeNode* n) {
  if (n == nullptr || !n->value) return kNone;
  if (n->no_samples) return "no samples";  // 0 / 0: nothing was counted (docs/analysis.md)
  return absl::StrFormat("%.1f%%%s", 100 * *n->value, n->flagged ? "!" : "");
}

// Speedup and IPC lead, as in the paper's tables.
void AddHeadlineRows(const std::vector<CompareColumn>& columns, std::vector<CompareRow>* rows) {
  CompareRow speedup{"Speedup", {}, {}};
  CompareRow ipc{"IPC", {}, {}};
  const double first = static_cast<double>(columns.front().wall_ns);
  for (const CompareColumn& c : columns) {
    speedup.cells.push_back(c.wall_ns > 0 ? absl::StrFormat("%.2f", first / static_cast<double>(c.wall_ns))
                                          : kNone);
    const Metric* v = c.tree ? c.tree->FindMetric("IPC") : nullptr;
    ipc.cells.push_back(v == nullptr ? kNone : v->no_samples ? "no samples" : absl::StrFormat("%.2f", v->value));
  }
  rows->push_back(std::move(speedup));
  rows->push_back(std::move(ipc));
}

// The first column that has a tree gives the node order; null when none has.
const TopDownResult* TreeShape(const std::vector<CompareColumn>& columns) {
  for (const CompareColumn& c : columns) {
    if (c.tree != nullptr && !c.tree->tree.empty()) return c.tree;
  }
  return nullptr;
}

// Levels 1 and 2, and deeper nodes only where some column flags them.
void AddNodeRows(const std::vector<CompareColumn>& columns, const TopDownResult& shape,
                 std::vector<CompareRow>* rows) {
  for (const TreeNode& node : shape.tree) {
    bool keep = node.level <= 2;
    for (const CompareColumn& c : columns) {
      const TreeNode* n = c.tree ? c.tree->FindSame(node) : nullptr;
      keep |= n != nullptr && n->flagged;
    }
    if (!keep) continue;
    CompareRow row{std::string(2 * (node.level - 1), ' ') + node.ShortName(), {}, {}};
    for (const CompareColumn& c : columns) row.cells.push_back(Cell(c.tree ? c.tree->FindSame(node) : nullptr));
    rows->push_back(std::move(row));
  }
}

const SoftwareMetric* FindMetric(const CompareColumn& column, const std::string& key) {
  for (const SoftwareMetric& m : column.software) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

// For CSV: nanoseconds and counts as integers, CPUs with two decimals.
std::string RawValue(const SoftwareMetric* m) {
  if (m == nullptr || !m->value) return "";
  if (m->unit == SoftwareUnit::kCpus) return absl::StrFormat("%.2f", *m->value);
  return absl::StrCat(SoftwareIntegerValue(*m->value));  // clamped: a file's counts may pass 2^64
}

// This column's value over the first column's; "—" when either is missing
// or the first is 0 (no ratio to take).
std::string Ratio(const SoftwareMetric* m, const SoftwareMetric* base) {
  if (m == nullptr || base == nullptr || !m->value || !base->value || *base->value <= 0) return kNone;
  return absl::StrFormat("%.2f", *m->value / *base->value);
}

// Each software metric some column holds, in the order they first appear.
std::vector<const SoftwareMetric*> MetricKinds(const std::vector<CompareColumn>& columns) {
  std::vector<const SoftwareMetric*> kinds;
  for (const CompareColumn& c : columns) {
    for (const SoftwareMetric& m : c.software) {
      const bool seen = std::any_of(kinds.begin(), kinds.end(),
                                    [&](const SoftwareMetric* k) { return k->key == m.key; });
      if (!seen) kinds.push_back(&m);
    }
  }
  return kinds;
}

// Wall time, calls, then each software metric with its ratio to the first column.
void AddMeasuredRows(const std::vector<CompareColumn>& columns, std::vector<CompareRow>* rows) {
  CompareRow wall{"Wall time", {}, {}};
  CompareRow calls{"Calls", {}, {}};
  for (const CompareColumn& c : columns) {
    wall.cells.push_back(HumanDuration(c.wall_ns));
    wall.csv.push_back(absl::StrCat(c.wall_ns));
    calls.cells.push_back(WithThousands(c.calls));
    calls.csv.push_back(absl::StrCat(c.calls));
  }
  rows->push_back(std::move(wall));
  rows->push_back(std::move(calls));
  for (const SoftwareMetric* kind : MetricKinds(columns)) {
    CompareRow value{kind->label, {}, {}};
    CompareRow ratio{kind->label + " ratio", {}, {}};
    const SoftwareMetric* base = FindMetric(columns.front(), kind->key);
    for (const CompareColumn& c : columns) {
      const SoftwareMetric* m = FindMetric(c, kind->key);
      value.cells.push_back(m != nullptr ? FormatSoftwareValue(*m) : kNone);
      value.csv.push_back(RawValue(m));
      ratio.cells.push_back(Ratio(m, base));
    }
    rows->push_back(std::move(value));
    rows->push_back(std::move(ratio));
  }
}

std::string NoTreeNote(const std::vector<CompareColumn>& columns) {
  const bool software = std::any_of(columns.begin(), columns.end(),
                                    [](const CompareColumn& c) { return !c.software.empty(); });
  return software ? "no Top-Down tree: these runs hold no hardware counts; speedup, calls and software "
                    "counters only"
                  : "no Top-Down tree: these runs hold no hardware counts; only the speedup and calls "
                    "are measured";
}

// "multiply1 = region matmul/multiply1 of td_matmul (pid 4242)"
std::string Legend(const CompareColumn& c) {
  return absl::StrFormat("%s = region %s of %s", c.label, c.region, c.run);
}

std::string FormatHtml(const std::vector<CompareColumn>& columns, const std::vector<CompareRow>& rows, bool tree) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>td compare</title>"
      "<style>body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
      "td,th{border-bottom:1px solid #ddd;padding:.2em .8em;text-align:right}"
      "td:first-child,th:first-child{text-align:left}.flagged{color:#b00;font-weight:600}"
      ".what th{font-weight:normal;color:#666}</style>"
      "</head><body><h1>td compare</h1>\n<table>\n<tr><th></th>";
  for (const CompareColumn& c : columns) out += "<th>" + HtmlEscape(c.label) + "</th>";
  out += "</tr>\n<tr class=\"what\"><th>region</th>";
  for (const CompareColumn& c : columns) out += "<th>" + HtmlEscape(c.region) + "</th>";
  out += "</tr>\n<tr class=\"what\"><th>run</th>";
  for (const CompareColumn& c : columns) out += "<th>" + HtmlEscape(c.run) + "</th>";
  out += "</tr>\n";
  for (const CompareRow& r : rows) {
    const size_t indent = r.name.find_first_not_of(' ');
    absl::StrAppendFormat(&out, "<tr><td style=\"padding-left:%.1fem\">%s</td>", 0.8 + indent * 0.6,
                          HtmlEscape(r.name.substr(indent)));
    for (const auto& cell : r.cells) {
      const bool flagged = !cell.empty() && cell.back() == '!';
      absl::StrAppendFormat(&out, "<td%s>%s</td>", flagged ? " class=\"flagged\"" : "", HtmlEscape(cell));
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  if (!tree) out += "<p>" + HtmlEscape(NoTreeNote(columns)) + ".</p>\n";
  return out + "</body></html>\n";
}

std::string FormatCsv(const std::vector<CompareColumn>& columns, const std::vector<CompareRow>& rows) {
  std::vector<std::string> header = {"row"};
  for (const CompareColumn& c : columns) header.push_back(CsvField(c.label));
  std::string out = absl::StrJoin(header, ",") + "\n";
  for (const CompareRow& r : rows) {
    std::vector<std::string> fields = {CsvField(r.name.substr(r.name.find_first_not_of(' ')))};
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const std::string& cell = r.csv.empty() ? r.cells[i] : r.csv[i];
      fields.push_back(cell == kNone ? "" : CsvField(cell));
    }
    out += absl::StrJoin(fields, ",") + "\n";
  }
  // What each column is, after the numbers so the header stays one line.
  std::vector<std::string> region = {"region"};
  std::vector<std::string> run = {"run"};
  for (const CompareColumn& c : columns) {
    region.push_back(CsvField(c.region));
    run.push_back(CsvField(c.run));
  }
  return out + absl::StrJoin(region, ",") + "\n" + absl::StrJoin(run, ",") + "\n";
}

std::string FormatText(const std::vector<CompareColumn>& columns, const std::vector<CompareRow>& rows, bool tree) {
  std::string out;
  for (const CompareColumn& c : columns) out += Legend(c) + "\n";
  out += "\n";
  size_t name_width = 6;
  for (const CompareRow& r : rows) name_width = std::max(name_width, r.name.size());
  std::vector<size_t> widths;
  for (size_t i = 0; i < columns.size(); ++i) {
    widths.push_back(std::max<size_t>(DisplayColumns(columns[i].label), 8));
    for (const CompareRow& r : rows) widths[i] = std::max(widths[i], DisplayColumns(r.cells[i]));
  }
  out += std::string(name_width, ' ');
  for (size_t i = 0; i < columns.size(); ++i) out += "  " + PadLeft(columns[i].label, widths[i]);
  out += "\n";
  for (const CompareRow& r : rows) {
    out += r.name + std::string(name_width - r.name.size(), ' ');
    for (size_t i = 0; i < r.cells.size(); ++i) out += "  " + PadLeft(r.cells[i], widths[i]);
    out += "\n";
  }
  if (!tree) out += "(" + NoTreeNote(columns) + ")\n";
  return out;
}

}  // namespace

CompareColumn MakeCompareColumn(const RunData& run, size_t region, const RunAnalysis& analysis,
                                std::string label) {
  const Region& r = run.regions[region];
  const RegionTotals totals = Totals(r, 0);
  CompareColumn column;
  // Shown to people: control bytes and invalid UTF-8 as \xHH (Printable).
  column.label = Printable(label);
  column.wall_ns = totals.wall_inclusive_ns;
  column.tree = analysis.HasTrees() && region < analysis.regions.size() ? &analysis.regions[region] : nullptr;
  column.calls = totals.calls;
  column.software = RegionSoftwareMetrics(run, r);
  column.region = Printable(r.path);
  column.run = absl::StrFormat("%s (pid %d)", Printable(run.program.name), run.program.pid);
  return column;
}

namespace {

// Columns whose wall-time speedup the CPU time contradicts.
std::vector<std::string> SpeedupWarnings(const std::vector<CompareColumn>& columns) {
  std::vector<std::string> lines;
  const SoftwareMetric* base = FindMetric(columns.front(), "task-clock");
  for (size_t i = 1; i < columns.size(); ++i) {
    const SoftwareMetric* cpu = FindMetric(columns[i], "task-clock");
    if (base == nullptr || cpu == nullptr || !base->value || !cpu->value || *cpu->value <= 0 ||
        columns[i].wall_ns <= 0) {
      continue;
    }
    const double wall = static_cast<double>(columns.front().wall_ns) / static_cast<double>(columns[i].wall_ns);
    if (auto line = SpeedupDisagreement(columns[i].label, wall, *base->value / *cpu->value)) {
      lines.push_back(*std::move(line));
    }
  }
  return lines;
}

}  // namespace

std::string FormatComparison(const std::vector<CompareColumn>& columns, CompareFormat format) {
  if (columns.empty()) return "";
  std::string warnings;
  for (const std::string& line : SpeedupWarnings(columns)) {
    warnings += format == CompareFormat::kHtml ? "<p class=\"note\">" + HtmlEscape(line) + "</p>\n"
                                               : "measurement conditions: " + line + "\n";
  }
  std::vector<CompareRow> rows;
  AddHeadlineRows(columns, &rows);
  const TopDownResult* shape = TreeShape(columns);
  if (shape != nullptr) AddNodeRows(columns, *shape, &rows);
  AddMeasuredRows(columns, &rows);
  switch (format) {
    case CompareFormat::kHtml: return FormatHtml(columns, rows, shape != nullptr) + warnings;
    case CompareFormat::kCsv: return FormatCsv(columns, rows);  // CSV holds the values; the text says what they mean
    case CompareFormat::kText: return FormatText(columns, rows, shape != nullptr) + warnings;
  }
  return "";
}

}  // namespace td

#include "runtime/report/compare.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/report/csv_field.h"
#include "runtime/report/html_report.h"

namespace td {
namespace {

constexpr char kNone[] = "—";

struct Row {
  std::string name;
  std::vector<std::string> cells;
};

std::string Cell(const TreeNode* n) {
  if (n == nullptr || !n->value) return kNone;
  return absl::StrFormat("%.1f%%%s", 100 * *n->value, n->flagged ? "!" : "");
}

}  // namespace

std::string FormatComparison(const std::vector<CompareColumn>& columns, CompareFormat format) {
  std::vector<Row> rows;
  Row speedup{"Speedup", {}};
  Row ipc{"IPC", {}};
  for (const CompareColumn& c : columns) {
    const double first = static_cast<double>(columns.front().wall_ns);
    speedup.cells.push_back(c.wall_ns > 0 ? absl::StrFormat("%.2f", first / c.wall_ns) : kNone);
    const auto v = c.tree ? c.tree->MetricValue("IPC") : std::nullopt;
    ipc.cells.push_back(v ? absl::StrFormat("%.2f", *v) : kNone);
  }
  rows.push_back(speedup);
  rows.push_back(ipc);
  // Node order from the first column that has a tree; deeper levels only
  // where some column flags them.
  const TopDownResult* shape = nullptr;
  for (const CompareColumn& c : columns) {
    if (c.tree != nullptr && !c.tree->tree.empty()) {
      shape = c.tree;
      break;
    }
  }
  if (shape != nullptr) {
    for (const TreeNode& node : shape->tree) {
      bool keep = node.level <= 2;
      for (const CompareColumn& c : columns) {
        const TreeNode* n = c.tree ? c.tree->Find(node.name) : nullptr;
        keep |= n != nullptr && n->flagged;
      }
      if (!keep) continue;
      Row row{std::string(2 * (node.level - 1), ' ') + node.ShortName(), {}};
      for (const CompareColumn& c : columns) row.cells.push_back(Cell(c.tree ? c.tree->Find(node.name) : nullptr));
      rows.push_back(std::move(row));
    }
  }

  std::string out;
  if (format == CompareFormat::kHtml) {
    out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>td compare</title>"
          "<style>body{font-family:system-ui,sans-serif;margin:1.5em}table{border-collapse:collapse}"
          "td,th{border-bottom:1px solid #ddd;padding:.2em .8em;text-align:right}"
          "td:first-child,th:first-child{text-align:left}.flagged{color:#b00;font-weight:600}</style>"
          "</head><body><h1>td compare</h1>\n<table>\n<tr><th></th>";
    for (const CompareColumn& c : columns) out += "<th>" + HtmlEscape(c.label) + "</th>";
    out += "</tr>\n";
    for (const Row& r : rows) {
      const size_t indent = r.name.find_first_not_of(' ');
      absl::StrAppendFormat(&out, "<tr><td style=\"padding-left:%.1fem\">%s</td>", 0.8 + indent * 0.6,
                            HtmlEscape(r.name.substr(indent)));
      for (const auto& cell : r.cells) {
        const bool flagged = !cell.empty() && cell.back() == '!';
        absl::StrAppendFormat(&out, "<td%s>%s</td>", flagged ? " class=\"flagged\"" : "",
                              HtmlEscape(cell));
      }
      out += "</tr>\n";
    }
    out += "</table>\n";
    if (shape == nullptr) {
      out += "<p>No Top-Down tree: these runs hold no hardware counts; only the speedup is measured.</p>\n";
    }
    return out + "</body></html>\n";
  }
  if (format == CompareFormat::kCsv) {
    std::vector<std::string> header = {"row"};
    for (const CompareColumn& c : columns) header.push_back(CsvField(c.label));
    out += absl::StrJoin(header, ",") + "\n";
    for (const Row& r : rows) {
      std::vector<std::string> fields = {CsvField(std::string(r.name.substr(r.name.find_first_not_of(' '))))};
      for (const auto& cell : r.cells) fields.push_back(cell == kNone ? "" : CsvField(cell));
      out += absl::StrJoin(fields, ",") + "\n";
    }
    return out;
  }
  size_t name_width = 6;
  for (const Row& r : rows) name_width = std::max(name_width, r.name.size());
  std::vector<size_t> widths;
  for (const CompareColumn& c : columns) widths.push_back(std::max<size_t>(c.label.size(), 8));
  out += absl::StrFormat("%-*s", static_cast<int>(name_width), "");
  for (size_t i = 0; i < columns.size(); ++i) {
    out += absl::StrFormat("  %*s", static_cast<int>(widths[i]), columns[i].label);
  }
  out += "\n";
  for (const Row& r : rows) {
    out += absl::StrFormat("%-*s", static_cast<int>(name_width), r.name);
    for (size_t i = 0; i < r.cells.size(); ++i) {
      // "—" is one column wide but three bytes long.
      const int pad = static_cast<int>(widths[i]) + (r.cells[i] == kNone ? 2 : 0);
      out += absl::StrFormat("  %*s", pad, r.cells[i]);
    }
    out += "\n";
  }
  if (shape == nullptr) {
    out += "(no Top-Down tree: these runs hold no hardware counts; only the speedup is measured)\n";
  }
  return out;
}

}  // namespace td

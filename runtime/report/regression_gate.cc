#include "runtime/report/regression_gate.h"

#include <cmath>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "runtime/base/text_format.h"

namespace td {
namespace {

bool LastNameIs(const std::string& name, const std::string& wanted) {
  return name == wanted || (name.size() > wanted.size() && name[name.size() - wanted.size() - 1] == '.' &&
                            name.compare(name.size() - wanted.size(), std::string::npos, wanted) == 0);
}

std::optional<double> NodeValue(const TopDownResult& tree, const std::string& name) {
  for (const TreeNode& n : tree.tree) {
    bool match = LastNameIs(n.name, name);
    for (const std::string& former : n.former_names) match |= LastNameIs(former, name);
    if (match) return n.no_samples ? std::nullopt : n.value;
  }
  if (const Metric* m = tree.FindMetric(name); m != nullptr && !m->no_samples) return m->value;
  return std::nullopt;
}

bool IsNode(const TopDownResult& tree, const std::string& name) {
  for (const TreeNode& n : tree.tree) {
    if (LastNameIs(n.name, name)) return true;
  }
  return false;
}

// The metric of region `r` (its inclusive value), or of the top-level
// regions together when r < 0.
std::optional<double> ValueOf(const GateRun& run, int r, const std::string& metric) {
  const RunData& data = *run.data;
  std::vector<int> regions;
  if (r >= 0) {
    regions.push_back(r);
  } else {
    for (size_t i = 0; i < data.regions.size(); ++i) {
      if (data.regions[i].parent < 0) regions.push_back(static_cast<int>(i));
    }
  }
  if (metric == "wall" || metric == "calls") {
    double total = 0;
    for (int i : regions) {
      int64_t wall = 0;
      uint64_t calls = 0;
      for (const RegionOnThread& t : data.regions[static_cast<size_t>(i)].threads) {
        wall = std::max(wall, t.wall_inclusive_ns);
        calls += t.calls;
      }
      total += metric == "wall" ? static_cast<double>(wall) : static_cast<double>(calls);
    }
    return total;
  }
  if (const auto event = EventNamed(data, metric)) {
    std::optional<double> total;
    for (int i : regions) {
      if (const auto v = ScaledRegionCount(data, data.regions[static_cast<size_t>(i)], *event)) {
        total = total.value_or(0) + *v;
      }
    }
    return total;
  }
  if (r < 0 || static_cast<size_t>(r) >= run.analysis->regions.size()) return std::nullopt;
  return NodeValue(run.analysis->regions[static_cast<size_t>(r)], metric);
}

int RegionByPath(const RunData& data, const std::string& path) {
  for (size_t i = 0; i < data.regions.size(); ++i) {
    if (data.regions[i].path == path) return static_cast<int>(i);
  }
  return -1;
}

std::string Shown(double v, const std::string& metric, bool fraction) {
  if (fraction) return absl::StrFormat("%.1f%%", v * 100);
  if (metric == "wall") return absl::StrFormat("%.6g s", v / 1e9);
  if (v >= 0 && v < 1e18 && v == std::floor(v)) return WithThousands(static_cast<uint64_t>(v));
  return absl::StrFormat("%.4g", v);
}

std::string LimitText(const GateRule& rule) {
  const char* sign = rule.above ? "+" : "-";
  switch (rule.unit) {
    case GateRule::Unit::kPercent: return absl::StrFormat("%s%g%%", sign, rule.limit);
    case GateRule::Unit::kPoints: return absl::StrFormat("%s%g points", sign, rule.limit);
    case GateRule::Unit::kAbsolute: return absl::StrFormat("%s%g", sign, rule.limit);
  }
  return "";
}

// Whether NEW against BASE crosses the rule's limit; the change, in words.
bool Crosses(const GateRule& rule, double base, double candidate, bool fraction, std::string* change) {
  double delta = candidate - base;
  if (rule.unit == GateRule::Unit::kPercent) {
    if (base == 0) {
      *change = candidate == 0 ? "unchanged" : "from 0";
      return rule.above ? candidate > 0 : candidate < 0;
    }
    delta = 100 * delta / std::fabs(base);
    *change = absl::StrFormat("%+.2f%%", delta);
  } else if (rule.unit == GateRule::Unit::kPoints) {
    delta *= fraction ? 100 : 1;
    *change = absl::StrFormat("%+.2f points", delta);
  } else {
    *change = absl::StrFormat("%+g", delta);
  }
  return rule.above ? delta > rule.limit : -delta > rule.limit;
}

}  // namespace

absl::StatusOr<GateRule> ParseGateRule(const std::string& text) {
  GateRule rule;
  rule.text = text;
  const size_t op = text.find_first_of("<>");
  if (op == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--fail-if '%s': no < or >; write it as METRIC>+1%% (or REGION:METRIC>+1%%, total:wall>+10%%)", text));
  }
  rule.above = text[op] == '>';
  std::string left = text.substr(0, op);
  if (const size_t colon = left.rfind(':'); colon != std::string::npos) {
    rule.scope = left.substr(0, colon);
    left = left.substr(colon + 1);
  }
  rule.metric = std::string(absl::StripAsciiWhitespace(left));
  absl::string_view limit = absl::StripAsciiWhitespace(absl::string_view(text).substr(op + 1));
  if (rule.metric.empty()) return absl::InvalidArgumentError(absl::StrFormat("--fail-if '%s': no metric before %c", text, text[op]));
  if (absl::ConsumeSuffix(&limit, "%")) {
    rule.unit = GateRule::Unit::kPercent;
  } else if (absl::ConsumeSuffix(&limit, "pt")) {
    rule.unit = GateRule::Unit::kPoints;
  } else {
    rule.unit = GateRule::Unit::kAbsolute;
  }
  const bool signed_right = absl::ConsumePrefix(&limit, rule.above ? "+" : "-");
  double value = 0;
  if (!absl::SimpleAtod(limit, &value) || value < 0 || !std::isfinite(value) || limit.empty() ||
      limit[0] == '+' || limit[0] == '-') {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--fail-if '%s': the limit after %c is not a number such as %s1%%, %s5pt or %s1000", text, text[op],
        rule.above ? "+" : "-", rule.above ? "+" : "-", rule.above ? "+" : "-"));
  }
  (void)signed_right;  // "+1%" and "1%" mean the same after '>'
  rule.limit = value;
  return rule;
}

GateResult CheckGate(const std::vector<GateRule>& rules, const GateRun& base, const GateRun& candidate) {
  GateResult result;
  for (const GateRule& rule : rules) {
    std::vector<std::pair<int, int>> pairs;  // (base region, candidate region); -1: total
    if (rule.scope == "total") {
      pairs.emplace_back(-1, -1);
    } else if (!rule.scope.empty()) {
      const int b = RegionByPath(*base.data, rule.scope), c = RegionByPath(*candidate.data, rule.scope);
      if (b < 0 || c < 0) {
        result.problems.push_back(absl::StrFormat("--fail-if '%s': %s has no region %s", rule.text,
                                                  b < 0 ? "the base run" : "the new run", rule.scope));
        continue;
      }
      pairs.emplace_back(b, c);
    } else {
      for (size_t b = 0; b < base.data->regions.size(); ++b) {
        const int c = RegionByPath(*candidate.data, base.data->regions[b].path);
        if (c >= 0) pairs.emplace_back(static_cast<int>(b), c);
      }
    }
    int checked = 0;
    for (const auto& [b, c] : pairs) {
      const auto x = ValueOf(base, b, rule.metric), y = ValueOf(candidate, c, rule.metric);
      if (!x || !y) continue;
      ++checked;
      const bool fraction = b >= 0 && static_cast<size_t>(b) < base.analysis->regions.size() &&
                            IsNode(base.analysis->regions[static_cast<size_t>(b)], rule.metric);
      std::string change;
      if (Crosses(rule, *x, *y, fraction, &change)) {
        const std::string where = b < 0 ? "total" : base.data->regions[static_cast<size_t>(b)].path;
        result.crossed.push_back(absl::StrFormat("%s: %s %s -> %s (%s; limit %s)", where, rule.metric,
                                                 Shown(*x, rule.metric, fraction), Shown(*y, rule.metric, fraction),
                                                 change, LimitText(rule)));
      }
    }
    result.checks += checked;
    if (checked == 0) {
      result.problems.push_back(absl::StrFormat(
          "--fail-if '%s': %s was measured in no region both runs hold, so it cannot be checked", rule.text,
          rule.metric));
    }
  }
  return result;
}

}  // namespace td

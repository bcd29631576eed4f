#include "runtime/analysis/metric_evaluator.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "runtime/uarch/event_names.h"

namespace td {

MetricEvaluator::MetricEvaluator(const MetricSet& set, CountLookup lookup,
                                 EvaluationOptions options)
    : set_(set), lookup_(std::move(lookup)), options_(options) {}

void MetricEvaluator::Note(std::string note) {
  if (std::find(notes_.begin(), notes_.end(), note) == notes_.end()) notes_.push_back(std::move(note));
}

Value MetricEvaluator::Evaluate(const std::string& name) {
  if (auto it = memo_.find(name); it != memo_.end()) return it->second;
  if (std::find(in_progress_.begin(), in_progress_.end(), name) != in_progress_.end()) {
    errors_.push_back("formula cycle through " + name);
    return Value::Missing(name);
  }
  in_progress_.push_back(name);
  Value v;
  if (const FormulaDefinition* node = set_.FindNode(name)) {
    v = EvaluateDefinition(*node);
  } else if (const FormulaDefinition* aux = set_.FindAuxiliary(name)) {
    v = EvaluateDefinition(*aux);
  } else if (auto o = options_.constants.find(name); o != options_.constants.end()) {
    v = Value::Of(o->second);
  } else if (auto c = set_.constants.find(name); c != set_.constants.end()) {
    v = Value::Of(c->second);
  } else {
    v = EvaluateEvent(name);
  }
  in_progress_.pop_back();
  memo_[name] = v;
  return v;
}

Value MetricEvaluator::EvaluateEvent(const std::string& name) {
  std::vector<std::string> spellings = {NormalizeEventName(name)};
  if (const EventDefinition* event = set_.FindEvent(name)) {
    for (const auto& s : event->spellings) {
      if (s != spellings[0]) spellings.push_back(s);
    }
  }
  std::string error;
  const std::optional<double> count = lookup_(spellings, &error);
  if (!error.empty()) errors_.push_back(error);
  return count ? Value::Of(*count) : Value::Missing(name);
}

Value MetricEvaluator::EvaluateDefinition(const FormulaDefinition& def) {
  auto resolve = [this](const std::string& n) { return Evaluate(n); };
  Value first;
  std::string all_missing;  // "A or B": what each alternative lacked
  for (size_t i = 0; i < def.alternatives.size(); ++i) {
    std::vector<std::pair<std::string, std::string>> dropped;
    auto on_dropped = [&dropped](const std::string& term, const std::string& missing) {
      dropped.emplace_back(term, missing);
    };
    const Value v =
        def.alternatives[i].Evaluate(resolve, on_dropped, options_.use_optional_terms);
    if (i == 0) first = v;
    if (!v.measured) {
      if (all_missing.find(v.missing) == std::string::npos) {
        all_missing += (all_missing.empty() ? "" : " or ") + v.missing;
      }
      continue;
    }
    for (const auto& [term, missing] : dropped) {
      Note(absl::StrFormat("%s: correction term %s left out (%s%s)", def.name, term, missing,
                           options_.use_optional_terms ? " not measured" : ""));
    }
    if (i != 0) {
      Note(absl::StrFormat("%s: computed with \"%s\" (%s not measured for the preferred form)",
                           def.name, def.alternatives[i].text(), first.missing));
    }
    return v;
  }
  return Value::Missing(all_missing.empty() ? first.missing : all_missing);
}

}  // namespace td

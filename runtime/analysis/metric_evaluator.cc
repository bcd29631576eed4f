#include "runtime/analysis/metric_evaluator.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "runtime/uarch/event_names.h"

namespace td {

MetricEvaluator::MetricEvaluator(const MetricSet& set, CountLookup lookup,
                                 EvaluationOptions options)
    : set_(set), lookup_(std::move(lookup)), options_(options) {}

namespace {

void AddOnce(const std::string& text, std::vector<std::string>* list) {
  if (std::find(list->begin(), list->end(), text) == list->end()) list->push_back(text);
}

// A finished term's trail joins the trail of the name that used it.
void Join(const MetricEvaluator::Trail& term, MetricEvaluator::Trail* user) {
  for (const std::string& n : term.notes) AddOnce(n, &user->notes);
  for (const std::string& e : term.errors) user->errors.push_back(e);
}

}  // namespace

void MetricEvaluator::Note(std::string note) {
  if (!frames_.empty()) AddOnce(note, &frames_.back().notes);
  AddOnce(note, &notes_);
}

void MetricEvaluator::Error(std::string error) {
  if (!frames_.empty()) frames_.back().errors.push_back(error);
  errors_.push_back(std::move(error));
}

Value MetricEvaluator::Evaluate(const std::string& name, Trail* trail) {
  frames_.emplace_back();
  const Value v = Evaluate(name);
  *trail = std::move(frames_.back());
  frames_.pop_back();
  return v;
}

Value MetricEvaluator::Evaluate(const std::string& name) {
  if (auto it = memo_.find(name); it != memo_.end()) {
    if (!frames_.empty()) Join(it->second.trail, &frames_.back());
    return it->second.value;
  }
  if (std::find(in_progress_.begin(), in_progress_.end(), name) != in_progress_.end()) {
    Error("formula cycle through " + name);
    return Value::Missing(name);
  }
  in_progress_.push_back(name);
  frames_.emplace_back();
  Value v;
  if (const FormulaDefinition* node = set_.FindNode(name)) {
    v = EvaluateDefinition(*node);
  } else if (const FormulaDefinition* aux = set_.FindAuxiliary(name)) {
    v = EvaluateDefinition(*aux);
  } else if (IsRetireLatency(name)) {
    v = EvaluateRetireLatency(name);
  } else if (auto o = options_.constants.find(name); o != options_.constants.end()) {
    v = Value::Of(o->second);
  } else if (auto c = set_.constants.find(name); c != set_.constants.end()) {
    v = Value::Of(c->second);
  } else {
    v = EvaluateEvent(name);
  }
  in_progress_.pop_back();
  Trail trail = std::move(frames_.back());
  frames_.pop_back();
  if (!frames_.empty()) Join(trail, &frames_.back());
  memo_[name] = Memoized{v, std::move(trail)};
  return v;
}

bool MetricEvaluator::IsRetireLatency(const std::string& name) const {
  return name.size() > 2 && name.compare(name.size() - 2, 2, ":R") == 0 && set_.constants.contains(name);
}

// A sampled retire latency in the counts (perf stat --record-tpebs) wins;
// otherwise the key's constant, the vendor's mean, and every value built on
// it carries the note (TreeNode::estimated).
Value MetricEvaluator::EvaluateRetireLatency(const std::string& name) {
  std::string error;
  if (const std::optional<double> sampled = lookup_({NormalizeEventName(name), name}, &error)) {
    return Value::Of(*sampled);
  }
  const double mean = set_.constants.at(name);
  Note(absl::StrFormat("%s%s: %s = %g cycles, the vendor's mean (no sampled value)", kEstimatedNotePrefix,
                       kStaticRetireLatency, name, mean));
  return Value::Of(mean);
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
  if (!error.empty()) Error(error);
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
    if (const std::string& version = def.VersionOf(i); !version.empty()) {
      const bool current_exists = def.VersionOf(0).empty();
      Note(absl::StrFormat("%s%s: %s computed with \"%s\" (%s)", kOlderFormulaNotePrefix, version, def.name,
                           def.alternatives[i].text(),
                           current_exists ? first.missing + " not measured for the current formula"
                                          : "a node of that version only"));
    } else if (i != 0) {
      Note(absl::StrFormat("%s: computed with \"%s\" (%s not measured for the preferred form)",
                           def.name, def.alternatives[i].text(), first.missing));
    }
    return v;
  }
  return Value::Missing(all_missing.empty() ? first.missing : all_missing);
}

}  // namespace td

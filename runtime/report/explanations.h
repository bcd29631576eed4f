// What each Top-Down node and diagnosis means and what to try when it is
// flagged, for students and for anyone reading a report.
#ifndef TD_RUNTIME_REPORT_EXPLANATIONS_H_
#define TD_RUNTIME_REPORT_EXPLANATIONS_H_

#include <string>
#include <vector>

namespace td {

struct Explanation {
  const char* node;     // last component of the canonical name, or a diagnosis id
  const char* meaning;
  const char* to_try;
};

const std::vector<Explanation>& AllExplanations();
// By short node name ("Memory_Bound") or diagnosis id; null when unknown.
const Explanation* ExplanationFor(const std::string& name);
// Every explanation as a Markdown reference (docs/explanations.md).
std::string ExplanationsMarkdown();

}  // namespace td

#endif  // TD_RUNTIME_REPORT_EXPLANATIONS_H_

// td explain: what a Top-Down node or diagnosis means and what to try.
#include "tools/td/commands.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "runtime/report/explanations.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

// A node by its name or its path's last part, or a diagnosis id; any case.
const td::Explanation* FindExplanation(const std::string& wanted) {
  const std::string name = wanted.substr(wanted.rfind('.') + 1);
  for (const td::Explanation& e : td::AllExplanations()) {
    if (absl::EqualsIgnoreCase(name, e.node)) return &e;
  }
  return nullptr;
}

int Explain(const Command& self, const Args& args) {
  Args nodes;
  if (const auto done = Flags(self).Parse(args, &nodes)) return *done;
  if (nodes.size() > 1) return WrongOperands(self, "at most one NODE");
  if (nodes.empty()) {
    std::fputs(td::ExplanationsMarkdown().c_str(), stdout);
    return 0;
  }
  const td::Explanation* e = FindExplanation(nodes[0]);
  if (e == nullptr) {
    std::vector<std::string> known;
    for (const td::Explanation& each : td::AllExplanations()) known.emplace_back(each.node);
    const std::string name = nodes[0].substr(nodes[0].rfind('.') + 1);
    const std::string hint = DidYouMean(name, known);
    return Fail("no explanation for \"" + nodes[0] + "\"" + (hint.empty() ? "; `td explain` lists them all" : hint));
  }
  std::printf("%s\n  %s\n  When flagged: %s\n", e->node, e->meaning, e->to_try);
  return 0;
}

}  // namespace

const cli::Command kExplainCommand = {
    "explain", "explain [NODE]", "what a node or diagnosis means and what to try",
    "Prints what NODE means and what to try when it is flagged. NODE is a node's\n"
    "name or path (Memory_Bound, Backend_Bound.Memory_Bound) or a diagnosis id, in\n"
    "any case. Without NODE: every explanation, as Markdown (docs/explanations.md).",
    Explain};

}  // namespace td::tool

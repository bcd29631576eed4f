// td recompute: Top-Down values from the counts of a case file.
#include "tools/td/commands.h"

#include <string>

#include "nlohmann/json.hpp"
#include "runtime/analysis/perf_case.h"
#include "runtime/base/json_file.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

// What `td recompute` reads is a case file; a recording of a td run is
// `td report`'s, and says so by these two fields.
bool IsRunRecording(const nlohmann::json& json) {
  return json.is_object() && json.contains("td_version") && json.contains("regions");
}

int Recompute(const Command& self, const Args& args) {
  Args files;
  if (const auto done = Flags(self).Parse(args, &files)) return *done;
  if (files.size() != 1) return WrongOperands(self, "one CASE.json");
  const std::string& path = files[0];
  auto json = td::ReadJsonFile(path);
  if (!json.ok()) return Fail(json.status().message());
  if (IsRunRecording(*json)) {
    return Fail(path + " is a td run recording, not a case file; `td report " + path + "` analyses it");
  }
  auto c = td::ParsePerfCase(*json);
  if (!c.ok()) return Fail(path + ": " + std::string(c.status().message()));
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  return PrintAnswers(*c, *library);
}

}  // namespace

const cli::Command kRecomputeCommand = {
    "recompute", "recompute CASE.json", "Top-Down values from a case file's counts",
    "Evaluates td's formulas on the counts of a case file (docs/analysis.md) and\n"
    "prints the values as JSON. A recording of a td run is not a case file: give\n"
    "it to `td report`.",
    Recompute};

}  // namespace td::tool

// td uarchs: the microarchitecture keys td has definitions for, with the TMA
// version of each key's formulas and (--json) the CPUs that get it.
#include "tools/td/commands.h"

#include <cstdio>

#include "nlohmann/json.hpp"
#include "runtime/uarch/definitions.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

int Uarchs(const Command& self, const Args& args) {
  Args operands;
  bool as_json = false;
  if (const auto done = Flags(self).Switch("--json", &as_json).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& key : library->Uarchs()) {
    const MetricSet* set = library->Find(key);
    const std::string version = set == nullptr ? "" : set->tma_version;
    if (!as_json) {
      if (version.empty()) {
        std::printf("%s\n", key.c_str());
      } else {
        std::printf("%-14sTMA %s\n", key.c_str(), version.c_str());
      }
      continue;
    }
    keys.push_back({{"key", key},
                    {"tma_version", version.empty() ? nlohmann::json(nullptr) : nlohmann::json(version)},
                    {"cpuids", set == nullptr ? nlohmann::json::array() : nlohmann::json(set->cpuids)}});
  }
  if (as_json) std::printf("%s\n", keys.dump(1).c_str());
  return 0;
}

}  // namespace

const cli::Command kUarchsCommand = {
    "uarchs", "uarchs [--json]", "the microarchitecture keys td has definitions for",
    "Lists the keys --uarch, TD_UARCH and `td events --pmu` accept, each with the TMA\n"
    "version its formulas follow where the definitions record it. With --json: a list\n"
    "of {key, tma_version, cpuids}, the CPUIDs spelled as perf's mapfile.csv spells them\n"
    "(GenuineIntel-6-AD).",
    Uarchs};

}  // namespace td::tool

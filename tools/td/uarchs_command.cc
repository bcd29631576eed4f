// td uarchs: the microarchitecture keys td has definitions for.
#include "tools/td/commands.h"

#include <cstdio>

#include "runtime/uarch/definitions.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

int Uarchs(const Command& self, const Args& args) {
  Args operands;
  if (const auto done = Flags(self).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  for (const auto& key : library->Uarchs()) std::printf("%s\n", key.c_str());
  return 0;
}

}  // namespace

const cli::Command kUarchsCommand = {
    "uarchs", "uarchs", "the microarchitecture keys td has definitions for",
    "Lists the keys --uarch, TD_UARCH and `td events --pmu` accept.", Uarchs};

}  // namespace td::tool

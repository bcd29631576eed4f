// td config: every environment variable td reads, as set here.
#include "tools/td/commands.h"

#include <cstdio>
#include <string>
#include <vector>

#include "runtime/base/byte_strings.h"
#include "runtime/driver/config.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

int ConfigCommand(const Command& self, const Args& args) {
  Args operands;
  bool markdown = false;
  if (const auto done = Flags(self).Switch("--markdown", &markdown).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  if (markdown) {
    std::fputs(td::SettingsMarkdownTable().c_str(), stdout);
    return 0;
  }
  std::fputs(td::DescribeEnvironment().c_str(), stdout);
  const td::ConfigReading reading = td::ReadConfigFromEnvironment();
  for (const std::string& e : reading.problems) std::printf("error: %s\n", td::Printable(e).c_str());
  for (const std::string& u : reading.unknown) std::printf("warning: %s\n", u.c_str());  // already Printable
  return reading.problems.empty() && reading.unknown.empty() ? 0 : 1;
}

}  // namespace

const cli::Command kConfigCommand = {
    "config", "config [--markdown]", "every environment variable td reads, as set here",
    "Lists every variable td reads (TD_*, NO_COLOR, TMPDIR, XDG_CACHE_HOME) with its\n"
    "value in this environment or its default, then one line per value td would not\n"
    "accept and per TD_* variable td does not know, with the nearest known name\n"
    "(exit status 1 when there is one).\n"
    "\n"
    "  --markdown  the table of variables, values, defaults and meanings instead\n"
    "              (docs/usage.md's table is this output)",
    ConfigCommand};

}  // namespace td::tool

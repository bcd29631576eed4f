// td: the command-line companion of the td library. Every subcommand is a
// table entry (tools/td/commands.h, one *_command.cc each) that parses its
// own flags with cli::Flags; `td help` and `td COMMAND --help` print from the
// table. Exit status: 0 done, 1 failed, 2 misused (tools/td/cli.h).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tools/td/cli.h"
#include "tools/td/commands.h"

#ifndef TD_VERSION_STRING
#define TD_VERSION_STRING "0.0.0"
#endif

namespace {

using td::cli::Args;
using td::cli::Command;
using td::cli::DidYouMean;
using td::cli::Fail;
using td::cli::Flags;
using td::cli::Misuse;
using td::cli::WrongOperands;

int Help(const Command& self, const Args& args);
int Version(const Command& self, const Args& args);

// In `td help` order: the everyday commands first.
const std::vector<Command> kCommands = {
    td::tool::kRunCommand,
    td::tool::kReportCommand,
    td::tool::kCompareCommand,
    td::tool::kExplainCommand,
    td::tool::kRecomputeCommand,
    td::tool::kImportPerfCommand,
    td::tool::kImportMetricsCommand,
    td::tool::kEventsCommand,
    td::tool::kUarchsCommand,
    td::tool::kCalibrateCommand,
    td::tool::kConfigCommand,
    td::tool::kDoctorCommand,
    {"help", "help [COMMAND]", "the commands, or one command's flags",
     "Without COMMAND, the list of commands; with it, what `td COMMAND --help` prints.", Help},
    {"version", "version", "td's version (also td --version)", "Prints td's version.", Version},
};

const Command* FindCommand(const std::string& name) {
  for (const Command& command : kCommands) {
    if (name == command.name) return &command;
  }
  return nullptr;
}

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const Command& command : kCommands) names.emplace_back(command.name);
  return names;
}

void PrintUsage(std::FILE* to) {
  std::fputs("usage: td COMMAND [FLAGS] [ARGUMENTS]\n"
             "       td help [COMMAND] | td COMMAND --help | td --version\n\n"
             "commands:\n",
             to);
  for (const Command& command : kCommands) absl::FPrintF(to, "  %-12s %s\n", command.name, command.summary);
  std::fputs("\nexit status: 0 done, 1 failed (a file, its contents or the machine said no),\n"
             "2 misused (an unknown command or flag, a missing argument)\n",
             to);
}

int UnknownCommand(const std::string& name) {
  const std::string hint = DidYouMean(name, CommandNames());
  return Misuse("unknown command " + name + (hint.empty() ? "; `td help` lists the commands" : hint));
}

int Help(const Command& self, const Args& args) {
  Args topics;
  if (const auto done = Flags(self).Parse(args, &topics)) return *done;
  if (topics.size() > 1) return WrongOperands(self, "at most one COMMAND");
  if (topics.empty()) {
    PrintUsage(stdout);
    return 0;
  }
  const Command* command = FindCommand(topics[0]);
  if (command == nullptr) return UnknownCommand(topics[0]);
  td::cli::PrintHelp(*command, stdout);
  return 0;
}

int Version(const Command& self, const Args& args) {
  Args operands;
  if (const auto done = Flags(self).Parse(args, &operands)) return *done;
  if (!operands.empty()) return WrongOperands(self, "no arguments");
  std::printf("td %s\n", TD_VERSION_STRING);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintUsage(stderr);
    return td::cli::kMisused;
  }
  const std::string& first = args[0];
  const Args rest(args.begin() + 1, args.end());
  if (first == "--help" || first == "-h") return Help(*FindCommand("help"), rest);
  if (first == "--version") return Version(*FindCommand("version"), rest);
  if (first.size() > 1 && first[0] == '-') {
    const std::string hint = DidYouMean(first.substr(0, first.find('=')), {"--help", "--version"});
    return Misuse("unknown flag " + first + " for td" +
                  (hint.empty() ? "; a command comes first: `td help` lists them" : hint));
  }
  const Command* command = FindCommand(first);
  if (command == nullptr) return UnknownCommand(first);
  // Readers validate what they read; this is the net under what they miss
  // (an allocation failure, a library that throws): one line and status 1,
  // never an abort.
  try {
    return command->handler(*command, rest);
  } catch (const std::exception& e) {
    return Fail(std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail("internal error");
  }
}


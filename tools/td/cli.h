// What every td subcommand shares: its entry in the command table, the one
// flag parser they all use, and how td ends:
//   0  done (`--help` and `--version` included), output on stdout;
//   1  failed: a file, its contents or the machine said no — one line on stderr;
//   2  misused: an unknown command or flag, a missing argument — one line on
//      stderr, naming the nearest valid spelling when there is one;
//   td run: the program's exit status (128 + N when signal N ended it).
#ifndef TD_TOOLS_TD_CLI_H_
#define TD_TOOLS_TD_CLI_H_

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace td::cli {

inline constexpr int kDone = 0;
inline constexpr int kFailed = 1;
inline constexpr int kMisused = 2;

using Args = std::vector<std::string>;

struct Command {
  const char* name;
  const char* synopsis;  // what follows "td " in a usage line; '\n' separates forms
  const char* summary;   // one line, for `td help`
  const char* help;      // what it does and its flags, for `td help NAME` and `td NAME --help`
  int (*handler)(const Command& self, const Args& args);  // args: what follows the name
};

// "usage: td SYNOPSIS", then the help text.
void PrintHelp(const Command& command, std::FILE* to);

// "td: MESSAGE" on stderr; each returns the exit status that goes with it.
int Fail(absl::string_view message);
int Misuse(absl::string_view message);

// "; did you mean X?" when `wanted` is a likely typo of one candidate (case
// aside), else "".
std::string DidYouMean(const std::string& wanted, const std::vector<std::string>& candidates);

// One command's flags: switches (--json) and flags with a value (--out FILE,
// or --out=FILE). Anything not starting with '-' is an operand, and so is all
// that follows "--". -h and --help print the command's help.
class Flags {
 public:
  // `label` names the command in messages when it is not `command.name`
  // ("events encode").
  explicit Flags(const Command& command, std::string label = "");

  Flags& Switch(std::string name, bool* on);
  Flags& Value(std::string name, std::string* value);
  // A flag that may be given more than once (--fail-if A --fail-if B).
  Flags& Values(std::string name, std::vector<std::string>* values);
  // A flag whose value may be left out (`--html` or `--html OUT.html`):
  // *given says it was there. The next argument is its value unless it is a
  // flag, a directory or a *.json file: what td reads, never what it writes.
  Flags& OptionalValue(std::string name, std::string* value, bool* given);
  // The first operand ends td's flags: `td run PROG -x` leaves -x to PROG.
  Flags& FirstOperandEndsFlags();

  // Sets the flags, appends the operands. nullopt: go on; otherwise the exit
  // status to return at once (the help was printed, or a misuse reported).
  std::optional<int> Parse(const Args& args, Args* operands) const;

 private:
  struct Flag {
    std::string name;
    bool* on = nullptr;            // a switch
    std::string* value = nullptr;  // or a flag with a value
    bool* given = nullptr;         // set for a flag whose value may be left out
    std::vector<std::string>* values = nullptr;  // or a flag given any number of times
  };
  const Flag* Find(const std::string& name) const;
  std::vector<std::string> Names() const;

  const Command& command_;
  std::string label_;
  std::vector<Flag> flags_;
  bool first_operand_ends_flags_ = false;
};

// "td: NAME takes EXPECTED; `td NAME --help` shows how", exit status 2.
int WrongOperands(const Command& command, absl::string_view expected);

}  // namespace td::cli

#endif  // TD_TOOLS_TD_CLI_H_

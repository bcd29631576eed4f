#include "tools/td/cli.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "runtime/counters/event_encoder.h"
#include "runtime/base/text_format.h"

namespace td::cli {
namespace {

bool IsFlag(const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; }

bool IsHelp(const std::string& arg) { return arg == "-h" || arg == "--help"; }

// An operand td reads: `td report --html run.json` is the page of run.json,
// never a page written over it.
bool IsInput(const std::string& arg) {
  std::error_code ignored;
  return absl::EndsWith(arg, ".json") || std::filesystem::is_directory(arg, ignored);
}

}  // namespace

void PrintHelp(const Command& command, std::FILE* to) {
  const char* lead = "usage: td ";
  for (absl::string_view form : absl::StrSplit(command.synopsis, '\n')) {
    absl::FPrintF(to, "%s%s\n", lead, form);
    lead = "       td ";
  }
  absl::FPrintF(to, "\n%s\n", command.help);
}

int Fail(absl::string_view message) {
  absl::FPrintF(stderr, "td: %s\n", message);
  return kFailed;
}

int Misuse(absl::string_view message) {
  absl::FPrintF(stderr, "td: %s\n", message);
  return kMisused;
}

std::string DidYouMean(const std::string& wanted, const std::vector<std::string>& candidates) {
  const std::string lower = absl::AsciiStrToLower(wanted);
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& candidate : candidates) {
    const size_t distance = EditDistance(lower, absl::AsciiStrToLower(candidate));
    if (best == nullptr || distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  // A third of the letters wrong is still a typo; more is another word.
  const size_t tolerated = std::max<size_t>(2, wanted.size() / 3);
  if (best == nullptr || best_distance > tolerated) return "";
  return absl::StrFormat("; did you mean %s?", *best);
}

Flags::Flags(const Command& command, std::string label)
    : command_(command), label_(label.empty() ? command.name : std::move(label)) {}

Flags& Flags::Switch(std::string name, bool* on) {
  flags_.push_back({std::move(name), on, nullptr});
  return *this;
}

Flags& Flags::Value(std::string name, std::string* value) {
  flags_.push_back({std::move(name), nullptr, value});
  return *this;
}

Flags& Flags::Values(std::string name, std::vector<std::string>* values) {
  flags_.push_back({std::move(name), nullptr, nullptr, nullptr, values});
  return *this;
}

Flags& Flags::OptionalValue(std::string name, std::string* value, bool* given) {
  flags_.push_back({std::move(name), nullptr, value, given});
  return *this;
}

Flags& Flags::FirstOperandEndsFlags() {
  first_operand_ends_flags_ = true;
  return *this;
}

const Flags::Flag* Flags::Find(const std::string& name) const {
  const auto found = std::find_if(flags_.begin(), flags_.end(), [&](const Flag& f) { return f.name == name; });
  return found == flags_.end() ? nullptr : &*found;
}

std::vector<std::string> Flags::Names() const {
  std::vector<std::string> names = {"--help"};
  for (const Flag& f : flags_) names.push_back(f.name);
  return names;
}

std::optional<int> Flags::Parse(const Args& args, Args* operands) const {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      operands->insert(operands->end(), args.begin() + static_cast<long>(i) + 1, args.end());
      return std::nullopt;
    }
    if (!IsFlag(arg)) {
      if (first_operand_ends_flags_) {
        operands->insert(operands->end(), args.begin() + static_cast<long>(i), args.end());
        return std::nullopt;
      }
      operands->push_back(arg);
      continue;
    }
    if (IsHelp(arg)) {
      PrintHelp(command_, stdout);
      return kDone;
    }
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(0, equals);
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      const std::string hint = DidYouMean(name, Names());
      return Misuse(absl::StrFormat("unknown flag %s for %s%s", name, label_,
                                    hint.empty() ? absl::StrFormat("; `td %s --help` lists its flags",
                                                                   command_.name)
                                                 : hint));
    }
    if (flag->on != nullptr) {
      if (equals != std::string::npos) return Misuse(absl::StrFormat("%s takes no value", name));
      *flag->on = true;
    } else if (flag->values != nullptr) {
      if (equals == std::string::npos && i + 1 == args.size()) {
        return Misuse(absl::StrFormat("%s needs a value; `td %s --help` shows how", name, command_.name));
      }
      flag->values->push_back(equals != std::string::npos ? arg.substr(equals + 1) : args[++i]);
    } else if (equals != std::string::npos) {
      *flag->value = arg.substr(equals + 1);
      if (flag->given != nullptr) *flag->given = true;
    } else if (flag->given != nullptr) {
      *flag->given = true;
      if (i + 1 < args.size() && !IsFlag(args[i + 1]) && !IsInput(args[i + 1])) *flag->value = args[++i];
    } else if (i + 1 < args.size()) {
      *flag->value = args[++i];
    } else {
      return Misuse(absl::StrFormat("%s needs a value; `td %s --help` shows how", name, command_.name));
    }
  }
  return std::nullopt;
}

int WrongOperands(const Command& command, absl::string_view expected) {
  return Misuse(absl::StrFormat("%s takes %s; `td %s --help` shows how", command.name, expected, command.name));
}

}  // namespace td::cli

// `td doctor`'s checks: each turns the gathered facts into one finding (what
// td can measure, what limits it, and the commands that lift the limit).
// Pure, so every case is tested from facts alone; the catalogue of checks
// also writes docs/usage.md's "Why can't td measure X here?" section.
#ifndef TD_TOOLS_TD_DOCTOR_CHECKS_H_
#define TD_TOOLS_TD_DOCTOR_CHECKS_H_

#include <string>
#include <vector>

#include "tools/td/doctor/facts.h"

namespace td::doctor {

enum class State {
  kOk,       // nothing lost
  kLimited,  // td measures less (or slower) because of it
  kBlocked,  // a whole kind of measurement is impossible until it is lifted
  kInfo,     // a fact worth knowing, no judgement
};
const char* StateName(State state);  // "ok", "limited", "blocked", "info"

struct Finding {
  std::string check;  // the check's id
  State state = State::kInfo;
  std::string summary;               // one line
  std::vector<std::string> details;  // further lines, printed indented
  std::vector<std::string> lift;     // commands or settings that lift the limit
};

struct Check {
  const char* id;
  const char* title;    // as the text report's column shows it
  const char* symptom;  // what a user sees when this check fails (the docs' question)
  const char* why;      // the explanation, for the docs
  const char* lift;     // how to lift it, for the docs
  Finding (*examine)(const Facts& facts);
};

const std::vector<Check>& Checks();
std::vector<Finding> Examine(const Facts& facts);

// The docs section, made from Checks(): one entry per check.
std::string ChecksMarkdown();

}  // namespace td::doctor

#endif  // TD_TOOLS_TD_DOCTOR_CHECKS_H_

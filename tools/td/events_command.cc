// td events: the events of a PMU, and the perf_event_attr td programs for one.
#include "tools/td/commands.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "runtime/counters/event_encoder.h"
#include "runtime/uarch/definitions.h"
#include "tools/td/cli.h"
#include "tools/td/command_context.h"

namespace td::tool {
namespace {

void PrintPmus(const td::DefinitionLibrary& library) {
  for (const td::PmuListing& pmu : td::ListPmus(library)) {
    std::vector<std::string> marks;
    if (pmu.host) marks.emplace_back("host");
    if (pmu.present) marks.emplace_back("present");
    const std::string uarchs = pmu.uarchs.empty() ? "" : " [td: " + absl::StrJoin(pmu.uarchs, " ") + "]";
    absl::PrintF("%-28s %-14s %s%s\n", pmu.name, absl::StrJoin(marks, ","), pmu.description, uarchs);
  }
}

int PrintEncoding(const std::string& event, const std::string& pmu, const td::DefinitionLibrary& library) {
  auto e = td::EncodeEvent(event, pmu, library);
  if (!e.ok()) return Fail(e.status().message());
  const nlohmann::json out = {{"pmu", e->pmu},
                              {"type", e->type},
                              {"config", absl::StrFormat("0x%x", e->config)},
                              {"config1", absl::StrFormat("0x%x", e->config1)},
                              {"source", e->source},
                              {"name", e->name}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

int Events(const Command& self, const Args& args) {
  std::string pmu;
  bool pmus = false;
  Args operands;
  if (const auto done = Flags(self).Value("--pmu", &pmu).Switch("--pmus", &pmus).Parse(args, &operands)) {
    return *done;
  }
  const std::vector<std::string> actions = {"list", "encode"};
  if (operands.empty()) return WrongOperands(self, "list or encode");
  const std::string& action = operands[0];
  if (action != "list" && action != "encode") {
    const std::string hint = DidYouMean(action, actions);
    return Misuse("unknown events command " + action + (hint.empty() ? "; `td events --help` shows how" : hint));
  }
  if (action == "list" ? operands.size() != 1 : operands.size() != 2) {
    return WrongOperands(self, action == "list" ? "no EVENT after list" : "one EVENT after encode");
  }
  if (pmus && (action != "list" || !pmu.empty())) return Misuse("--pmus goes alone with events list");
  auto library = LoadDefinitions();
  if (!library.ok()) return Fail(library.status().message());
  if (action == "encode") return PrintEncoding(operands[1], pmu, *library);
  if (pmus) {
    PrintPmus(*library);
    return 0;
  }
  auto names = td::ListEvents(pmu, *library);
  if (!names.ok()) return Fail(names.status().message());
  for (const auto& n : *names) std::printf("%s\n", n.c_str());
  return 0;
}

}  // namespace

const cli::Command kEventsCommand = {
    "events", "events list [--pmu NAME | --pmus]\nevents encode EVENT [--pmu NAME]",
    "the events of a PMU, and the perf_event_attr td programs for one",
    "list    the events --pmu accepts, one a line, spelled EVENT.UMASK\n"
    "encode  the perf_event_attr td would program for EVENT, as JSON\n"
    "\n"
    "  --pmu NAME  a libpfm4 PMU (skl, icl, amd64_fam19h_zen4) or a td uarch key\n"
    "              (tgl, zen5); without it, this machine's PMU (the runtime's)\n"
    "  --pmus      list the names --pmu accepts instead of events\n"
    "\n"
    "EVENT is EVENT.UMASK or EVENT:UMASK[:c=N:e:i], in any case, or PMU::EVENT; every\n"
    "spelling of an event encodes the same. perf's generic names (cycles,\n"
    "instructions, task-clock, …) are perf's generic events on every PMU. td's own\n"
    "table wins over libpfm4 where libpfm4 4.13 is wrong or lacks the event.",
    Events};

}  // namespace td::tool

#include "tests/scenarios/run_scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace td::testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Capture(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  size_t got = 0;
  while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, got);
  const int ended = pclose(pipe);
  if (status != nullptr) *status = ended;
  return out;
}

ScenarioRun RunScenario(const std::string& program, const std::string& scenario,
                        const std::vector<std::string>& env) {
  ScenarioRun run;
  const char* tmp = getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/td-scenario-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return run;
  run.dir = pattern;
  std::string command = "cd '" + run.dir + "' && env TD_OUTPUT_DIR='" + run.dir + "'";
  for (const std::string& setting : env) command += " '" + setting + "'";
  command += " '" + program + "' " + scenario + " >stdout.txt 2>stderr.txt";
  const int status = std::system(command.c_str());
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = ReadFile(run.dir + "/stdout.txt");
  run.err = ReadFile(run.dir + "/stderr.txt");
  for (const auto& entry : std::filesystem::directory_iterator(run.dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("td-", 0) != 0 || entry.path().extension() != ".json") continue;
    const bool trace = name.size() > 11 && name.compare(name.size() - 11, 11, ".trace.json") == 0;
    nlohmann::json file = nlohmann::json::parse(ReadFile(entry.path().string()));
    if (!trace) NameCounts(&file);
    (trace ? run.traces : run.reports).push_back(std::move(file));
  }
  return run;
}

const nlohmann::json* FindRegion(const nlohmann::json& run, const std::string& path) {
  for (const auto& region : run.at("regions")) {
    if (region.at("path") == path) return &region;
  }
  return nullptr;
}

double SumOverThreads(const nlohmann::json& region, const std::string& field) {
  double sum = 0;
  // The counts a file leaves out when they are 0 (schema 3); every other field must be there.
  const bool zero_when_absent = field == "recursive_calls" || field == "unterminated" || field == "closed_implicitly";
  for (const auto& t : region.at("threads")) {
    sum += zero_when_absent && !t.contains(field) ? 0.0 : t.at(field).get<double>();
  }
  return sum;
}

void NameCounts(nlohmann::json* run) {
  if (!run->contains("regions") || !run->contains("events")) return;
  const nlohmann::json& events = run->at("events");
  for (auto& region : run->at("regions")) {
    for (auto& t : region.at("threads")) {
      if (!t.contains("inclusive") || t.at("inclusive").is_null()) continue;
      nlohmann::json named = nlohmann::json::object();
      for (size_t e = 0; e < events.size() && e < t.at("inclusive").size(); ++e) {
        named[events[e].at("name").get<std::string>()] = {{"inclusive", t.at("inclusive")[e]},
                                                          {"exclusive", t.at("exclusive")[e]}};
      }
      t["counts_by_name"] = std::move(named);
    }
  }
}

double SumCounter(const nlohmann::json& region, const std::string& event) {
  double sum = 0;
  for (const auto& t : region.at("threads")) {
    sum += t.at("counts_by_name").at(event).at("inclusive").get<double>();
  }
  return sum;
}

}  // namespace td::testing

// Runs the scenario app as a child process and collects what it wrote.
#ifndef TD_TESTS_SCENARIOS_RUN_SCENARIO_H_
#define TD_TESTS_SCENARIOS_RUN_SCENARIO_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"

namespace td::testing {

struct ScenarioRun {
  int exit_code = -1;
  std::string dir;     // working directory and TD_OUTPUT_DIR of the run
  std::string out;     // stdout
  std::string err;     // stderr
  std::vector<nlohmann::json> reports;  // every td-*.json in dir (not traces)
  std::vector<nlohmann::json> traces;   // every td-*.trace.json
};

// `env` holds extra NAME=VALUE settings. TD_OUTPUT_DIR defaults to the run's
// own fresh directory.
ScenarioRun RunScenario(const std::string& program, const std::string& scenario,
                        const std::vector<std::string>& env = {});

// The region with this path ("outer/inner_a"), or nullptr.
const nlohmann::json* FindRegion(const nlohmann::json& run, const std::string& path);

// Gives each thread part of a run file a "counts_by_name" object,
// {event: {"inclusive", "exclusive"}}, from its lists in the order of the
// run's "events", so that tests can name the events they check. RunScenario
// does this to every report it reads.
void NameCounts(nlohmann::json* run);

// Sums a field over a region's threads.
double SumOverThreads(const nlohmann::json& region, const std::string& field);
double SumCounter(const nlohmann::json& region, const std::string& event);

std::string ReadFile(const std::string& path);

// Runs `command` through the shell: its stdout, and its wait status in
// `*status` where given.
std::string Capture(const std::string& command, int* status = nullptr);

}  // namespace td::testing

#endif  // TD_TESTS_SCENARIOS_RUN_SCENARIO_H_

// RunData <-> the td JSON file (schema in docs/json-schema.md).
#ifndef TD_RUNTIME_MODEL_RUN_FILE_H_
#define TD_RUNTIME_MODEL_RUN_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "runtime/model/run_data.h"

namespace td {

nlohmann::json RunToJson(const RunData& data);
// Checks the schema version and every field it reads; errors name the field.
// The key of event `index` in a thread's "counters": its name, or
// "name@gN" for a copy of an event the planner put in several groups.
std::string CounterKey(const CounterLayout& layout, size_t index);

absl::StatusOr<RunData> RunFromJson(const nlohmann::json& json);
absl::StatusOr<RunData> ReadRunFile(const std::string& path);

}  // namespace td

#endif  // TD_RUNTIME_MODEL_RUN_FILE_H_

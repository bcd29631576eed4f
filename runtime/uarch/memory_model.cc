#include "runtime/uarch/memory_model.h"

#include "absl/strings/str_format.h"

namespace td {
namespace {

using nlohmann::json;

absl::Status ParseEvent(const json& j, const std::string& where, MemoryEventDefinition* event) {
  if (!j.is_object()) return absl::InvalidArgumentError(where + " must be an object");
  event->traffic = j.value("traffic", "");
  if (event->traffic != "read" && event->traffic != "write" && event->traffic != "total") {
    return absl::InvalidArgumentError(where + ".traffic must be \"read\", \"write\" or \"total\"");
  }
  event->terms = j.value("terms", "");
  if (event->terms.empty()) return absl::InvalidArgumentError(where + ".terms is missing");
  event->bytes_per_count = j.value("bytes_per_count", 64.0);
  if (event->bytes_per_count <= 0) return absl::InvalidArgumentError(where + ".bytes_per_count must be > 0");
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseMemoryModel(const json& j, MemoryModel* model) {
  if (!j.is_object()) return absl::InvalidArgumentError("\"memory\" must be an object");
  try {
    const json controllers = j.value("controllers", json::array());
    for (size_t c = 0; c < controllers.size(); ++c) {
      const std::string where = absl::StrFormat("memory.controllers[%d]", c);
      MemoryControllerDefinition controller;
      controller.pmu = controllers[c].value("pmu", "");
      if (controller.pmu.empty()) return absl::InvalidArgumentError(where + ".pmu is missing");
      controller.description = controllers[c].value("description", "");
      controller.separate_groups = controllers[c].value("separate_groups", false);
      const json events = controllers[c].value("events", json::array());
      if (events.empty()) return absl::InvalidArgumentError(where + ".events is empty");
      for (size_t e = 0; e < events.size(); ++e) {
        MemoryEventDefinition event;
        if (auto s = ParseEvent(events[e], absl::StrFormat("%s.events[%d]", where, e), &event); !s.ok()) return s;
        controller.events.push_back(std::move(event));
      }
      model->controllers.push_back(std::move(controller));
    }
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrFormat("\"memory\": %s", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace td

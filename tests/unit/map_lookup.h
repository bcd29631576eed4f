// Counts for the metric evaluator from a map keyed by normalised event name,
// tried in the evaluator's spelling order: how unit tests feed it counts.
#ifndef TD_TESTS_UNIT_MAP_LOOKUP_H_
#define TD_TESTS_UNIT_MAP_LOOKUP_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/analysis/metric_evaluator.h"

namespace td {

inline CountLookup MapLookup(const std::map<std::string, double>& counts) {
  return [&counts](const std::vector<std::string>& spellings, std::string*) -> std::optional<double> {
    for (const auto& s : spellings) {
      if (auto it = counts.find(s); it != counts.end()) return it->second;
    }
    return std::nullopt;
  };
}

}  // namespace td

#endif  // TD_TESTS_UNIT_MAP_LOOKUP_H_

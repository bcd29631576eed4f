// A microarchitecture's counter model from the built-in definition files,
// and a raw hardware event, for the tests of the counter models, the group
// planner and the PMU probe.
#ifndef TD_TESTS_UNIT_COUNTER_MODELS_H_
#define TD_TESTS_UNIT_COUNTER_MODELS_H_

#include <linux/perf_event.h>

#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "runtime/counters/backend.h"
#include "runtime/uarch/counter_model.h"
#include "runtime/uarch/definitions.h"
#include "tests/unit/embedded_library.h"

namespace td::counter_models {

// The library is loaded once per test program: a load took ~1 s of CPU under
// ASan + UBSan, and the counter tests ask for models 22 times.
inline CounterModel Model(const std::string& uarch) {
  auto set = EmbeddedLibrary().ForUarch(uarch);
  EXPECT_TRUE(set.ok()) << set.status();
  return set->counters;
}

inline EventInfo Raw(const std::string& name, uint64_t config) {
  EventInfo e;
  e.name = name;
  e.perf_type = PERF_TYPE_RAW;
  e.perf_config = config;
  e.hardware = true;
  return e;
}

}  // namespace td::counter_models

#endif  // TD_TESTS_UNIT_COUNTER_MODELS_H_

// A microarchitecture's counter model from the built-in definition files,
// for the tests of the counter models and of the group planner.
#ifndef TD_TESTS_UNIT_COUNTER_MODELS_H_
#define TD_TESTS_UNIT_COUNTER_MODELS_H_

#include <string>

#include "gtest/gtest.h"
#include "runtime/uarch/counter_model.h"
#include "runtime/uarch/definitions.h"

namespace td::counter_models {

inline CounterModel Model(const std::string& uarch) {
  auto library = DefinitionLibrary::Load();
  EXPECT_TRUE(library.ok());
  auto set = library->ForUarch(uarch);
  EXPECT_TRUE(set.ok()) << set.status();
  return set->counters;
}

}  // namespace td::counter_models

#endif  // TD_TESTS_UNIT_COUNTER_MODELS_H_

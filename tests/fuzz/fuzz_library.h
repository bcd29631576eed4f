// The built-in definitions, loaded once per fuzz target process (they never
// change between inputs). A target that cannot load them is broken, not
// fuzzed: it stops at once with the reason.
#ifndef TD_TESTS_FUZZ_FUZZ_LIBRARY_H_
#define TD_TESTS_FUZZ_FUZZ_LIBRARY_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/uarch/definitions.h"

namespace td::fuzz {

inline const DefinitionLibrary& Library() {
  static const DefinitionLibrary library = [] {
    auto loaded = DefinitionLibrary::Load();
    if (!loaded.ok()) {
      std::fprintf(stderr, "fuzz target: the built-in definitions: %s\n",
                   std::string(loaded.status().message()).c_str());
      std::abort();
    }
    return *std::move(loaded);
  }();
  return library;
}

}  // namespace td::fuzz

#endif  // TD_TESTS_FUZZ_FUZZ_LIBRARY_H_

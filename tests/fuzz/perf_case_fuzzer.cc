// libFuzzer target: a case file (`td recompute`: counts printed by perf stat
// and the metrics wanted from them) of any content is read or rejected with
// a message; a case that reads is recomputed without crashing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/analysis/perf_case.h"
#include "runtime/base/json_file.h"
#include "runtime/uarch/definitions.h"
#include "tests/fuzz/fuzz_library.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const td::DefinitionLibrary& library = td::fuzz::Library();
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto json = td::ParseJsonText(text, "case.json");
  if (!json.ok()) return 0;
  auto c = td::ParsePerfCase(*json);
  if (!c.ok()) return 0;
  (void)td::Recompute(*c, library);
  return 0;
}

// libFuzzer target: `perf stat -x,` output of any content (`td import-perf`)
// is read or rejected with a message; counts that read are recomputed with
// the definitions of a microarchitecture chosen by the first byte.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>

#include "runtime/analysis/perf_case.h"
#include "runtime/uarch/definitions.h"
#include "tests/fuzz/fuzz_library.h"

namespace {

// One per formula family, the hybrid whole-part key, Arm, the generic
// definitions and a name td lacks.
constexpr const char* kUarchs[] = {"skl", "icl", "spr", "adl", "zen4", "neoverse_n2", "generic", "nosuch"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const td::DefinitionLibrary& library = td::fuzz::Library();
  if (size == 0) return 0;
  const std::string uarch = kUarchs[data[0] % std::size(kUarchs)];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto c = td::ParsePerfStatCsv(text, uarch);
  if (!c.ok()) return 0;
  (void)td::Recompute(*c, library);
  return 0;
}

// libFuzzer target: a definition file of any content loads or is rejected
// with a message; loading never crashes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/uarch/definitions.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto library = td::DefinitionLibrary::FromTexts({{"fuzz.json", text}});
  if (library.ok()) {
    for (const auto& uarch : library->Uarchs()) (void)library->ForUarch(uarch);
  }
  return 0;
}

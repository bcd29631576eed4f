// libFuzzer target: any text fed to the formula parser and evaluator must
// give a value or a clear error, never a crash or a hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/uarch/expression.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto e = td::Expression::Parse(text);
  if (!e.ok()) return 0;
  (void)e->Names();
  (void)e->Evaluate([](const std::string& name) {
    return name.size() % 3 == 0 ? td::Value::Missing(name) : td::Value::Of(double(name.size()));
  });
  return 0;
}

// The definitions compiled into td, loaded once per test program: what the
// tests that encode and select events look events and metrics up in.
#ifndef TD_TESTS_UNIT_EMBEDDED_LIBRARY_H_
#define TD_TESTS_UNIT_EMBEDDED_LIBRARY_H_

#include "runtime/uarch/definitions.h"

namespace td {

inline const DefinitionLibrary& EmbeddedLibrary() {
  static const auto* library = new DefinitionLibrary(*DefinitionLibrary::Load());
  return *library;
}

}  // namespace td

#endif  // TD_TESTS_UNIT_EMBEDDED_LIBRARY_H_

// The one early-return for absl::Status used across the runtime and tools.
#ifndef TD_RUNTIME_BASE_STATUS_MACROS_H_
#define TD_RUNTIME_BASE_STATUS_MACROS_H_

#include "absl/status/status.h"

// Evaluates `expr` (an absl::Status) once and returns it from the enclosing
// function when it is not OK.
#define TD_RETURN_IF_ERROR(expr)                     \
  do {                                               \
    ::absl::Status td_status_ = (expr);              \
    if (!td_status_.ok()) return td_status_;         \
  } while (0)

#endif  // TD_RUNTIME_BASE_STATUS_MACROS_H_

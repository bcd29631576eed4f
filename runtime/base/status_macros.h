// The one early-return for absl::Status used across the runtime and tools.
#ifndef TD_RUNTIME_BASE_STATUS_MACROS_H_
#define TD_RUNTIME_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Evaluates `expr` (an absl::Status) once and returns it from the enclosing
// function when it is not OK.
#define TD_RETURN_IF_ERROR(expr)                     \
  do {                                               \
    ::absl::Status td_status_ = (expr);              \
    if (!td_status_.ok()) return td_status_;         \
  } while (0)

// For an absl::StatusOr<T>: evaluates `expr` once, returns its status from
// the enclosing function when it is not OK, else moves its value into `lhs`
// (a declaration such as `RunData run` or an lvalue).
#define TD_ASSIGN_OR_RETURN(lhs, expr) \
  TD_ASSIGN_OR_RETURN_IMPL_(TD_STATUS_MACROS_CONCAT_(td_status_or_, __LINE__), lhs, expr)

#define TD_ASSIGN_OR_RETURN_IMPL_(status_or, lhs, expr) \
  auto status_or = (expr);                              \
  if (!status_or.ok()) return status_or.status();       \
  lhs = *std::move(status_or)
#define TD_STATUS_MACROS_CONCAT_(a, b) TD_STATUS_MACROS_CONCAT_INNER_(a, b)
#define TD_STATUS_MACROS_CONCAT_INNER_(a, b) a##b

#endif  // TD_RUNTIME_BASE_STATUS_MACROS_H_

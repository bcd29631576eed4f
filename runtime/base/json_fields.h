// Reading fields of a parsed JSON document without exceptions and without
// undefined behaviour: every reader of files td did not write itself (run
// files, perf cases, definitions, calibrations) goes through these, so a
// wrong type, a fraction where an integer belongs or a number past the
// target type's range is one error line naming the field.
#ifndef TD_RUNTIME_BASE_JSON_FIELDS_H_
#define TD_RUNTIME_BASE_JSON_FIELDS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace td::json_fields {

using json = nlohmann::json;

inline absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// A value as the file has it, short enough for one error line.
inline std::string Shown(const json& v) {
  std::string text = v.dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

inline std::string TypeError(const std::string& name, const char* expected, const json& v) {
  return absl::StrFormat("%s: expected %s, got %s %s", name, expected, v.type_name(), Shown(v));
}

// v as an integer of type T within [lo, hi]; negative, fractional, too large
// (JSON numbers past 2^64 parse as floating point) and non-numbers are errors.
template <typename T>
absl::Status ToInteger(const json& v, const std::string& name, T* out,
                       T lo = std::numeric_limits<T>::min(), T hi = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  const std::string range = absl::StrFormat("%s = %s is not an integer from %d to %d", name, Shown(v), lo, hi);
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if ((lo > 0 && u < static_cast<uint64_t>(lo)) || u > static_cast<uint64_t>(hi)) return Invalid(range);
    *out = static_cast<T>(u);
    return absl::OkStatus();
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < 0 ? (std::is_unsigned_v<T> || i < static_cast<int64_t>(lo))
              : (static_cast<uint64_t>(i) > static_cast<uint64_t>(hi) ||
                 (lo > 0 && static_cast<uint64_t>(i) < static_cast<uint64_t>(lo)))) {
      return Invalid(range);
    }
    *out = static_cast<T>(i);
    return absl::OkStatus();
  }
  if (v.is_number_float()) return Invalid(range);  // 1e30, 2.5, inf: never a count
  return Invalid(TypeError(name, "an integer", v));
}

// j[key], which must exist: errors read "WHERE: missing field "KEY"".
inline absl::StatusOr<const json*> Field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object()) return Invalid(TypeError(where, "an object", j));
  const auto it = j.find(key);
  if (it == j.end()) return Invalid(absl::StrFormat("%s: missing field \"%s\"", where, key));
  return &*it;
}

// Reads j[key] into *out, checking its type (and, for integers, that it fits).
template <typename T>
absl::Status Get(const json& j, const char* key, T* out, const std::string& where) {
  absl::StatusOr<const json*> v = Field(j, key, where);
  if (!v.ok()) return v.status();
  const std::string name = where + "." + key;
  if constexpr (std::is_same_v<T, bool>) {
    if (!(*v)->is_boolean()) return Invalid(TypeError(name, "true or false", **v));
    *out = (*v)->template get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    return ToInteger(**v, name, out);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!(*v)->is_string()) return Invalid(TypeError(name, "a string", **v));
    *out = (*v)->template get<std::string>();
  } else {
    static_assert(std::is_same_v<T, std::vector<std::string>>);
    if (!(*v)->is_array()) return Invalid(TypeError(name, "a list of strings", **v));
    out->clear();
    for (size_t i = 0; i < (*v)->size(); ++i) {
      const json& item = (**v)[i];
      if (!item.is_string()) return Invalid(TypeError(absl::StrFormat("%s[%d]", name, i), "a string", item));
      out->push_back(item.get<std::string>());
    }
  }
  return absl::OkStatus();
}

// Like Get for integers, with bounds of its own (counts and times are never negative).
template <typename T>
absl::Status GetInRange(const json& j, const char* key, T* out, const std::string& where, T lo, T hi) {
  absl::StatusOr<const json*> v = Field(j, key, where);
  if (!v.ok()) return v.status();
  return ToInteger(**v, where + "." + key, out, lo, hi);
}

// j[key], which must be a JSON array (`*out` points into j).
inline absl::Status GetArray(const json& j, const char* key, const json** out, const std::string& where) {
  absl::StatusOr<const json*> v = Field(j, key, where);
  if (!v.ok()) return v.status();
  if (!(*v)->is_array()) return Invalid(TypeError(where + "." + key, "a list", **v));
  *out = *v;
  return absl::OkStatus();
}

// j[key], which must be a JSON object.
inline absl::Status GetObject(const json& j, const char* key, const json** out, const std::string& where) {
  absl::StatusOr<const json*> v = Field(j, key, where);
  if (!v.ok()) return v.status();
  if (!(*v)->is_object()) return Invalid(TypeError(where + "." + key, "an object", **v));
  *out = *v;
  return absl::OkStatus();
}

// j[key] as an integer in [lo, hi] when present, `fallback` when absent.
template <typename T>
absl::Status GetOptionalInteger(const json& j, const char* key, T fallback, T* out, const std::string& where,
                                T lo = std::numeric_limits<T>::min(), T hi = std::numeric_limits<T>::max()) {
  *out = fallback;
  if (!j.is_object()) return Invalid(TypeError(where, "an object", j));
  const auto it = j.find(key);
  if (it == j.end()) return absl::OkStatus();
  return ToInteger(*it, where + "." + key, out, lo, hi);
}

// j[key] as a finite number when present, `fallback` when absent.
inline absl::Status GetOptionalNumber(const json& j, const char* key, double fallback, double* out,
                                      const std::string& where) {
  *out = fallback;
  if (!j.is_object()) return Invalid(TypeError(where, "an object", j));
  const auto it = j.find(key);
  if (it == j.end()) return absl::OkStatus();
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    return Invalid(TypeError(where + "." + key, "a finite number", *it));
  }
  *out = it->get<double>();
  return absl::OkStatus();
}

}  // namespace td::json_fields

#endif  // TD_RUNTIME_BASE_JSON_FIELDS_H_

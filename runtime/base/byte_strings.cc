#include "runtime/base/byte_strings.h"

#include <cstdint>

namespace td {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when s[i] does not start
// one (RFC 3629, table 3-7 of the Unicode standard).
size_t SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // the second byte's range
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;   // overlong
    if (b0 == 0xED) high = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;   // overlong
    if (b0 == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

bool IsControl(uint8_t b) { return b < 0x20 || b == 0x7F; }

// C1 controls U+0080..U+009F, which some terminals act on: C2 80..C2 9F.
bool IsC1Control(std::string_view s, size_t i, size_t length) {
  return length == 2 && static_cast<uint8_t>(s[i]) == 0xC2 && static_cast<uint8_t>(s[i + 1]) <= 0x9F;
}

void AppendHexByte(uint8_t b, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  *out += "\\x";
  *out += kHex[b >> 4];
  *out += kHex[b & 0xF];
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One piece of the input: a valid UTF-8 sequence, or a single byte written
// as \xHH.
struct Unit {
  size_t length = 1;
  bool escaped = false;
};

// `escape_more`: also write '/' and control characters (C0, DEL, C1) as \xHH.
Unit UnitAt(std::string_view s, size_t i, bool escape_more) {
  const size_t length = SequenceLength(s, i);
  if (length == 0) return {1, true};
  if (escape_more) {
    const uint8_t b = static_cast<uint8_t>(s[i]);
    if (length == 1 && (b == '/' || IsControl(b))) return {1, true};
    if (IsC1Control(s, i, length)) return {1, true};  // each byte on its own
  }
  return {length, false};
}

std::string Escape(std::string_view s, bool escape_more) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  Unit unit = s.empty() ? Unit{} : UnitAt(s, 0, escape_more);
  while (i < s.size()) {
    const size_t next = i + unit.length;
    const Unit following = next < s.size() ? UnitAt(s, next, escape_more) : Unit{};
    if (unit.escaped) {
      AppendHexByte(static_cast<uint8_t>(s[i]), &out);
    } else if (s[i] == '\\') {
      // Doubled only where a single one would start an escape when read back.
      const bool ambiguous = next < s.size() && (following.escaped || s[next] == '\\' || s[next] == 'x');
      out += ambiguous ? "\\\\" : "\\";
    } else {
      out.append(s.substr(i, unit.length));
    }
    i = next;
    unit = following;
  }
  return out;
}

bool NeedsNoEscape(std::string_view s, bool escape_more) {
  for (char c : s) {
    const auto b = static_cast<uint8_t>(c);
    if (b >= 0x80 || c == '\\' || (escape_more && (c == '/' || IsControl(b)))) return false;
  }
  return true;
}

}  // namespace

bool IsValidUtf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    const size_t length = SequenceLength(bytes, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string EscapeBytes(std::string_view bytes) {
  if (NeedsNoEscape(bytes, false)) return std::string(bytes);
  return Escape(bytes, false);
}

std::string PathComponent(std::string_view name) {
  if (NeedsNoEscape(name, true)) return std::string(name);
  return Escape(name, true);
}

std::string UnescapeBytes(std::string_view text) {
  if (text.find('\\') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    if (text[i + 1] == '\\') {
      out += '\\';
      ++i;
      continue;
    }
    if (text[i + 1] == 'x' && i + 3 < text.size() && HexValue(text[i + 2]) >= 0 && HexValue(text[i + 3]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 2]) * 16 + HexValue(text[i + 3]));
      i += 3;
      continue;
    }
    out += '\\';
  }
  return out;
}

std::string Printable(std::string_view bytes) {
  bool clean = true;
  for (char c : bytes) {
    const auto b = static_cast<uint8_t>(c);
    if (b >= 0x80 || IsControl(b)) {
      clean = false;
      break;
    }
  }
  if (clean) return std::string(bytes);
  std::string out;
  out.reserve(bytes.size() + 8);
  for (size_t i = 0; i < bytes.size();) {
    const size_t length = SequenceLength(bytes, i);
    const auto b = static_cast<uint8_t>(bytes[i]);
    if (length == 0 || (length == 1 && IsControl(b)) || IsC1Control(bytes, i, length)) {
      AppendHexByte(b, &out);
      ++i;
      continue;
    }
    out.append(bytes.substr(i, length));
    i += length;
  }
  return out;
}

void MakeJsonStringsValid(nlohmann::json* value) {
  if (value->is_string()) {
    const auto& s = value->get_ref<const std::string&>();
    if (!IsValidUtf8(s)) *value = EscapeBytes(s);
    return;
  }
  if (value->is_array()) {
    for (auto& element : *value) MakeJsonStringsValid(&element);
    return;
  }
  if (!value->is_object()) return;
  bool keys_valid = true;
  for (auto it = value->begin(); it != value->end(); ++it) {
    keys_valid = keys_valid && IsValidUtf8(it.key());
    MakeJsonStringsValid(&it.value());
  }
  if (keys_valid) return;
  nlohmann::json rebuilt = nlohmann::json::object();
  for (auto it = value->begin(); it != value->end(); ++it) {
    rebuilt[IsValidUtf8(it.key()) ? it.key() : EscapeBytes(it.key())] = std::move(it.value());
  }
  *value = std::move(rebuilt);
}

std::string DumpJson(const nlohmann::json& value, int indent) {
  try {
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (...) {
    return "";  // out of memory: the caller says it could not write
  }
}

}  // namespace td

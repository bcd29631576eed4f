// The JSON tokens run_file_scan.cc reads straight from a run file's text:
// a cursor that gives up (returns false) on anything but the plain shape td
// writes, and key matching that tries the key td writes next first. Internal
// to the recorded stage.
#ifndef TD_RUNTIME_RECORDED_JSON_CURSOR_H_
#define TD_RUNTIME_RECORDED_JSON_CURSOR_H_

#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace td::json_scan {

// A cursor over JSON text. Every method returns false where the text is not
// what the fast path takes; the cursor is then of no further use.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  // The loops below work on a local copy of the position: a char read may
  // alias the member, which would otherwise be stored back at every byte.
  void SkipSpace() {
    const char* p = p_;
    while (p < end_ && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    p_ = p;
  }
  bool AtEnd() {
    SkipSpace();
    return p_ == end_;
  }
  // Consumes `c` (after white space) when it is next.
  bool Take(char c) {
    SkipSpace();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool Next(char c) {
    SkipSpace();
    return p_ < end_ && *p_ == c;
  }
  // After a member or element: true with *more when a ',' followed, true
  // without when `close` did.
  bool Separator(char close, bool* more) {
    SkipSpace();
    if (p_ < end_ && *p_ == ',') {
      ++p_;
      *more = true;
      return true;
    }
    if (p_ < end_ && *p_ == close) {
      ++p_;
      *more = false;
      return true;
    }
    return false;
  }

  // `"key":`, as td writes a member's key, when it comes next (after white
  // space); nothing else is consumed. `key` has no '"' or '\\' in it.
  bool TakeKey(std::string_view key) {
    SkipSpace();
    const size_t n = key.size();
    if (static_cast<size_t>(end_ - p_) < n + 3 || p_[0] != '"' || p_[n + 1] != '"' || p_[n + 2] != ':') return false;
    for (size_t i = 0; i < n; ++i) {
      if (p_[i + 1] != key[i]) return false;
    }
    p_ += n + 3;
    return true;
  }

  // A string without escapes, as it stands in the text (keys, counter names).
  bool RawString(std::string_view* out) {
    if (!Take('"')) return false;
    const char* start = p_;
    bool ascii = true;
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c == '\\' || c < 0x20) return false;
      ascii = ascii && c < 0x80;
      ++p_;
    }
    if (p_ == end_) return false;
    *out = std::string_view(start, static_cast<size_t>(p_ - start));
    ++p_;
    return ascii || IsValidUtf8(*out);
  }

  // A string, its escapes decoded as nlohmann decodes them.
  bool String(std::string* out) {
    if (!Take('"')) return false;
    out->clear();
    const char* run = p_;
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') break;
      if (c < 0x20) return false;
      if (c != '\\') {
        ++p_;
        continue;
      }
      out->append(run, p_);
      if (p_ + 1 >= end_) return false;
      switch (p_[1]) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'n': *out += '\n'; break;
        case 'r': *out += '\r'; break;
        case 't': *out += '\t'; break;
        case 'u': {
          // \uXXXX (nlohmann writes control bytes so), a surrogate pair as one code point.
          uint32_t code = 0;
          if (!Hex4(p_ + 2, &code)) return false;
          p_ += 4;
          if (code >= 0xDC00 && code <= 0xDFFF) return false;
          if (code >= 0xD800 && code <= 0xDBFF) {
            uint32_t low = 0;
            if (end_ - p_ < 8 || p_[2] != '\\' || p_[3] != 'u' || !Hex4(p_ + 4, &low) || low < 0xDC00 ||
                low > 0xDFFF) {
              return false;
            }
            p_ += 6;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(code, out);
          break;
        }
        default: return false;
      }
      p_ += 2;
      run = p_;
    }
    if (p_ == end_) return false;
    out->append(run, p_);
    ++p_;
    return IsValidUtf8(*out);
  }

  // A JSON integer without sign, fraction or exponent, up to `max`.
  bool Unsigned(uint64_t* out, uint64_t max = std::numeric_limits<uint64_t>::max()) {
    SkipSpace();
    return Digits(out, max);
  }

  // An integer in [lo, hi]; a '-' only where lo is negative.
  bool Signed(int64_t* out, int64_t lo, int64_t hi) {
    SkipSpace();
    const bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    uint64_t magnitude = 0;
    if (!Digits(&magnitude, std::numeric_limits<uint64_t>::max())) return false;
    if (negative) {
      // "-0" is 0 to nlohmann: left to the full reader, as is anything below INT64_MIN.
      if (magnitude == 0 || magnitude > uint64_t{1} << 63) return false;
      *out = -static_cast<int64_t>(magnitude - 1) - 1;
    } else {
      if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
      *out = static_cast<int64_t>(magnitude);
    }
    return *out >= lo && *out <= hi;
  }

  bool Null() {
    SkipSpace();
    if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
      p_ += 4;
      return true;
    }
    return false;
  }

  // Any value, skipped; its text in *span. Only roughly checked: the spans
  // are parsed by nlohmann afterwards.
  bool SkipValue(std::string_view* span) {
    SkipSpace();
    const char* start = p_;
    int depth = 0;
    do {
      SkipSpace();
      if (p_ == end_) return false;
      const char c = *p_;
      if (c == '{' || c == '[') {
        ++depth;
        ++p_;
      } else if (c == '}' || c == ']') {
        if (--depth < 0) return false;
        ++p_;
      } else if (c == ',' || c == ':') {
        if (depth == 0) return false;
        ++p_;
      } else if (c == '"') {
        ++p_;
        while (p_ < end_ && *p_ != '"') {
          if (*p_ == '\\' && ++p_ == end_) return false;
          ++p_;
        }
        if (p_ == end_) return false;
        ++p_;
      } else {
        const char* token = p_;
        while (p_ < end_ && ((*p_ >= '0' && *p_ <= '9') || (*p_ >= 'a' && *p_ <= 'z') || *p_ == '-' ||
                             *p_ == '+' || *p_ == '.' || *p_ == 'E')) {
          ++p_;
        }
        if (p_ == token) return false;
      }
    } while (depth > 0);
    *span = std::string_view(start, static_cast<size_t>(p_ - start));
    return true;
  }

 private:
  // Four hex digits at `at` (within the text) as a number.
  bool Hex4(const char* at, uint32_t* out) const {
    if (end_ - at < 4) return false;
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = at[i];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) return false;
      value = value * 16 + static_cast<uint32_t>(digit);
    }
    *out = value;
    return true;
  }

  static void AppendUtf8(uint32_t code, std::string* out) {
    if (code < 0x80) {
      *out += static_cast<char>(code);
    } else if (code < 0x800) {
      *out += static_cast<char>(0xC0 | (code >> 6));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      *out += static_cast<char>(0xE0 | (code >> 12));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      *out += static_cast<char>(0xF0 | (code >> 18));
      *out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  // Digits right here, as one JSON integer.
  bool Digits(uint64_t* out, uint64_t max) {
    const char* p = p_;
    if (p == end_ || *p < '0' || *p > '9') return false;
    const char* first = p;
    uint64_t value = 0;
    while (p < end_ && *p >= '0' && *p <= '9') {
      value = value * 10 + static_cast<uint64_t>(*p - '0');
      ++p;
    }
    p_ = p;
    // 19 digits never overflow; 20 and more are read again, checked.
    if (p - first >= 20) {
      value = 0;
      for (const char* d = first; d < p; ++d) {
        const uint64_t digit = static_cast<uint64_t>(*d - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
        value = value * 10 + digit;
      }
    }
    // Digits after a leading 0 are not JSON; a fraction or exponent makes a
    // float to nlohmann.
    if (*first == '0' && p - first > 1) return false;
    if (p < end_ && (*p == '.' || *p == 'e' || *p == 'E')) return false;
    if (value > max) return false;
    *out = value;
    return true;
  }

  const char* p_;
  const char* end_;
};

// Short byte strings compared inline (a call to memcmp costs more than these keys).
inline bool SameBytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// kKeys[i] is `key`, or -1. `expected` is tried first: td writes the keys
// sorted, so the next key is usually the one after the last.
template <size_t N>
int KeyIndex(std::string_view key, const std::string_view (&keys)[N], int expected) {
  if (expected >= 0 && expected < static_cast<int>(N) && SameBytes(keys[expected], key)) return expected;
  for (size_t i = 0; i < N; ++i) {
    if (SameBytes(keys[i], key)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace td::json_scan

#endif  // TD_RUNTIME_RECORDED_JSON_CURSOR_H_

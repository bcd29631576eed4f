// Names are byte strings. Region names, the program's name and arguments,
// host names and paths are whatever bytes the program or the system gave td:
// they need not be UTF-8, and may hold control characters. These functions
// write them where only text may go (JSON, terminals, CSV, HTML) and read
// them back, as docs/json-schema.md ("Byte strings") describes:
//
//  * EscapeBytes: lossless. Valid UTF-8 is kept as is; each byte that is not
//    part of valid UTF-8 becomes the four characters \xHH (lowercase hex);
//    a backslash of the original is doubled (\\) when it comes before an
//    'x', another backslash or an escaped byte, so that no original text
//    reads as an escape. UnescapeBytes gives back the exact bytes.
//  * PathComponent: EscapeBytes that also writes '/' and control characters
//    as \xHH, so region paths ("outer/inner") stay unique and printable.
//  * Printable: for people (text, CSV, HTML): invalid bytes and control
//    characters as \xHH, everything else (backslashes too) as is.
#ifndef TD_RUNTIME_BASE_BYTE_STRINGS_H_
#define TD_RUNTIME_BASE_BYTE_STRINGS_H_

#include <string>
#include <string_view>

#include "nlohmann/json.hpp"

namespace td {

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above
// U+10FFFF; what nlohmann::json accepts.
bool IsValidUtf8(std::string_view bytes);

std::string EscapeBytes(std::string_view bytes);
// The inverse of EscapeBytes (and of PathComponent). Text that EscapeBytes
// could not have written (a lone "\x" without two hex digits, say) is kept
// as it reads.
std::string UnescapeBytes(std::string_view text);

std::string PathComponent(std::string_view name);

// Idempotent: Printable(Printable(s)) == Printable(s).
std::string Printable(std::string_view bytes);

// The whole value made safe to dump: every string and key that is not valid
// UTF-8 is replaced by its EscapeBytes form. For outputs that are not read
// back; the recording's own fields are escaped field by field.
void MakeJsonStringsValid(nlohmann::json* value);

// json.dump that never throws: invalid UTF-8 left anywhere (there should be
// none) is replaced by U+FFFD rather than ending the program.
std::string DumpJson(const nlohmann::json& value, int indent = -1);

}  // namespace td

#endif  // TD_RUNTIME_BASE_BYTE_STRINGS_H_

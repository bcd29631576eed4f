// Names as byte strings (EscapeBytes, PathComponent, Printable): kept
// losslessly, valid UTF-8 in JSON, never a control byte on a terminal.
#include "runtime/base/byte_strings.h"

#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace td {
namespace {

TEST(ByteStrings, ValidUtf8WithoutBackslashesIsKeptAsItIs) {
  for (const std::string s : {"", "outer", "caf\xc3\xa9", "\xe2\x80\x94 \xf0\x9f\x98\x80", "a/b", "x"}) {
    EXPECT_EQ(EscapeBytes(s), s);
  }
}

TEST(ByteStrings, InvalidBytesAreWrittenAsHex) {
  EXPECT_EQ(EscapeBytes("caf\xe9.txt"), "caf\\xe9.txt");
  EXPECT_EQ(EscapeBytes("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(EscapeBytes("x\xc3"), "x\\xc3");                  // lone lead byte
  EXPECT_EQ(EscapeBytes("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(EscapeBytes("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(EscapeBytes("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

TEST(ByteStrings, OnlyBackslashesThatWouldReadAsEscapesAreDoubled) {
  EXPECT_EQ(EscapeBytes("C:\\dir\\file"), "C:\\dir\\file");
  EXPECT_EQ(EscapeBytes("\\xe9"), "\\\\xe9");       // the text \xe9, not the byte
  EXPECT_EQ(EscapeBytes("a\\\\b"), "a\\\\\\b");     // two backslashes: the first doubled
  EXPECT_EQ(EscapeBytes("\\\xe9"), "\\\\\\xe9");    // a backslash, then an invalid byte
  EXPECT_EQ(EscapeBytes("end\\"), "end\\");
}

TEST(ByteStrings, PathComponentsHaveNoSlashAndNoControlBytes) {
  EXPECT_EQ(PathComponent("a/b"), "a\\x2fb");
  EXPECT_EQ(PathComponent("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(PathComponent("copy[12]"), "copy[12]");
  EXPECT_EQ(PathComponent("\xc2\x9b"), "\\xc2\\x9b");  // C1 control (CSI)
  EXPECT_NE(PathComponent("a/b"), PathComponent("a\\x2fb"));
}

// Every string over an alphabet chosen to collide with the escapes, up to
// four characters, and random byte strings: the text is valid UTF-8 and
// reads back into the same bytes.
TEST(ByteStrings, EveryByteStringRoundTrips) {
  const std::string alphabet = std::string("\\x2fE9/A\x1b\xe9\xc3\xa9") + std::string(1, '\0');
  std::vector<std::string> cases = {""};
  for (int length = 1; length <= 4; ++length) {
    const size_t before = cases.size();
    for (size_t i = 0; i < before; ++i) {
      if (cases[i].size() != static_cast<size_t>(length - 1)) continue;
      for (char c : alphabet) cases.push_back(cases[i] + c);
    }
  }
  std::mt19937 random(42);
  for (int i = 0; i < 20000; ++i) {
    std::string s(random() % 16, '\0');
    for (char& c : s) c = static_cast<char>(random() % 4 == 0 ? '\\' : random() % 256);
    cases.push_back(s);
  }
  for (const std::string& s : cases) {
    const std::string text = EscapeBytes(s);
    ASSERT_TRUE(IsValidUtf8(text)) << text;
    ASSERT_EQ(UnescapeBytes(text), s) << text;
    const std::string component = PathComponent(s);
    ASSERT_TRUE(IsValidUtf8(component)) << component;
    ASSERT_EQ(component.find('/'), std::string::npos) << component;
    ASSERT_EQ(Printable(component), component);
    ASSERT_EQ(UnescapeBytes(component), s) << component;
    const std::string shown = Printable(s);
    ASSERT_TRUE(IsValidUtf8(shown));
    ASSERT_EQ(Printable(shown), shown);
  }
}

TEST(ByteStrings, PrintableEscapesControlsAndBadBytesOnly) {
  EXPECT_EQ(Printable("\x1b[2Jred\a"), "\\x1b[2Jred\\x07");
  EXPECT_EQ(Printable("caf\xe9 \\ caf\xc3\xa9"), "caf\\xe9 \\ caf\xc3\xa9");
  EXPECT_EQ(Printable("line\nnext\t"), "line\\x0anext\\x09");
}

TEST(ByteStrings, MakeJsonStringsValidLeavesNothingToThrowOn) {
  nlohmann::json j = {{"name", "\xff"}, {"list", {"ok", "x\xc3"}}, {"nested", {{"\xfe", 1}}}};
  MakeJsonStringsValid(&j);
  EXPECT_NO_THROW(j.dump());
  EXPECT_EQ(j["name"], "\\xff");
  EXPECT_EQ(j["list"][1], "x\\xc3");
  EXPECT_EQ(j["nested"]["\\xfe"], 1);
  nlohmann::json raw = {{"name", "\xff"}};
  EXPECT_EQ(DumpJson(raw), "{\"name\":\"\xef\xbf\xbd\"}");  // the last line of defence
}

}  // namespace
}  // namespace td

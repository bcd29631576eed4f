// Text for people shared by every report (runtime/base/text_format): a CSV
// cell quoted when it must be, neutralised when a spreadsheet would read it
// as a formula, numbers left as they are.
#include "runtime/base/text_format.h"

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(Csv, TextCellsThatLookLikeFormulasAreNeutralised) {
  EXPECT_EQ(CsvField("=1+2"), "'=1+2");
  EXPECT_EQ(CsvField("+cmd"), "'+cmd");
  EXPECT_EQ(CsvField("-x"), "'-x");
  EXPECT_EQ(CsvField("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvField("=HYPERLINK(\"a\",\"b\")"), "\"'=HYPERLINK(\"\"a\"\",\"\"b\"\")\"");
  EXPECT_EQ(CsvField("-0.5"), "-0.5");  // numbers stay numbers
  EXPECT_EQ(CsvField("+3"), "+3");
  EXPECT_EQ(CsvField("-1e-3"), "-1e-3");
  EXPECT_EQ(CsvField("outer/inner"), "outer/inner");
  EXPECT_EQ(CsvField("bell\a"), "bell\\x07");
}

TEST(Counted, OneIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(Counted(1, "counter group"), "1 counter group");
  EXPECT_EQ(Counted(0, "counter group"), "0 counter groups");
  EXPECT_EQ(Counted(2, "region"), "2 regions");
}

}  // namespace
}  // namespace td

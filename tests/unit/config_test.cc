#include "runtime/core/config.h"

#include <map>

#include "gtest/gtest.h"

namespace td {
namespace {

Config Read(const std::map<std::string, std::string>& vars, std::vector<std::string>* errors) {
  return ReadConfig(
      [&vars](const char* name) -> const char* {
        auto it = vars.find(name);
        return it == vars.end() ? nullptr : it->second.c_str();
      },
      errors);
}

TEST(Config, DefaultsWhenNothingIsSet) {
  std::vector<std::string> errors;
  const Config c = Read({}, &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(c.disabled);
  EXPECT_TRUE(c.write_json);
  EXPECT_EQ(c.json_dir, ".");
  EXPECT_EQ(c.text_output, "");
  EXPECT_EQ(c.backend, BackendChoice::kPerfEvent);
  EXPECT_TRUE(c.rdpmc);
}

TEST(Config, ReadsEveryVariable) {
  std::vector<std::string> errors;
  const Config c = Read({{"TD_DISABLE", "Yes"},
                         {"TD_JSON", "off"},
                         {"TD_OUTPUT", "report.txt"},
                         {"TD_OUTPUT_DIR", "/tmp/x"},
                         {"TD_BACKEND", "none"},
                         {"TD_QUIET", "1"},
                         {"TD_RDPMC", "off"}},
                        &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(c.rdpmc);
  EXPECT_TRUE(c.disabled);
  EXPECT_FALSE(c.write_json);
  EXPECT_TRUE(c.quiet);
  EXPECT_EQ(c.text_output, "report.txt");
  EXPECT_EQ(c.json_dir, "/tmp/x");
  EXPECT_EQ(c.backend, BackendChoice::kNone);
}

TEST(Config, BadValuesNameTheVariableAndKeepDefaults) {
  std::vector<std::string> errors;
  const Config c = Read({{"TD_DISABLE", "2"}, {"TD_BACKEND", "papy"}, {"TD_OUTPUT_DIR", ""}},
                        &errors);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0],
            "TD_DISABLE=\"2\" is not understood; accepted: 1, 0, true, false, yes, no, on, off; "
            "using 0");
  EXPECT_NE(errors[1].find("TD_OUTPUT_DIR"), std::string::npos);
  EXPECT_NE(errors[2].find("TD_BACKEND=\"papy\""), std::string::npos);
  EXPECT_NE(errors[2].find("accepted: perf, papi, none"), std::string::npos);
  EXPECT_FALSE(c.disabled);
  EXPECT_EQ(c.json_dir, ".");
  EXPECT_EQ(c.backend, BackendChoice::kPerfEvent);
}

TEST(ParseBool, AcceptsCommonSpellings) {
  bool v = false;
  EXPECT_TRUE(ParseBool("TRUE", &v));
  EXPECT_TRUE(v);
  EXPECT_TRUE(ParseBool("no", &v));
  EXPECT_FALSE(v);
  EXPECT_FALSE(ParseBool("enable", &v));
}

}  // namespace
}  // namespace td

namespace td {
namespace {

TEST(Config, EventsLevelAndPass) {
  std::vector<std::string> errors;
  Config c = Read({{"TD_EVENTS", "cycles,{a,b}"}, {"TD_LEVEL", "4"}, {"TD_PASS", "2/3"}, {"TD_BACKEND", "papi"}},
                  &errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(c.events, "cycles,{a,b}");
  EXPECT_EQ(c.level, 4);
  EXPECT_EQ(c.pass, 2);
  EXPECT_EQ(c.passes, 3);
  EXPECT_EQ(c.backend, BackendChoice::kPapi);
  c = Read({{"TD_LEVEL", "9"}, {"TD_PASS", "4/3"}}, &errors);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0], "TD_LEVEL=\"9\" is not understood; accepted: 1 to 6; using 2");
  EXPECT_NE(errors[1].find("TD_PASS=\"4/3\""), std::string::npos);
  EXPECT_EQ(c.passes, 1);
}

}  // namespace
}  // namespace td

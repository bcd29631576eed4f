// The recorded-run file (runtime/model/run_file.*): RunData to JSON and back,
// exactly, names that are not UTF-8 included; errors name the field.
#include "runtime/model/run_file.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/base/byte_strings.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::MultiplexedRun;
using sample_runs::OddRun;
using sample_runs::TwoThreadRun;

TEST(JsonReport, RoundTripsExactly) {
  const RunData data = TwoThreadRun();
  const nlohmann::json first = RunToJson(data);
  absl::StatusOr<RunData> back = RunFromJson(first);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(RunToJson(*back), first);
  EXPECT_EQ(back->regions[1].threads[0].events[1].inclusive, 1'500'000u);
  EXPECT_TRUE(back->regions[0].threads[1].events.empty());
  EXPECT_EQ(back->layout.words, data.layout.words);
}

// The runtime writes the file region by region (RunFileText); the bytes are
// those of the whole document dumped at once, with and without regions, and
// with names that are not UTF-8.
TEST(JsonReport, RunFileTextIsTheDumpedDocument) {
  RunData data = TwoThreadRun();
  EXPECT_EQ(RunFileText(data), DumpJson(RunToJson(data), 1) + "\n");
  data.regions[1].name = "in\xff\"ner";
  data.regions[1].path = "outer/in\xff\"ner";
  data.program.name = "regions\": []";
  EXPECT_EQ(RunFileText(data), DumpJson(RunToJson(data), 1) + "\n");
  data.regions.clear();
  EXPECT_EQ(RunFileText(data), DumpJson(RunToJson(data), 1) + "\n");
  EXPECT_NE(RunFileText(data).find("\"regions\": []"), std::string::npos);
  absl::StatusOr<RunData> read = RunFromJson(nlohmann::json::parse(RunFileText(TwoThreadRun())));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->regions.size(), 2u);
}

TEST(JsonReport, NotMeasuredIsNullNotZero) {
  const nlohmann::json j = RunToJson(TwoThreadRun());
  EXPECT_TRUE(j["regions"][0]["threads"][1]["counters"].is_null());
  EXPECT_EQ(j["regions"][0]["threads"][0]["counters"]["task-clock"]["exclusive"], 400'000);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["events"][0]["name"], "page-faults");
  EXPECT_EQ(j["events"][1]["group"], 0);
}

TEST(JsonReport, ErrorsNameTheField) {
  nlohmann::json j = RunToJson(TwoThreadRun());
  j["regions"][1]["threads"][0].erase("calls");
  auto missing = RunFromJson(j);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "regions[1].threads[0]: missing field \"calls\"");
  j = RunToJson(TwoThreadRun());
  j["schema_version"] = 99;
  auto version = RunFromJson(j);
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.status().message().find("schema_version 99"), std::string::npos);
}

TEST(JsonReport, NamesThatAreNotUtf8RoundTripExactly) {
  const RunData data = OddRun();
  const nlohmann::json j = RunToJson(data);
  std::string text;
  ASSERT_NO_THROW(text = j.dump(1));  // the strict dump: everything is valid UTF-8
  EXPECT_EQ(j["program"]["name"], "prog\\xe9");
  EXPECT_EQ(j["program"]["argv"][2], "\\\\x41");
  EXPECT_EQ(j["regions"][1]["path"], "\\xff\\xfe/a\\x2fb\\x1b");
  absl::StatusOr<RunData> back = RunFromJson(nlohmann::json::parse(text));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->program.name, data.program.name);
  EXPECT_EQ(back->program.argv, data.program.argv);
  EXPECT_EQ(back->machine.hostname, data.machine.hostname);
  EXPECT_EQ(back->regions[0].name, "\xff\xfe");
  EXPECT_EQ(back->regions[1].name, "a/b\x1b");
  EXPECT_EQ(back->regions[1].path, data.regions[1].path);
  EXPECT_EQ(back->diagnostics[0].message, data.diagnostics[0].message);
  EXPECT_EQ(RunToJson(*back), j);
}

TEST(Coverage, AnEventInTwoGroupsKeepsBothCopiesInJson) {
  RunData data = MultiplexedRun();
  EventInfo again = data.layout.events.back();  // "instructions" once more, in group 2
  data.layout.AddGroup({again});
  for (Region& r : data.regions) {
    r.threads[0].events.push_back({7, 7});
    r.threads[0].groups.push_back({1000, 1000});
  }
  const nlohmann::json j = RunToJson(data);
  const nlohmann::json& counters = j.at("regions")[0].at("threads")[0].at("counters");
  EXPECT_EQ(counters.at("instructions").at("inclusive"), 500000);
  EXPECT_EQ(counters.at("instructions@g2").at("inclusive"), 7);
  auto back = RunFromJson(j);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->regions[0].threads[0].events.back().inclusive, 7u);
  EXPECT_EQ(back->layout.GroupOf(back->layout.events.size() - 1), 2u);
}

}  // namespace
}  // namespace td

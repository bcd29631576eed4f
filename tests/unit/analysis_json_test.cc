// `td report --json`: every region with what was measured, null where not.
#include "runtime/report/analysis_json.h"

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::NoPmuRun;
using sample_runs::NoTree;

TEST(NoPmuOutputs, JsonHasEveryRegionWithWhatWasMeasured) {
  const RunData data = NoPmuRun();
  const nlohmann::json j = RunAnalysisToJson(data, NoTree());
  EXPECT_FALSE(j.at("available").get<bool>());
  ASSERT_EQ(j.at("regions").size(), 2u);
  const nlohmann::json& outer = j.at("regions")[0];
  EXPECT_EQ(outer.at("path"), "outer");
  EXPECT_EQ(outer.at("calls"), 3);
  EXPECT_EQ(outer.at("wall_inclusive_ns"), 2'000'000);
  EXPECT_EQ(outer.at("wall_exclusive_ns"), 1'500'000);
  const nlohmann::json& sw = outer.at("software");
  EXPECT_EQ(sw.at("task-clock").at("inclusive"), 1'900'000);
  EXPECT_TRUE(sw.at("task-clock").at("inclusive").is_number_unsigned()) << "counts stay integers";
  EXPECT_EQ(sw.at("task-clock").at("exclusive"), 400'000);
  EXPECT_DOUBLE_EQ(sw.at("cpu_utilization").at("inclusive").get<double>(), 0.95);
  EXPECT_FALSE(sw.at("cpu_utilization").contains("exclusive"));
  EXPECT_EQ(sw.at("page-faults").at("inclusive"), 10);
  EXPECT_EQ(sw.at("cpu-migrations").at("exclusive"), 0);
  EXPECT_TRUE(outer.at("inclusive").is_null());
  EXPECT_TRUE(outer.at("exclusive").is_null());
  EXPECT_EQ(j.at("regions")[1].at("path"), "outer/inner");
  EXPECT_EQ(j.at("regions")[1].at("software").at("task-clock").at("inclusive"), 1'500'000);
}

TEST(NoPmuOutputs, JsonSaysNotMeasuredAsNull) {
  RunData data = NoPmuRun();
  for (Region& r : data.regions) {
    for (RegionOnThread& t : r.threads) t.events.clear();
  }
  const nlohmann::json j = RunAnalysisToJson(data, NoTree());
  EXPECT_TRUE(j.at("regions")[0].at("software").at("task-clock").at("inclusive").is_null());
  EXPECT_TRUE(j.at("regions")[0].at("software").at("cpu_utilization").at("inclusive").is_null());
  EXPECT_TRUE(j.at("regions")[0].at("software").at("page-faults").at("exclusive").is_null());
  EXPECT_EQ(j.at("regions")[0].at("calls"), 3) << "calls and wall are always measured";
}

}  // namespace
}  // namespace td

// The CSV report: one row per region and value, empty where not measured,
// names that look like formulas neutralised.
#include "runtime/report/csv_report.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/base/byte_strings.h"
#include "tests/unit/sample_runs.h"

namespace td {
namespace {

using sample_runs::NoPmuRun;
using sample_runs::OddRun;
using sample_runs::TwoThreadRun;

TEST(CsvReport, RowsPerRegionAndNotMeasuredIsEmpty) {
  RunData data = TwoThreadRun();
  const std::string csv = FormatCsvReport(data, nullptr);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "region,kind,name,value,flagged,critical");
  EXPECT_NE(csv.find("outer,time,calls,3,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("outer,count,task-clock,1900000,0,0\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("outer/inner,scaled,page-faults,5,0,0\n"), std::string::npos) << csv;
  for (Region& r : data.regions) {
    for (RegionOnThread& t : r.threads) {
      t.events.clear();
      t.groups.clear();
    }
  }
  const std::string unmeasured = FormatCsvReport(data, nullptr);
  EXPECT_NE(unmeasured.find("outer,count,task-clock,,0,0\n"), std::string::npos) << unmeasured;
  EXPECT_NE(unmeasured.find("outer,scaled,task-clock,,0,0\n"), std::string::npos);
}

TEST(Csv, ReportNeutralisesRegionsNamedLikeFormulas) {
  RunData data = OddRun();
  data.regions[0].name = "=cmd|'/C calc'!A0";
  data.regions[0].path = PathComponent(data.regions[0].name);
  const std::string csv = FormatCsvReport(data, nullptr);
  EXPECT_NE(csv.find("\n'=cmd|'\\x2fC calc'!A0,time,calls,1,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("\n=cmd"), std::string::npos) << csv;
}

TEST(NoPmuOutputs, CsvHasCpuUtilisation) {
  const std::string csv = FormatCsvReport(NoPmuRun(), nullptr);
  EXPECT_NE(csv.find("outer,time,wall_exclusive_ns,1500000,0,0\nouter,time,cpu_utilization,0.95,0,0\n"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("outer/inner,time,cpu_utilization,1,0,0\n"), std::string::npos) << csv;
}

}  // namespace
}  // namespace td

// The text report of a simulated run: tdsim's group is labelled simulated,
// and each region gets its rates from the simulated counts.
#include "runtime/report/simulated_text.h"

#include <string>

#include "gtest/gtest.h"
#include "runtime/counters/simulated_backend.h"
#include "runtime/counters/simulated_protocol.h"
#include "runtime/report/counter_text.h"
#include "runtime/report/csv_report.h"

namespace td {
namespace {

RunData SimulatedRun() {
  RunData data;
  data.backend = "simulate";
  data.layout.AddGroup(SimulatedEvents());
  data.threads = {{0, 10, false, true, ""}};
  Region region;
  region.name = region.base_name = region.path = "loop";
  RegionOnThread t{0, 4, 0, 0, 0, 1000, 1000, {}, {}};
  t.events.assign(TDSIM_NUM_COUNTERS, EventDelta{});
  t.events[TDSIM_INSTRUCTIONS] = {2'000'000, 2'000'000};
  t.events[TDSIM_BRANCHES] = {100'000, 100'000};
  t.events[TDSIM_BRANCH_MISSES] = {2'500, 2'500};
  t.events[TDSIM_L1D_MISSES] = {30'000, 30'000};
  t.events[TDSIM_LL_MISSES] = {500, 500};
  t.groups = {{1000, 1000}};
  region.threads.push_back(t);
  data.regions = {region};
  return data;
}

TEST(SimulatedText, RatesPerRegion) {
  const RunData data = SimulatedRun();
  EXPECT_TRUE(IsSimulatedGroup(data, 0));
  EXPECT_EQ(SimulatedRatesLine(data, data.regions[0]),
            "    simulated (tdsim, not measured): 500,000 instructions per call, branch-miss rate 2.50%, "
            "L1D misses 15.00 per 1000 instructions, LL misses 0.25 per 1000 instructions\n");
}

TEST(SimulatedText, CounterSectionSaysSimulated) {
  const std::string text = FormatCounterSection(SimulatedRun(), {});
  EXPECT_NE(text.find("group 0 (simulated by Valgrind tdsim, not a PMU), 12 events: coverage 100%\n      sim.instructions"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sim.instructions 2,000,000"), std::string::npos) << text;
  EXPECT_NE(text.find("branch-miss rate 2.50%"), std::string::npos) << text;
}

TEST(SimulatedText, CsvRowsSaySimulated) {
  const std::string csv = FormatCsvReport(SimulatedRun(), nullptr);
  EXPECT_NE(csv.find("loop,simulated,sim.instructions,2000000,0,0\n"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",count,sim."), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",scaled,sim."), std::string::npos) << csv;
}

TEST(SimulatedText, CountsForTheHtmlPage) {
  const RunData data = SimulatedRun();
  const std::string text = SimulatedCountsText(data, data.regions[0]);
  EXPECT_EQ(text.rfind("simulated by Valgrind tdsim: sim.instructions 2,000,000, sim.loads 0, ", 0), 0u) << text;
  EXPECT_NE(text.find("sim.ll_misses 500"), std::string::npos) << text;
}

TEST(SimulatedText, NothingWithoutSimulatedInstructions) {
  RunData data;
  Region region;
  EXPECT_EQ(SimulatedRatesLine(data, region), "");
  EXPECT_EQ(SimulatedCountsText(data, region), "");
}

}  // namespace
}  // namespace td

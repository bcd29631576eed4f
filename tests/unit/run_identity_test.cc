// The header that says what a run was: command line, start, host, td, key.
#include "runtime/report/run_identity.h"

#include "gtest/gtest.h"

namespace td {
namespace {

TEST(RunIdentity, CommandLineQuotesOnlyWhatAShellWouldSplit) {
  EXPECT_EQ(CommandLine({"./td_matmul", "1000"}), "./td_matmul 1000");
  EXPECT_EQ(CommandLine({"prog", "two words", "it's", ""}), "prog 'two words' 'it'\\''s' ''");
  EXPECT_EQ(CommandLine({"prog", std::string(300, 'x')}, 20), "prog " + std::string(14, 'x') + "…");
}

TEST(RunIdentity, StartIsUtcToTheSecond) {
  EXPECT_EQ(UtcTime(1795443193327557336), "2026-11-23 14:13:13 UTC");
  EXPECT_EQ(UtcTime(0), "") << "a replayed run has no start";
}

TEST(RunIdentity, TwoLinesWithWhatTheRecordingHolds) {
  RunData data;
  data.td_version = "0.1.0";
  data.program.argv = {"./td_matmul", "1000"};
  data.program.start_unix_ns = 1795443193327557336;
  data.machine.hostname = "lab-skylake";
  RunAnalysis analysis;
  analysis.uarch = "skl";
  analysis.tma_version = "5.2";
  EXPECT_EQ(RunIdentityLines(data, &analysis),
            "command: ./td_matmul 1000\n"
            "started 2026-11-23 14:13:13 UTC on lab-skylake; td 0.1.0; key skl, TMA 5.2\n");
  data.program.start_unix_ns = 0;
  EXPECT_EQ(RunIdentityLines(data, nullptr), "command: ./td_matmul 1000\non lab-skylake; td 0.1.0\n");
}

}  // namespace
}  // namespace td

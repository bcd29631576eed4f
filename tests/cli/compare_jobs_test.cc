// td compare of two MPI jobs under weak scaling and with the instruction /
// IPC split (docs/hpc.md#scalability-between-two-rank-counts), on the files
// of tests/data: the rank files of tests/data/make_job_counts.py, whose
// planted values its docstring works out (strong: computation 0.75,
// instruction 0.9, IPC 0.8, frequency 0.75 / 0.72; weak: 1.5, 1.8, 0.8, the
// same frequency), and the two real job files, which carry no counts.
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/common/shell_command.h"
#include "tests/support/build_paths.h"

namespace {

using Ran = td::testing::CommandOutput;

Ran TdQuiet(const std::string& args) {
  return td::testing::RunShellCommand(absl::StrFormat("%s %s 2>/dev/null", TD_CLI, args));
}
std::string JobData(const std::string& name) { return std::string(TD_TEST_DATA_DIR) + "/" + name; }
const std::string kTwo = JobData("job_counts_2ranks"), kFour = JobData("job_counts_4ranks");

// What `td compare --json ARGS` prints (an empty object where it fails).
nlohmann::json CompareJson(const std::string& args) {
  const Ran ran = TdQuiet("compare --json " + args);
  EXPECT_EQ(ran.status, 0) << ran.out;
  return ran.status == 0 ? nlohmann::json::parse(ran.out) : nlohmann::json::object();
}

nlohmann::json SolveOf(const nlohmann::json& compare) {
  for (const nlohmann::json& r : compare.value("regions", nlohmann::json::array())) {
    if (r.at("path") == "solve") return r.at("scalability");
  }
  return nullptr;
}

// computation = instruction × IPC × frequency scalability, within 1e-6.
void ExpectSplit(const nlohmann::json& s, double computation, double instruction, double ipc) {
  ASSERT_TRUE(s.is_object());
  EXPECT_NEAR(s.at("computation_scalability").get<double>(), computation, 1e-6) << s.dump(1);
  EXPECT_NEAR(s.at("instruction_scalability").get<double>(), instruction, 1e-6) << s.dump(1);
  EXPECT_NEAR(s.at("ipc_scalability").get<double>(), ipc, 1e-6) << s.dump(1);
  EXPECT_NEAR(s.at("frequency_scalability").get<double>(), computation / (instruction * ipc), 1e-6) << s.dump(1);
}

// The text of `td compare FLAGS` on the two jobs: `header` in its scalability
// table's header, `split` (A IPC, B IPC, instruction, IPC, frequency) as
// "solve"'s row of the split table.
void ExpectText(const std::string& flags, const std::string& header, const std::string& split) {
  const Ran text = TdQuiet("compare " + flags + " " + kTwo + " " + kFour);
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find(header), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\nsolve                           " + split + "\n"), std::string::npos) << text.out;
}

TEST(CompareJobs, InstructionAndIpcScalabilityOfPlantedCounts) {
  const nlohmann::json compare = CompareJson(kTwo + " " + kFour);
  EXPECT_EQ(compare.at("scaling"), "strong");
  const nlohmann::json solve = SolveOf(compare);
  ExpectSplit(solve, 0.75, 0.9, 0.8);
  EXPECT_NEAR(solve.at("frequency_scalability").get<double>(), 1.0416667, 1e-6);
  EXPECT_NEAR(solve.at("a_ipc").get<double>(), 2.0, 1e-6);
  EXPECT_NEAR(solve.at("b_ipc").get<double>(), 1.6, 1e-6);
  EXPECT_NEAR(solve.at("a_instructions").get<double>(), 1.8e9, 1);
  EXPECT_NEAR(solve.at("b_cycles").get<double>(), 1.25e9, 1);
  // The whole-program row has no counts: its split is null.
  EXPECT_TRUE(compare.at("scalability").at("instruction_scalability").is_null()) << compare.dump(1);

  ExpectText("", "POP, strong scaling", "   2.000   1.600      0.900     0.800     1.042");

  // Given the larger job first, the reference is B: the same values.
  ExpectSplit(SolveOf(CompareJson(kFour + " " + kTwo)), 0.75, 0.9, 0.8);
}

TEST(CompareJobs, WeakScalingComparesTheMeansPerRank) {
  const nlohmann::json compare = CompareJson("--weak " + kTwo + " " + kFour);
  EXPECT_EQ(compare.at("scaling"), "weak");
  const nlohmann::json solve = SolveOf(compare);
  ExpectSplit(solve, 1.5, 1.8, 0.8);
  // Parallel efficiency 60 / 70 (useful / runtime) × 1.5.
  EXPECT_NEAR(solve.at("b_global_efficiency").get<double>(), 60.0 / 70.0 * 1.5, 1e-6);

  ExpectText("--weak", "POP, weak scaling; docs/hpc.md#scalability-between-two-rank-counts): reference A (2 ranks); "
             "useful = wall − MPI time per rank; computation scalability = mean useful per rank of A / mean useful per "
             "rank of B",
             "   2.000   1.600      1.800     0.800     1.042");
  const Ran csv = TdQuiet("compare --csv --weak " + kTwo + " " + kFour);
  ASSERT_EQ(csv.status, 0) << csv.out;
  EXPECT_NE(csv.out.find(",weak,1.8000,0.8000,1.0417,2.0000,1.6000\n"), std::string::npos) << csv.out;
  // --weak is for two jobs.
  EXPECT_EQ(TdQuiet("compare --weak " + JobData("nopmu_matmul.json") + " " + JobData("nopmu_matmul.json")).status, 2);
}

// The real 2- and 4-rank job files (tests/data/job_scaling_*): no counts, so
// one line says so; weak scaling of "solve" from their rows worked out by
// hand: useful 1,495,551,547 ns over 2 ranks against 1,730,871,150 over 4,
// (1495551547 / 2) / (1730871150 / 4) = 1.7280911372.
TEST(CompareJobs, JobFilesWithoutCountsSayTheyHaveNone) {
  const std::string two = JobData("job_scaling_2ranks.json"), four = JobData("job_scaling_4ranks.json");
  const Ran text = TdQuiet("compare " + two + " " + four);
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("\ninstruction and IPC scalability: the jobs' recordings have no instructions/cycles "
                          "counts\n"),
            std::string::npos)
      << text.out;
  const nlohmann::json compare = CompareJson("--weak " + two + " " + four);
  const nlohmann::json solve = SolveOf(compare);
  ASSERT_TRUE(solve.is_object()) << compare.dump(1);
  EXPECT_NEAR(solve.at("computation_scalability").get<double>(), 1.7280911372, 1e-9);
  EXPECT_TRUE(solve.at("ipc_scalability").is_null());
  EXPECT_NEAR(compare.at("scalability").at("computation_scalability").get<double>(), 2 * 0.8957284568, 1e-9);
}

}  // namespace

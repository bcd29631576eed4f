// `td doctor --self-test`: runs td-self-test's kernels under `td run` and
// checks that each lands where its known signature says, that the rdpmc and
// read() paths agree, and that multiplexed and one-group-per-pass runs agree
// within their coverage. The judging is pure, so it is tested on recordings.
#ifndef TD_TOOLS_TD_DOCTOR_SELF_TEST_H_
#define TD_TOOLS_TD_DOCTOR_SELF_TEST_H_

#include <string>
#include <vector>

#include "runtime/analysis/run_analysis.h"
#include "runtime/recorded/run_data.h"

namespace td::doctor {

enum class Outcome { kPass, kFail, kNotJudged };
const char* OutcomeName(Outcome outcome);  // "pass", "FAIL", "not judged"

struct SelfTestCheck {
  std::string name;      // "pointer_chase", "read paths: stream"…
  std::string expected;  // the signature, in words
  std::string measured;  // what the run gave
  Outcome outcome = Outcome::kNotJudged;
};

// The kernels' regions and how many threads run each.
struct Kernel {
  const char* region;
  int threads;
};
const std::vector<Kernel>& Kernels();

// Without counters: every kernel recorded once per thread, and its
// task-clock within what its threads could have run.
std::vector<SelfTestCheck> JudgeSoftware(const RunData& run);

// With a tree: each kernel's signature.
std::vector<SelfTestCheck> JudgeSignatures(const RunData& run, const RunAnalysis& analysis);

// The same kernels read with rdpmc and with read(): instructions per region
// within 1 %.
std::vector<SelfTestCheck> JudgeReadPaths(const RunData& user_reads, const RunData& system_call_reads);

// All groups in one run (multiplexed) against one group per pass: each
// Level-1 node within 0.05 plus half the share of time the multiplexed
// run's groups were not counted.
std::vector<SelfTestCheck> JudgeMultiplexing(const RunData& multiplexed, const RunAnalysis& multiplexed_analysis,
                                             const RunData& by_pass, const RunAnalysis& by_pass_analysis);

}  // namespace td::doctor

#endif  // TD_TOOLS_TD_DOCTOR_SELF_TEST_H_

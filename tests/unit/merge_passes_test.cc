// td run --passes: merging runs that each counted a share of the groups.
#include "runtime/recorded/merge_passes.h"

#include <linux/perf_event.h>

#include "gtest/gtest.h"
#include "runtime/analysis/run_analysis.h"
#include "runtime/counters/perf_event_backend.h"

namespace td {
namespace {

EventInfo Hardware(const std::string& name) {
  EventInfo e;
  e.name = name;
  e.unit = "count";
  e.perf_type = PERF_TYPE_RAW;
  e.hardware = true;
  return e;
}

// One pass: the software group plus one hardware group named `event`, with
// region "a" (and "a/b" when `with_child`) on thread 0.
RunData Pass(const std::string& event, uint64_t task_clock, uint64_t count, bool with_child, uint64_t calls = 1) {
  RunData run;
  run.program.name = "app";
  run.layout = SoftwareLayout();
  run.layout.AddGroup({Hardware(event)});
  run.threads = {{0, 1, false, true, ""}};
  Region a{"a", "a", -1, {}, {}};
  RegionOnThread t{0, calls, 0, 0, 0, 5000, 5000, {}, {}};
  t.events = {{0, 0}, {task_clock, task_clock}, {0, 0}, {0, 0}, {count, count}};
  t.groups = {{5000, 5000}, {5000, 2500}};
  a.threads.push_back(t);
  run.regions.push_back(a);
  if (with_child) {
    run.regions[0].children.push_back(1);
    Region b{"b", "a/b", 0, {}, {}};
    b.threads.push_back(t);
    run.regions.push_back(b);
  }
  return run;
}

TEST(MergePasses, EachPassAddsItsGroupsByRegionPath) {
  auto merged = MergePasses({Pass("cycles", 1'000'000, 400, true), Pass("instructions", 1'100'000, 900, true)});
  ASSERT_TRUE(merged.ok()) << merged.status();
  const RunData& run = merged->run;
  ASSERT_EQ(run.layout.groups.size(), 3u) << "software group once, then each pass's hardware group";
  ASSERT_EQ(run.regions.size(), 2u);
  const auto cycles = run.EventIndex("cycles");
  const auto instructions = run.EventIndex("instructions");
  ASSERT_TRUE(cycles && instructions);
  EXPECT_DOUBLE_EQ(*ScaledRegionCount(run, run.regions[1], *cycles), 800.0);
  EXPECT_DOUBLE_EQ(*ScaledRegionCount(run, run.regions[1], *instructions), 1800.0);
  ASSERT_FALSE(merged->spread.empty());
  EXPECT_EQ(merged->spread[0].event, "task-clock");
  EXPECT_NEAR(merged->spread[0].Relative(), 100000.0 / 1050000.0, 1e-9);
}

TEST(MergePasses, ARegionOnlyOnePassSawIsNotMeasuredInTheOthers) {
  auto merged = MergePasses({Pass("cycles", 1'000'000, 400, false), Pass("instructions", 1'000'000, 900, true)});
  ASSERT_TRUE(merged.ok());
  const RunData& run = merged->run;
  ASSERT_EQ(run.regions.size(), 2u);
  EXPECT_EQ(run.regions[1].path, "a/b");
  EXPECT_EQ(run.regions[1].parent, 0);
  EXPECT_EQ(run.regions[0].children, std::vector<int>{1});
  EXPECT_FALSE(ScaledRegionCount(run, run.regions[1], *run.EventIndex("cycles")).has_value())
      << "pass 1 never saw a/b: its cycles are not measured, not 0";
  EXPECT_TRUE(ScaledRegionCount(run, run.regions[1], *run.EventIndex("instructions")).has_value());
  bool warned = false;
  for (const Diagnostic& d : run.diagnostics) warned |= d.message.find("a/b appears in pass 2 only") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(MergePasses, DifferentWorkAndDifferentProgramsAreCaught) {
  auto merged = MergePasses({Pass("cycles", 1, 1, false, 3), Pass("instructions", 1, 1, false, 4)});
  ASSERT_TRUE(merged.ok());
  bool warned = false;
  for (const Diagnostic& d : merged->run.diagnostics) warned |= d.message.find("ran 3 calls in pass 1 but 4") != std::string::npos;
  EXPECT_TRUE(warned);
  RunData other = Pass("instructions", 1, 1, false);
  other.program.name = "other";
  EXPECT_FALSE(MergePasses({Pass("cycles", 1, 1, false), other}).ok());
  EXPECT_FALSE(MergePasses({}).ok());
}

}  // namespace
}  // namespace td

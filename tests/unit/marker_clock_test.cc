// The marker clock (TSC ticks converted at the end) and the markers' fast
// path on the real software group.
#include "runtime/regions/marker_clock.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "runtime/counters/availability.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/recorded/merge_threads.h"
#include "runtime/regions/marker_forms.h"
#include "runtime/regions/thread_state.h"

namespace td {
namespace {

TEST(TickScale, ConvertsDurationsAndMomentsAtTheRateBetweenTwoReferences) {
  const TickScale scale = TickScale::Between({1000, 5000}, {3000, 6000});  // 2,000 ticks in 1,000 ns
  EXPECT_FALSE(scale.identity());
  EXPECT_DOUBLE_EQ(scale.ns_per_tick(), 0.5);
  EXPECT_EQ(scale.Ns(200), 100);
  EXPECT_EQ(scale.Ns(-200), -100);  // moved wall time may be negative
  EXPECT_EQ(scale.MonotonicNsAt(1200), 5100);
  EXPECT_EQ(scale.MonotonicNsAt(1000), 5000);
}

TEST(TickScale, IsTheIdentityByDefaultAndWhenTheTicksDidNotAdvance) {
  EXPECT_EQ(TickScale().Ns(123456789), 123456789);
  EXPECT_EQ(TickScale().MonotonicNsAt(42), 42);
  const TickScale stuck = TickScale::Between({1000, 5000}, {1000, 9000});
  EXPECT_TRUE(stuck.identity());
  EXPECT_EQ(stuck.Ns(77), 77);
}

TEST(MarkerClock, MonotonicWhenTheTscIsNotAllowed) {
  std::string why;
  EXPECT_EQ(ChooseMarkerClock(false, &why), MarkerClock::kMonotonic);
  EXPECT_EQ(ProcessMarkerClock(), MarkerClock::kMonotonic);
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_STREQ(MarkerClockName(MarkerClock::kTsc), "tsc");
}

TEST(MarkerClock, TheTscWhereTheKernelKeepsTimeWithItOrKvmClockOverAnInvariantOne) {
  std::string why;
  EXPECT_TRUE(TscUsableWith("tsc", false, &why));
  EXPECT_TRUE(TscUsableWith("kvm-clock", true, &why));
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_FALSE(TscUsableWith("kvm-clock", false, &why));
  EXPECT_EQ(why, "the kernel's clocksource is kvm-clock and the CPU does not declare an invariant TSC");
  EXPECT_FALSE(TscUsableWith("hpet", true, &why));
  EXPECT_EQ(why, "the kernel's clocksource is hpet, not tsc or kvm-clock");
  EXPECT_FALSE(TscUsableWith("", true, &why));
  EXPECT_EQ(why, "the kernel's clocksource is unknown");
  EXPECT_FALSE(TscUsableWith("xen", true, nullptr));
}

// Restores the process clock a test changed.
class ClockChoice {
 public:
  ~ClockChoice() { ChooseMarkerClock(false, nullptr); }
};

// A thread state on the real software group, with the TSC clock or not;
// `skip` says why not where this machine cannot have it.
struct SoftwareGroupState {
  std::unique_ptr<CounterBackend> backend;
  RegionRegistry registry;
  std::unique_ptr<ThreadState> state;
  std::string skip;
};
std::unique_ptr<SoftwareGroupState> OpenSoftwareGroupState(bool allow_tsc) {
  auto out = std::make_unique<SoftwareGroupState>();
  std::string why;
  if (ChooseMarkerClock(allow_tsc, &why) != MarkerClock::kTsc && allow_tsc) {
    out->skip = "skipped: " + why;
    return out;
  }
  if (ProbeMachine(&RealPerfEventOpen).software_errno != 0) {
    out->skip = "skipped: perf_event_open is not usable";
    return out;
  }
  out->backend = MakePerfEventBackend(SoftwareLayout(), Availability{}, &RealPerfEventOpen);
  auto counters = out->backend->OpenForCurrentThread();
  if (!counters.ok()) {
    out->skip = "skipped: " + std::string(counters.status().message());
    return out;
  }
  out->state = std::make_unique<ThreadState>(0, 1, *std::move(counters), out->backend->layout().words, "",
                                             &out->registry);
  return out;
}

// Both forms of the markers on the real software group: the fast one (TSC,
// one raw read(), no call) where the kernel's clocksource is the TSC, and the
// general one (CLOCK_MONOTONIC). Calls, nesting and counts come out the same
// way, and each region's wall time lies between the instants around its
// markers.
void RunNestedRegionsAndCheck(bool allow_tsc) {
  const ClockChoice restore;
  const auto opened = OpenSoftwareGroupState(allow_tsc);
  if (!opened->skip.empty()) GTEST_SKIP() << opened->skip;
  ThreadState& state = *opened->state;
  RegionRegistry& registry = opened->registry;
  EXPECT_EQ(state.fast_path(), allow_tsc);
  td_site outer_site{"outer", "test.cc", 1, 0, 0};
  td_site inner_site{"inner", "test.cc", 2, 0, 0};
  // A site with no id yet reaches the thread state as kUnregistered.
  const int64_t before_outer = MonotonicNs();
  state.BeginAndLeave(ThreadState::kUnregistered, &outer_site);
  const int64_t inside_outer = MonotonicNs();
  volatile double sink = 1;
  for (int i = 0; i < 100; ++i) {
    state.BeginAndLeave(static_cast<uint32_t>(inner_site.region_id_plus_one - 1), &inner_site);
    for (int k = 0; k < 20000; ++k) sink = sink * 1.0000001;
    state.EndAndLeave(static_cast<uint32_t>(inner_site.region_id_plus_one - 1), &inner_site);
  }
  const int64_t last_inside_outer = MonotonicNs();
  state.EndAndLeave(static_cast<uint32_t>(outer_site.region_id_plus_one - 1), &outer_site);
  const int64_t after_outer = MonotonicNs();
  ASSERT_NE(outer_site.region_id_plus_one, 0) << "registered by its first BEGIN";
  EXPECT_EQ(state.in_marker().load(), 0u) << "the *AndLeave forms lower the flag";
  EXPECT_EQ(state.read_failures(), 0u);

  RunData data;
  data.layout = opened->backend->layout();
  MergeThreads({state.Record()}, registry.AllNames(), &data);
  const RegionOnThread* outer = nullptr;
  const RegionOnThread* inner = nullptr;
  for (const Region& r : data.regions) {
    if (r.path == "outer") outer = &r.threads.front();
    if (r.path == "outer/inner") inner = &r.threads.front();
  }
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(outer->calls, 1u);
  EXPECT_EQ(inner->calls, 100u);
  // Conversion error: ~1e-4 of the span at worst (marker_clock.h), plus a
  // microsecond for the brackets' own reads.
  const double span = static_cast<double>(after_outer - before_outer);
  EXPECT_GE(static_cast<double>(outer->wall_inclusive_ns), (last_inside_outer - inside_outer) - 1e-3 * span - 1000);
  EXPECT_LE(static_cast<double>(outer->wall_inclusive_ns), span + 1e-3 * span + 1000);
  EXPECT_GT(inner->wall_inclusive_ns, 0);
  EXPECT_LE(inner->wall_inclusive_ns, outer->wall_inclusive_ns);
  EXPECT_EQ(outer->wall_exclusive_ns, outer->wall_inclusive_ns - inner->wall_inclusive_ns);
  const size_t task_clock = 1;  // page-faults, task-clock, context-switches, cpu-migrations
  ASSERT_EQ(data.layout.events[task_clock].name, "task-clock");
  EXPECT_GT(inner->events[task_clock].inclusive, 0u);
  EXPECT_GE(outer->events[task_clock].inclusive, inner->events[task_clock].inclusive);
  EXPECT_EQ(outer->events[task_clock].exclusive,
            outer->events[task_clock].inclusive - inner->events[task_clock].inclusive);
  // The group is never multiplexed: its times are its task-clock, which the
  // syscall form does not add twice (DerivedWords), on either path.
  for (const RegionOnThread* part : {outer, inner}) {
    ASSERT_EQ(part->groups.size(), 1u);
    EXPECT_EQ(part->groups[0].enabled_ns, part->events[task_clock].inclusive);
    EXPECT_EQ(part->groups[0].running_ns, part->events[task_clock].inclusive);
  }
}

TEST(MarkerFastPath, SoftwareGroupWithTheTscClock) { RunNestedRegionsAndCheck(true); }

// A region open on the fast path when the counters go away (a forked child
// whose counters could not be opened): its frame is begun again without the
// fast flag, and its END closes it on the general path.
TEST(MarkerFastPath, ARegionReopenedWithoutCountersIsClosedOnTheGeneralPath) {
  const ClockChoice restore;
  const auto opened = OpenSoftwareGroupState(true);
  if (!opened->skip.empty()) GTEST_SKIP() << opened->skip;
  ThreadState& state = *opened->state;
  RegionRegistry& registry = opened->registry;
  ASSERT_TRUE(state.fast_path());
  td_site site{"open", "test.cc", 1, 0, 0};
  state.BeginAndLeave(ThreadState::kUnregistered, &site);  // a first call goes the general way
  const auto region = static_cast<uint32_t>(site.region_id_plus_one - 1);
  state.EndAndLeave(region, &site);
  state.BeginAndLeave(region, &site);  // the fast path
  state.RestartAfterFork(nullptr, 0, "counters could not be opened in the child");
  EXPECT_FALSE(state.fast_path());
  EXPECT_EQ(state.open_depth(), 1u);
  state.EndAndLeave(region, &site);
  EXPECT_EQ(state.open_depth(), 0u);
  RunData data;
  MergeThreads({state.Record()}, registry.AllNames(), &data);
  ASSERT_EQ(data.regions.size(), 1u);
  EXPECT_EQ(data.regions[0].threads.front().calls, 1u) << "the child's own call only";
  EXPECT_GE(data.regions[0].threads.front().wall_inclusive_ns, 0);
  EXPECT_EQ(state.read_failures(), 0u) << "no read of counters that are not there";
}
TEST(MarkerFastPath, SoftwareGroupWithClockMonotonicTakesTheGeneralPath) { RunNestedRegionsAndCheck(false); }

// A sole group read with one read() that is not the four-event software
// group (here two of its events, without task-clock: nothing to derive its
// times from) still takes the syscall form; its frames carry a form byte of
// their own, which the common END leaves to EndAnyGroup. Every word is
// added, the group's times too, and TD_SAMPLE's unread calls close there.
TEST(MarkerFastPath, AnotherSoleGroupClosesThroughItsOwnEnd) {
  const ClockChoice restore;
  std::string why;
  if (ChooseMarkerClock(true, &why) != MarkerClock::kTsc) GTEST_SKIP() << "skipped: " << why;
  if (ProbeMachine(&RealPerfEventOpen).software_errno != 0) GTEST_SKIP() << "skipped: perf_event_open is not usable";
  CounterLayout layout;
  const CounterLayout software = SoftwareLayout();
  layout.AddGroup({software.events[0], software.events[2]});  // page-faults, context-switches
  auto backend = MakePerfEventBackend(layout, Availability{}, &RealPerfEventOpen);
  auto counters = backend->OpenForCurrentThread();
  ASSERT_TRUE(counters.ok()) << counters.status();
  RegionRegistry registry;
  ThreadState state(0, 1, *std::move(counters), layout.words, "", &registry);
  ASSERT_TRUE(state.fast_path());
  state.set_sample_every(2);
  td_site outer_site{"outer", "test.cc", 1, 0, 0};
  td_site inner_site{"inner", "test.cc", 2, 0, 0};
  state.BeginAndLeave(ThreadState::kUnregistered, &outer_site);
  const auto outer_region = static_cast<uint32_t>(outer_site.region_id_plus_one - 1);
  volatile double sink = 1;
  for (int i = 0; i < 10; ++i) {
    state.BeginAndLeave(static_cast<uint32_t>(inner_site.region_id_plus_one - 1), &inner_site);
    for (int k = 0; k < 20000; ++k) sink = sink * 1.0000001;
    state.EndAndLeave(static_cast<uint32_t>(inner_site.region_id_plus_one - 1), &inner_site);
  }
  state.EndAndLeave(outer_region, &outer_site);
  EXPECT_EQ(state.open_depth(), 0u);
  EXPECT_EQ(state.in_marker().load(), 0u);
  EXPECT_EQ(state.read_failures(), 0u);
  RunData data;
  data.layout = layout;
  MergeThreads({state.Record()}, registry.AllNames(), &data);
  const RegionOnThread* inner = nullptr;
  for (const Region& r : data.regions) {
    if (r.path == "outer/inner") inner = &r.threads.front();
  }
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(inner->calls, 10u) << "read or not, every call counts";
  ASSERT_EQ(inner->groups.size(), 1u);
  EXPECT_GT(inner->groups[0].enabled_ns, 0u) << "added by EndAnyGroup, not derived";
  EXPECT_EQ(inner->groups[0].running_ns, inner->groups[0].enabled_ns) << "a software group is never multiplexed";
  EXPECT_GT(inner->wall_inclusive_ns, 0);
}

}  // namespace
}  // namespace td

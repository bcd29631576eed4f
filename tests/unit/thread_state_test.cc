// Exact arithmetic of the region bookkeeping, with a counter we control.
#include "runtime/regions/marker_forms.h"
#include "runtime/regions/thread_state.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/base/diagnostics.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/recorded/merge_threads.h"

namespace td {
namespace {

// One group of one event whose value the test sets before each marker.
class ScriptedCounter final : public ThreadCounters {
 public:
  explicit ScriptedCounter(uint64_t* value, int* reads = nullptr) : value_(value), reads_(reads) {}
  bool Read(uint64_t* snapshot) override {
    if (reads_ != nullptr) ++*reads_;
    return PeekFromAnotherThread(snapshot);
  }
  bool PeekFromAnotherThread(uint64_t* snapshot) const override {
    snapshot[0] = 1;
    snapshot[1] = *value_ * 2;  // enabled
    snapshot[2] = *value_;      // running: half the time, as if multiplexed
    snapshot[3] = *value_;
    return true;
  }

 private:
  uint64_t* value_;
  int* reads_;
};

class ThreadStateTest : public ::testing::Test {
 protected:
  ThreadStateTest() {
    EventInfo e;
    e.name = "x";
    layout_.AddGroup({e});
    state_ = std::make_unique<ThreadState>(0, 1, std::make_unique<ScriptedCounter>(&value_, &reads_),
                                           layout_.words, "", &registry_);
  }
  void Begin(const char* name, uint64_t value) {
    value_ = value;
    state_->Begin(registry_.IdForName(name), Site(name));
  }
  void End(const char* name, uint64_t value) {
    value_ = value;
    state_->End(registry_.IdForName(name), Site(name));
  }
  td_site* Site(const char* name) {
    sites_.push_back(std::make_unique<td_site>(td_site{name, "test.cc", 1, 0, 0}));
    return sites_.back().get();
  }
  RunData Merge() {
    RunData data;
    data.layout = layout_;
    MergeThreads({state_->Record()}, registry_.AllNames(), &data);
    return data;
  }
  // a (100 → 200) around two calls of b (110 → 150, 160 → 170), through
  // the given markers.
  template <typename Begin, typename End>
  void RecordNestedSequence(Begin begin, End end) {
    begin("a", 100);
    begin("b", 110);
    end("b", 150);
    begin("b", 160);
    end("b", 170);
    end("a", 200);
  }
  static void ExpectNestedSequenceCounts(const RunData& data) {
    const Region& a = Find(data, "a");
    const Region& b = Find(data, "a/b");
    ASSERT_EQ(a.threads.size(), 1u);
    ASSERT_EQ(b.threads.size(), 1u);
    EXPECT_EQ(a.threads[0].events[0].inclusive, 100u);
    EXPECT_EQ(a.threads[0].events[0].exclusive, 50u);
    EXPECT_EQ(b.threads[0].events[0].inclusive, 50u);
    EXPECT_EQ(b.threads[0].events[0].exclusive, 50u);
    EXPECT_EQ(b.threads[0].calls, 2u);
  }
  static const Region& Find(const RunData& data, const std::string& path) {
    for (const Region& r : data.regions) {
      if (r.path == path) return r;
    }
    static Region none;
    ADD_FAILURE() << "no region " << path;
    return none;
  }

  uint64_t value_ = 0;
  int reads_ = 0;
  CounterLayout layout_;
  RegionRegistry registry_;
  std::vector<std::unique_ptr<td_site>> sites_;
  std::unique_ptr<ThreadState> state_;
};

TEST_F(ThreadStateTest, InclusiveAndExclusiveCounts) {
  RecordNestedSequence([&](const char* name, uint64_t value) { Begin(name, value); },
                       [&](const char* name, uint64_t value) { End(name, value); });
  const RunData data = Merge();
  const Region& a = Find(data, "a");
  ASSERT_EQ(a.threads.size(), 1u);
  ExpectNestedSequenceCounts(data);
  EXPECT_EQ(a.threads[0].groups[0].enabled_ns, 200u);
  EXPECT_EQ(a.threads[0].groups[0].running_ns, 100u);
}

// A process whose gate says its threads read in user space sends every
// thread's C markers to BeginUserReadAndLeave; one that reads otherwise (as
// this one, through its backend's Read) records there exactly as it would
// through Begin and End, and each marker ends the handshake.
TEST_F(ThreadStateTest, AThreadNotReadingInUserSpaceRecordsTheSameThroughTheUserReadEntry) {
  const auto begin = [&](const char* name, uint64_t value) {
    value_ = value;
    state_->in_marker().store(1);
    state_->BeginUserReadAndLeave(registry_.IdForName(name), Site(name));
    EXPECT_EQ(state_->in_marker().load(), 0u) << "BEGIN " << name << " ended the handshake";
  };
  const auto end = [&](const char* name, uint64_t value) {
    value_ = value;
    state_->in_marker().store(1);
    state_->EndUserReadAndLeave(registry_.IdForName(name), Site(name));
    EXPECT_EQ(state_->in_marker().load(), 0u) << "END " << name << " ended the handshake";
  };
  ASSERT_FALSE(state_->user_read_path());
  RecordNestedSequence(begin, end);
  ExpectNestedSequenceCounts(Merge());
}

TEST_F(ThreadStateTest, DirectRecursionCountsInclusiveOnce) {
  Begin("r", 0);
  Begin("r", 10);
  Begin("r", 20);
  End("r", 30);
  End("r", 40);
  End("r", 50);
  const RunData data = Merge();
  ASSERT_EQ(data.regions.size(), 1u);
  const RegionOnThread& r = data.regions[0].threads[0];
  EXPECT_EQ(r.calls, 3u);
  EXPECT_EQ(r.recursive_calls, 2u);
  EXPECT_EQ(r.events[0].inclusive, 50u);
  EXPECT_EQ(r.events[0].exclusive, 50u);
}

TEST_F(ThreadStateTest, IndirectRecursionSharesNodes) {
  Begin("f", 0);
  Begin("g", 10);
  Begin("f", 20);  // recursive: same node as the outer f
  End("f", 25);
  End("g", 40);
  End("f", 100);
  const RunData data = Merge();
  ASSERT_EQ(data.regions.size(), 2u);
  const RegionOnThread& f = Find(data, "f").threads[0];
  const RegionOnThread& g = Find(data, "f/g").threads[0];
  EXPECT_EQ(f.events[0].inclusive, 100u);
  EXPECT_EQ(f.events[0].exclusive, 70u + 5u);  // outer self 70, inner self 5
  EXPECT_EQ(g.events[0].inclusive, 30u);
  EXPECT_EQ(g.events[0].exclusive, 25u);
}

TEST_F(ThreadStateTest, EndOfAnOuterRegionClosesForgottenInnerOnes) {
  Begin("outer", 0);
  Begin("forgotten", 10);
  End("outer", 50);
  const RunData data = Merge();
  const RegionOnThread& outer = Find(data, "outer").threads[0];
  const RegionOnThread& inner = Find(data, "outer/forgotten").threads[0];
  EXPECT_EQ(outer.events[0].inclusive, 50u);
  EXPECT_EQ(inner.events[0].inclusive, 40u);
  EXPECT_EQ(inner.closed_implicitly, 1u);
  EXPECT_EQ(state_->open_depth(), 0u);
}

TEST_F(ThreadStateTest, EndOfARegionNotOpenIsIgnored) {
  ClearDiagnostics();
  Begin("open", 0);
  End("other", 5);
  End("open", 9);
  const RunData data = Merge();
  EXPECT_EQ(Find(data, "open").threads[0].events[0].inclusive, 9u);
  const auto diagnostics = AllDiagnostics();
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_NE(diagnostics[0].message.find("\"other\""), std::string::npos);
  EXPECT_NE(diagnostics[0].message.find("\"open\""), std::string::npos);
}

TEST_F(ThreadStateTest, CloseOpenRegionsMarksThemUnterminated) {
  Begin("a", 0);
  Begin("b", 5);
  value_ = 20;
  state_->CloseOpenRegions("finalize");
  const RunData data = Merge();
  EXPECT_EQ(Find(data, "a").threads[0].unterminated, 1u);
  EXPECT_EQ(Find(data, "a/b").threads[0].unterminated, 1u);
  EXPECT_EQ(Find(data, "a").threads[0].events[0].inclusive, 20u);
}

TEST_F(ThreadStateTest, TraceStaysBalancedWhenAnOuterEndClosesInnerRegions) {
  state_->EnableTrace(8);
  Begin("outer", 0);
  Begin("forgotten", 10);
  End("outer", 50);
  const auto events = state_->TraceEvents();
  ASSERT_EQ(events.size(), 4u);
  const uint32_t outer = registry_.IdForName("outer");
  const uint32_t forgotten = registry_.IdForName("forgotten");
  EXPECT_TRUE(events[0].begin && events[0].region == outer);
  EXPECT_TRUE(events[1].begin && events[1].region == forgotten);
  EXPECT_TRUE(!events[2].begin && events[2].region == forgotten);
  EXPECT_TRUE(!events[3].begin && events[3].region == outer);
  EXPECT_EQ(events[3].counters[3], 50u) << "the counter value at that moment";
  EXPECT_EQ(state_->trace().dropped(), 0u);
}

TEST(ThreadStateTrace, RingGrowsWithTheEventsAndStopsAtTheMemoryBound) {
  RegionRegistry registry;
  td_site site{"t", "test.cc", 1, 0, 0};
  const uint32_t region = registry.IdForSite(&site);
  TraceRing::SetMemoryLimit(size_t{1} << 20);  // 65,536 events of 16 bytes (no counters)
  {
    ThreadState roomy(0, 1, nullptr, 0, "", &registry);
    roomy.EnableTrace(size_t{1} << 26);
    for (int i = 0; i < 3000; ++i) {
      roomy.Begin(region, &site);
      roomy.End(region, &site);
    }
    EXPECT_EQ(roomy.TraceEvents().size(), 6000u) << "grown from 1,024 as events came";
    EXPECT_EQ(roomy.trace().dropped(), 0u);
    EXPECT_TRUE(roomy.trace().truncated().empty());
  }  // its destructor gives the memory back to the bound
  ThreadState bounded(1, 2, nullptr, 0, "", &registry);
  bounded.EnableTrace(size_t{1} << 26);
  for (int i = 0; i < 50000; ++i) {
    bounded.Begin(region, &site);
    bounded.End(region, &site);
  }
  const auto events = bounded.TraceEvents();
  EXPECT_EQ(events.size(), 65536u);
  EXPECT_EQ(bounded.trace().dropped(), 100000u - 65536u);
  EXPECT_EQ(bounded.trace().truncated(), "all threads' traces reached TD_TRACE_MEMORY=1 MiB");
  EXPECT_TRUE(events.front().begin) << "the newest events, in order";
  EXPECT_FALSE(events.back().begin);
  TraceRing::SetMemoryLimit(size_t{512} << 20);
}

TEST_F(ThreadStateTest, ManySiblingsEachKeepTheirOwnNode) {
  // More siblings than the list walk serves: the (parent, region) table
  // answers, and every sibling must still find its own node.
  Begin("parent", 0);
  for (int i = 0; i < 3000; ++i) {
    const std::string name = "s" + std::to_string(i % 100);
    Begin(name.c_str(), 10 * i);
    End(name.c_str(), 10 * i + 1 + i % 100);
  }
  End("parent", 100000);
  const RunData data = Merge();
  ASSERT_EQ(data.regions.size(), 101u);
  for (int s = 0; s < 100; ++s) {
    const Region& r = Find(data, "parent/s" + std::to_string(s));
    EXPECT_EQ(r.threads[0].calls, 30u) << r.path;
    EXPECT_EQ(r.threads[0].events[0].inclusive, 30u * (1 + s)) << r.path;
  }
}

// Each region remembers the node it was entered as last; entered under
// another parent it misses, and the parent's list or table must find (or
// add) the right node. 20 regions alternate between two parents, so both
// the list walk (up to 8 children) and the table (beyond) answer misses.
TEST_F(ThreadStateTest, RegionsAlternatingBetweenParentsKeepANodePerParent) {
  for (int round = 0; round < 3; ++round) {
    for (const char* parent : {"p", "q"}) {
      Begin(parent, 0);
      for (int i = 0; i < 20; ++i) {
        const std::string name = "s" + std::to_string(i);
        Begin(name.c_str(), 10);
        End(name.c_str(), 10 + (parent[0] == 'p' ? 1 : 100) * (i + 1));
      }
      End(parent, 5000);
    }
  }
  const RunData data = Merge();
  ASSERT_EQ(data.regions.size(), 42u);
  for (int i = 0; i < 20; ++i) {
    const Region& under_p = Find(data, "p/s" + std::to_string(i));
    const Region& under_q = Find(data, "q/s" + std::to_string(i));
    EXPECT_EQ(under_p.threads[0].calls, 3u);
    EXPECT_EQ(under_q.threads[0].calls, 3u);
    EXPECT_EQ(under_p.threads[0].events[0].inclusive, 3u * (i + 1));
    EXPECT_EQ(under_q.threads[0].events[0].inclusive, 300u * (i + 1));
  }
}

// TD_SAMPLE=4: calls 1, 5, 9 … of each node are read, the others only
// counted; inclusive values are scaled to all calls and the exclusive ones
// worked out from the scaled values.
TEST_F(ThreadStateTest, SampledCallsAreScaledToAllCallsAndUnreadPairsReadNothing) {
  state_->set_sample_every(4);
  Begin("outer", 0);
  uint64_t at = 0;
  for (int i = 0; i < 10; ++i) {
    Begin("inner", at);
    at += 10;  // every call of inner spans 10
    End("inner", at);
    at += 1;
  }
  End("outer", 200);
  EXPECT_EQ(reads_, 2 + 2 * 3) << "outer once; inner on calls 1, 5 and 9 only";
  const RunData data = Merge();
  const RegionOnThread& outer = Find(data, "outer").threads[0];
  const RegionOnThread& inner = Find(data, "outer/inner").threads[0];
  EXPECT_EQ(inner.calls, 10u) << "calls stay exact";
  EXPECT_EQ(inner.events[0].inclusive, 100u) << "3 read calls × 10, scaled by 10 / 3";
  EXPECT_EQ(outer.events[0].inclusive, 200u);
  EXPECT_EQ(outer.events[0].exclusive, 100u) << "200 minus inner's scaled 100";
  EXPECT_EQ(MeasuredCalls(10, 0, 4), 3u);
  EXPECT_EQ(MeasuredCalls(8, 0, 4), 2u);
  EXPECT_EQ(MeasuredCalls(7, 0, 1), 7u);
  EXPECT_EQ(MeasuredCalls(10, 2, 4), 2u + 2u) << "8 outermost: 2 read; recursive ones always";
}

// td_region_sample: a region's own interval wins over the run's (TD_SAMPLE,
// here 1) for every node of it, set before its first call; after that the
// registry refuses a new one. A parameterised region follows its base.
TEST_F(ThreadStateTest, RegionIntervalFromTheApiAppliesToThatRegionOnly) {
  ASSERT_TRUE(registry_.SetSampleEvery("hot", 5));
  Begin("outer", 0);
  uint64_t at = 0;
  for (int i = 0; i < 11; ++i) {
    Begin("hot", at);
    at += 10;
    End("hot", at);
    Begin("cold", at);
    at += 2;
    End("cold", at);
  }
  End("outer", 200);
  EXPECT_EQ(reads_, 2 + 2 * 3 + 2 * 11) << "outer once, hot on calls 1, 6 and 11, cold on every call";
  EXPECT_FALSE(registry_.SetSampleEvery("hot", 2)) << "hot has run: its interval is fixed";
  EXPECT_TRUE(registry_.SetSampleEvery("later", 3));
  const RunData data = Merge();
  const Region& hot = Find(data, "outer/hot");
  EXPECT_EQ(hot.sample_every, 5u);
  EXPECT_EQ(Find(data, "outer/cold").sample_every, 0u) << "the run's interval";
  EXPECT_EQ(hot.threads[0].calls, 11u);
  EXPECT_EQ(hot.threads[0].events[0].inclusive, 110u) << "3 read calls × 10, scaled by 11 / 3";
  EXPECT_EQ(Find(data, "outer/cold").threads[0].events[0].inclusive, 22u);
  EXPECT_EQ(Find(data, "outer").threads[0].events[0].exclusive, 200u - 110u - 22u);
  EXPECT_TRUE(data.Sampled());
  // "step[value]" regions take their base's interval; a value's first use
  // (a marker) fixes it. A marker site registered for a region fixes its
  // interval too, before any call.
  ASSERT_TRUE(registry_.SetSampleEvery("step", 7));
  const uint32_t step = registry_.IdForName("step");
  EXPECT_EQ(registry_.SampleEveryOfNewNode(registry_.IdForParameter(step, 2)), 7u);
  EXPECT_FALSE(registry_.SetSampleEvery("step", 8)) << "a value of it has run";
  td_site site = {"sited", "f.c", 1, 0, 0};
  registry_.IdForSite(&site);
  EXPECT_FALSE(registry_.SetSampleEvery("sited", 4)) << "its BEGIN site is registered";
}

// Recursive activations are always read and do not take a turn: the
// outermost calls alone are sampled and scaled, so a region that recurses
// on every call is not scaled by the recursion.
TEST_F(ThreadStateTest, SampledRecursionReadsEveryRecursiveCallAndScalesTheOutermostOnes) {
  state_->set_sample_every(2);
  uint64_t at = 0;
  for (int i = 0; i < 4; ++i) {  // r { r { } } four times, each outer call spanning 10
    Begin("r", at);
    Begin("r", at + 2);
    End("r", at + 4);
    End("r", at + 10);
    at += 100;
  }
  EXPECT_EQ(reads_, 2 * 2 + 4 * 2) << "outer calls 1 and 3, and every recursive one";
  const RunData data = Merge();
  const RegionOnThread& r = Find(data, "r").threads[0];
  EXPECT_EQ(r.calls, 8u);
  EXPECT_EQ(r.recursive_calls, 4u);
  EXPECT_EQ(r.events[0].inclusive, 40u) << "2 read outer calls × 10, scaled by 4 / 2";
  EXPECT_EQ(r.events[0].exclusive, 40u);
}

// A parent's scaled estimate can fall below its children's: its exclusive
// values stop at 0 instead of wrapping round.
TEST_F(ThreadStateTest, SampledExclusiveValuesStopAtZero) {
  state_->set_sample_every(2);
  Begin("p", 0);  // p's call 1: read, spans 10
  Begin("c", 0);  // c's call 1: read, 9
  End("c", 9);
  Begin("c", 9);  // c's call 2: not read
  End("c", 9);
  End("p", 10);
  Begin("p", 100);  // p's call 2: not read
  Begin("c", 100);  // c's call 3: read, 100
  End("c", 200);
  End("p", 200);
  Begin("p", 300);  // p's call 3: read, spans 2
  Begin("c", 300);  // c's call 4: not read
  End("c", 301);
  End("p", 302);
  const RunData data = Merge();
  const RegionOnThread& p = Find(data, "p").threads[0];
  const RegionOnThread& c = Find(data, "p/c").threads[0];
  EXPECT_EQ(p.events[0].inclusive, 18u) << "(10 + 2) × 3 / 2";
  EXPECT_EQ(c.events[0].inclusive, 218u) << "(9 + 100) × 4 / 2";
  EXPECT_EQ(p.events[0].exclusive, 0u) << "18 − 218 stops at 0";
}

// Sampling skips reads only: an unread activation that an outer END closes
// is closed without a read, and the counts of the read ones stay exact.
TEST_F(ThreadStateTest, UnreadActivationsClosedImplicitlyStayUnread) {
  state_->set_sample_every(2);
  Begin("a", 0);
  End("a", 10);  // call 1: read
  Begin("a", 20);  // call 2: not read
  Begin("b", 25);  // call 1 of b: read
  End("a", 40);    // closes b implicitly, then a (unread)
  const RunData data = Merge();
  const RegionOnThread& a = Find(data, "a").threads[0];
  const RegionOnThread& b = Find(data, "a/b").threads[0];
  EXPECT_EQ(a.calls, 2u);
  EXPECT_EQ(a.events[0].inclusive, 20u) << "one read call of 10, scaled by 2";
  EXPECT_EQ(b.calls, 1u);
  EXPECT_EQ(b.closed_implicitly, 1u);
  EXPECT_EQ(b.events[0].inclusive, 15u);
}

TEST_F(ThreadStateTest, DeepNestingGrowsTheStack) {
  for (int i = 0; i < 100; ++i) Begin(("level" + std::to_string(i)).c_str(), i);
  for (int i = 99; i >= 0; --i) End(("level" + std::to_string(i)).c_str(), 200 - i);
  const RunData data = Merge();
  EXPECT_EQ(data.regions.size(), 100u);
  EXPECT_EQ(data.regions[0].threads[0].events[0].inclusive, 200u);
  EXPECT_EQ(data.regions[99].threads[0].events[0].inclusive, 200u - 99u - 99u);
}

TEST_F(ThreadStateTest, RestartAfterForkForgetsTotalsButKeepsOpenRegions) {
  Begin("done", 0);
  End("done", 10);
  Begin("open", 10);
  uint64_t child_value = 1000;
  state_->RestartAfterFork(std::make_unique<ScriptedCounter>(&child_value), layout_.words, "");
  child_value = 1007;
  state_->End(registry_.IdForName("open"), Site("open"));
  const RunData data = Merge();
  ASSERT_EQ(data.regions.size(), 1u);
  EXPECT_EQ(data.regions[0].path, "open");
  EXPECT_EQ(data.regions[0].threads[0].events[0].inclusive, 7u);
}

TEST(ThreadStateWithoutCounters, RecordsTimeAndCallsOnly) {
  RegionRegistry registry;
  ThreadState state(3, 42, nullptr, 0, "no counters here", &registry);
  td_site site{"t", "test.cc", 1, 0, 0};
  state.Begin(registry.IdForSite(&site), &site);
  state.End(registry.IdForSite(&site), &site);
  RunData data;
  data.layout = SoftwareLayout();
  MergeThreads({state.Record()}, registry.AllNames(), &data);
  ASSERT_EQ(data.regions.size(), 1u);
  EXPECT_TRUE(data.regions[0].threads[0].events.empty());
  EXPECT_FALSE(data.threads[0].counters_measured);
  EXPECT_EQ(data.threads[0].counters_error, "no counters here");
  EXPECT_EQ(data.threads[0].tid, 42);
}

// likwid_markerGetRegion's figures (runtime/driver/compat_api.h).
TEST_F(ThreadStateTest, EndedTotalsAddEveryPathAndLeaveOutOpenActivations) {
  Begin("a", 100);
  Begin("r", 110);
  End("r", 130);  // a/r: 20
  End("a", 140);
  Begin("r", 200);
  End("r", 205);  // r: 5
  Begin("r", 300);  // open
  const uint32_t r = registry_.IdForName("r");
  std::vector<uint64_t> words(layout_.words, 0);
  int64_t wall = 0;
  EXPECT_EQ(state_->EndedTotals(r, &wall, words.data()), 2u);
  EXPECT_EQ(words[layout_.ValueWord(0, 0)], 25u);
  const RunData before = Merge();
  EXPECT_EQ(wall, Find(before, "a/r").threads[0].wall_inclusive_ns + Find(before, "r").threads[0].wall_inclusive_ns);
  End("r", 310);
  std::fill(words.begin(), words.end(), 0);
  EXPECT_EQ(state_->EndedTotals(r, nullptr, words.data()), 3u);
  EXPECT_EQ(words[layout_.ValueWord(0, 0)], 35u);
  EXPECT_EQ(state_->EndedTotals(registry_.IdForName("never"), nullptr, nullptr), 0u);
}

// likwid_markerResetRegion: the region and what ran inside it are forgotten,
// and the enclosing region's exclusive values get back what they had lost.
TEST_F(ThreadStateTest, ResetRegionForgetsItsSubtreeAndGivesTheParentBack) {
  Begin("a", 100);
  Begin("r", 110);
  Begin("c", 115);
  End("c", 120);
  End("r", 130);
  Begin("d", 140);
  End("d", 150);
  End("a", 200);
  Begin("r", 300);
  End("r", 301);
  ASSERT_TRUE(state_->ResetRegion(registry_.IdForName("r")));
  EXPECT_EQ(state_->EndedTotals(registry_.IdForName("r"), nullptr, nullptr), 0u);
  const RunData data = Merge();
  ASSERT_EQ(data.regions.size(), 2u);  // a/r, a/r/c and r have no calls left
  const RegionOnThread& a = Find(data, "a").threads[0];
  const RegionOnThread& d = Find(data, "a/d").threads[0];
  EXPECT_EQ(a.calls, 1u);
  EXPECT_EQ(a.events[0].inclusive, 100u);
  EXPECT_EQ(a.events[0].exclusive, 90u);  // minus d alone
  EXPECT_EQ(a.wall_exclusive_ns, a.wall_inclusive_ns - d.wall_inclusive_ns);
}

// An activation open at the reset counts from the reset: one call, its
// counts from then, and the exclusive values around it stay exact.
TEST_F(ThreadStateTest, ResetRegionWhileOpenCountsTheOpenActivationFromTheReset) {
  Begin("a", 100);
  End("a", 105);
  Begin("a", 110);
  Begin("r", 110);
  Begin("r", 111);  // recursive
  End("r", 112);
  Begin("c", 120);
  value_ = 150;
  ASSERT_TRUE(state_->ResetRegion(registry_.IdForName("r")));
  End("c", 160);  // 10 since the reset
  End("r", 170);  // 20 since the reset
  End("a", 200);
  const RunData data = Merge();
  const RegionOnThread& a = Find(data, "a").threads[0];
  const RegionOnThread& r = Find(data, "a/r").threads[0];
  const RegionOnThread& c = Find(data, "a/r/c").threads[0];
  EXPECT_EQ(a.calls, 2u);
  EXPECT_EQ(a.events[0].inclusive, 95u);
  EXPECT_EQ(a.events[0].exclusive, 75u);
  EXPECT_EQ(r.calls, 1u);
  EXPECT_EQ(r.recursive_calls, 0u);
  EXPECT_EQ(r.events[0].inclusive, 20u);
  EXPECT_EQ(r.events[0].exclusive, 10u);
  EXPECT_EQ(c.calls, 1u);
  EXPECT_EQ(c.events[0].inclusive, 10u);
  EXPECT_EQ(a.wall_exclusive_ns, a.wall_inclusive_ns - r.wall_inclusive_ns);
  EXPECT_EQ(r.wall_exclusive_ns, r.wall_inclusive_ns - c.wall_inclusive_ns);
}

TEST_F(ThreadStateTest, ResetOfARegionNeverEnteredChangesNothing) {
  Begin("a", 100);
  End("a", 120);
  ASSERT_TRUE(state_->ResetRegion(registry_.IdForName("other")));
  const RunData data = Merge();
  ASSERT_EQ(data.regions.size(), 1u);
  EXPECT_EQ(data.regions[0].threads[0].events[0].inclusive, 20u);
}

// The periodic flush's copy: open regions closed in the copy at the counter's
// value now (its read from another thread), the thread itself untouched.
TEST_F(ThreadStateTest, CopyWhileRecordingClosesOpenRegionsInTheCopyOnly) {
  Begin("a", 100);
  Begin("b", 110);
  End("b", 150);
  Begin("b", 160);
  value_ = 175;
  const int reads_before = reads_;
  const std::unique_ptr<ThreadState> copy = state_->CopyWhileRecording();
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(reads_, reads_before) << "the copy reads through PeekFromAnotherThread only";
  RunData copied;
  copied.layout = layout_;
  MergeThreads({copy->Record()}, registry_.AllNames(), &copied);
  const Region& a = Find(copied, "a");
  const Region& b = Find(copied, "a/b");
  EXPECT_EQ(a.threads[0].calls, 1u);
  EXPECT_EQ(b.threads[0].calls, 2u);
  EXPECT_EQ(a.threads[0].events[0].inclusive, 75u);
  EXPECT_EQ(b.threads[0].events[0].inclusive, 40u + 15u);
  EXPECT_EQ(a.threads[0].events[0].exclusive, 20u);
  EXPECT_EQ(a.threads[0].unterminated + b.threads[0].unterminated, 0u) << "open, not unterminated";
  EXPECT_GT(a.threads[0].wall_inclusive_ns, 0);
  EXPECT_EQ(state_->open_depth(), 2u);
  End("b", 170);
  End("a", 200);
  ExpectNestedSequenceCounts(Merge());
}

}  // namespace
}  // namespace td

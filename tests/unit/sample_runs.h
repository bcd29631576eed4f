// Recorded runs built in code, shared by the tests of the components that
// read, write or render them (run_file, text_report, csv_report, html_report,
// compare, analysis_json, counter_text, software_metrics).
#ifndef TD_TESTS_UNIT_SAMPLE_RUNS_H_
#define TD_TESTS_UNIT_SAMPLE_RUNS_H_

#include <linux/perf_event.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/analysis/run_analysis.h"
#include "runtime/base/byte_strings.h"
#include "runtime/base/diagnostics.h"
#include "runtime/counters/perf_event_backend.h"
#include "runtime/recorded/run_data.h"

namespace td::sample_runs {

// Two threads: outer (thread 1 not measured) holds inner; one diagnostic.
inline RunData TwoThreadRun() {
  RunData data;
  data.td_version = "0.1.0";
  data.program = {"app", 77, {"./app", "--n", "3"}, 1'000'000'000, 3'000'000'000};
  data.machine.cpu_vendor = "GenuineIntel";
  data.machine.cpu_model_name = "Test CPU";
  data.machine.cpu_family = 6;
  data.machine.cpu_model = 85;
  data.machine.logical_cpus = 8;
  data.backend = "perf_event";
  data.layout = SoftwareLayout();
  data.availability.software_counters = true;
  data.availability.hardware_reason = "no hardware PMU here";
  data.availability.hardware_errno = "ENOENT";
  data.availability.measured = "wall time, calls, task-clock";
  data.threads = {{0, 100, false, true, ""}, {1, 101, true, false, "EMFILE"}};
  Region outer{"outer", "outer", -1, {1}, {}};
  RegionOnThread t0{0, 2, 0, 0, 0, 2'000'000, 500'000, {}, {}};
  t0.events = {{10, 5}, {1'900'000, 400'000}, {1, 0}, {0, 0}};
  t0.groups = {{2'000'000, 2'000'000}};
  outer.threads.push_back(t0);
  RegionOnThread t1{1, 1, 0, 1, 0, 1'500'000, 1'500'000, {}, {}};
  outer.threads.push_back(t1);  // counters not measured on thread 1
  Region inner{"inner", "outer/inner", 0, {}, {}};
  RegionOnThread i0{0, 4, 3, 0, 0, 1'500'000, 1'500'000, {}, {}};
  i0.events = {{5, 5}, {1'500'000, 1'500'000}, {1, 1}, {0, 0}};
  i0.groups = {{1'500'000, 1'500'000}};
  inner.threads.push_back(i0);
  data.regions = {outer, inner};
  data.diagnostics = {{Severity::kWarning, "TD_REGION_END(\"x\") at a.c:3 ..."}};
  return data;
}

// Names that are not UTF-8, hold '/' or control bytes.
inline RunData OddRun() {
  RunData data;
  data.td_version = "0.1.0";
  data.program = {"prog\xe9", 7, {"./prog\xe9", "caf\xe9.txt", "\\x41"}, 1, 2};
  data.machine.hostname = "host\xff";
  data.backend = "perf_event";
  data.layout = SoftwareLayout();
  data.availability.software_counters = true;
  data.threads = {{0, 100, false, true, ""}};
  Region top{"\xff\xfe", PathComponent("\xff\xfe"), -1, {1}, {}};
  RegionOnThread t{0, 1, 0, 0, 0, 1000, 500, {}, {}};
  t.events = {{1, 1}, {2, 2}, {3, 3}, {4, 4}};
  t.groups = {{1000, 1000}};
  top.threads.push_back(t);
  const std::string child_name = "a/b\x1b";
  Region child{child_name, top.path + "/" + PathComponent(child_name), 0, {}, {}};
  child.threads.push_back(t);
  data.regions = {top, child};
  data.diagnostics = {{Severity::kWarning, "TD_REGION_END(\"\xff\x1b[2J\") with no region open"}};
  return data;
}

// A run with a second, multiplexed group: half of one region, none of another.
inline RunData MultiplexedRun() {
  RunData data;
  data.layout = SoftwareLayout();
  EventInfo instructions;
  instructions.name = "instructions";
  instructions.unit = "count";
  instructions.perf_type = PERF_TYPE_HARDWARE;
  instructions.perf_config = PERF_COUNT_HW_INSTRUCTIONS;
  instructions.hardware = true;
  data.layout.AddGroup({instructions});
  data.threads = {{0, 10, false, true, ""}};
  Region half{"half", "half", -1, {}, {}};
  RegionOnThread t{0, 1, 0, 0, 0, 1000, 1000, {}, {}};
  t.events = {{0, 0}, {1000, 1000}, {0, 0}, {0, 0}, {500000, 500000}};
  t.groups = {{1000, 1000}, {1000, 500}};
  half.threads.push_back(t);
  Region never{"never", "never", -1, {}, {}};
  t.events.back() = {0, 0};
  t.groups = {{1000, 1000}, {1000, 0}};
  never.threads.push_back(t);
  Region tiny{"tiny", "tiny", -1, {}, {}};
  t.calls = 10;
  t.events.back() = {30000, 30000};
  t.groups = {{1000, 1000}, {1000, 1000}};
  tiny.threads.push_back(t);
  data.regions = {half, never, tiny};
  return data;
}

inline Region MakeRegion(const std::string& name, const std::string& path, int parent, std::vector<int> children) {
  Region r;
  r.name = name;
  r.base_name = name;
  r.path = path;
  r.parent = parent;
  r.children = std::move(children);
  return r;
}

// A no-PMU run: outer (two threads, one not measured) holds inner.
// Event order of SoftwareLayout: page-faults, task-clock, context-switches, cpu-migrations.
inline RunData NoPmuRun() {
  RunData data;
  data.program = {"app", 77, {"./app"}, 1'000'000'000, 3'000'000'000};
  data.backend = "perf_event";
  data.layout = SoftwareLayout();
  data.availability.software_counters = true;
  data.availability.hardware_reason = "no hardware PMU here";
  data.threads = {{0, 100, false, true, ""}, {1, 101, false, false, "EMFILE"}};
  Region outer = MakeRegion("outer", "outer", -1, {1});
  RegionOnThread t0{0, 2, 0, 0, 0, 2'000'000, 500'000, {}, {}};
  t0.events = {{10, 5}, {1'900'000, 400'000}, {3, 2}, {1, 0}};
  t0.groups = {{2'000'000, 2'000'000}};
  outer.threads.push_back(t0);
  outer.threads.push_back({1, 1, 0, 0, 0, 1'500'000, 1'500'000, {}, {}});  // not measured
  Region inner = MakeRegion("inner", "outer/inner", 0, {});
  RegionOnThread i0{0, 4, 0, 0, 0, 1'500'000, 1'500'000, {}, {}};
  i0.events = {{5, 5}, {1'500'000, 1'500'000}, {1, 1}, {1, 1}};
  i0.groups = {{1'500'000, 1'500'000}};
  inner.threads.push_back(i0);
  data.regions = {outer, inner};
  return data;
}

inline RunAnalysis NoTree() {
  RunAnalysis analysis;
  analysis.unavailable = "no hardware counters: no hardware PMU here";
  return analysis;
}

}  // namespace td::sample_runs

#endif  // TD_TESTS_UNIT_SAMPLE_RUNS_H_

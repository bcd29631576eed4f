#!/usr/bin/env python3
"""Writes replay_skl_matmul.json: a td recording (schema 1) as a Skylake
machine with a PMU would produce it for the matmul sample — multiply1
memory-bound, multiply2 core-bound — for replay and report tests.
The counts are constructed, not measured; the file says so in its notes."""
import json, os

EVENTS = ["CPU_CLK_UNHALTED.THREAD", "IDQ_UOPS_NOT_DELIVERED.CORE", "UOPS_ISSUED.ANY",
          "UOPS_RETIRED.RETIRE_SLOTS", "INT_MISC.RECOVERY_CYCLES", "INST_RETIRED.ANY",
          "CYCLE_ACTIVITY.STALLS_MEM_ANY", "CYCLE_ACTIVITY.STALLS_TOTAL",
          "EXE_ACTIVITY.BOUND_ON_STORES", "EXE_ACTIVITY.1_PORTS_UTIL", "EXE_ACTIVITY.2_PORTS_UTIL",
          "CYCLE_ACTIVITY.STALLS_L1D_MISS", "CYCLE_ACTIVITY.STALLS_L2_MISS",
          "CYCLE_ACTIVITY.STALLS_L3_MISS"]

def skl(cycles, fe, bad, ret, instructions, memory):
    slots, recovery = 4 * cycles, cycles / 100
    c = {"CPU_CLK_UNHALTED.THREAD": cycles, "IDQ_UOPS_NOT_DELIVERED.CORE": fe * slots,
         "UOPS_RETIRED.RETIRE_SLOTS": ret * slots, "INT_MISC.RECOVERY_CYCLES": recovery,
         "INST_RETIRED.ANY": instructions}
    c["UOPS_ISSUED.ANY"] = bad * slots + c["UOPS_RETIRED.RETIRE_SLOTS"] - 4 * recovery
    c.update(memory)
    return c

REGIONS = {
  "multiply1": (skl(1e9, 0.05, 0.02, 0.15, 5e8, {
      "CYCLE_ACTIVITY.STALLS_MEM_ANY": 7e8, "CYCLE_ACTIVITY.STALLS_TOTAL": 8e8,
      "EXE_ACTIVITY.BOUND_ON_STORES": 1e7, "EXE_ACTIVITY.1_PORTS_UTIL": 5e7,
      "EXE_ACTIVITY.2_PORTS_UTIL": 5e7, "CYCLE_ACTIVITY.STALLS_L1D_MISS": 6.5e8,
      "CYCLE_ACTIVITY.STALLS_L2_MISS": 6e8, "CYCLE_ACTIVITY.STALLS_L3_MISS": 4e8}), 333_000_000),
  "multiply2": (skl(4e8, 0.05, 0.02, 0.45, 5e8, {
      "CYCLE_ACTIVITY.STALLS_MEM_ANY": 5e7, "CYCLE_ACTIVITY.STALLS_TOTAL": 2e8,
      "EXE_ACTIVITY.BOUND_ON_STORES": 5e6, "EXE_ACTIVITY.1_PORTS_UTIL": 1.5e8,
      "EXE_ACTIVITY.2_PORTS_UTIL": 1e8, "CYCLE_ACTIVITY.STALLS_L1D_MISS": 3e7,
      "CYCLE_ACTIVITY.STALLS_L2_MISS": 1e7, "CYCLE_ACTIVITY.STALLS_L3_MISS": 5e6}), 133_000_000),
}

def main():
    events = [{"name": n, "unit": "count", "perf_type": 4, "perf_config": 0, "hardware": True,
               "group": 0} for n in EVENTS]
    events.append({"name": "task-clock", "unit": "ns", "perf_type": 1, "perf_config": 1,
                   "hardware": False, "group": 1})
    regions = []
    for index, (name, (counts, task_ns)) in enumerate(REGIONS.items()):
        counters = {n: {"inclusive": int(counts[n]), "exclusive": int(counts[n])} for n in EVENTS}
        counters["task-clock"] = {"inclusive": task_ns, "exclusive": task_ns}
        regions.append({"index": index, "name": name, "path": name, "parent": -1, "children": [],
            "threads": [{"thread": 0, "calls": 1, "recursive_calls": 0, "unterminated": 0,
                         "closed_implicitly": 0, "wall_inclusive_ns": task_ns + 1_000_000,
                         "wall_exclusive_ns": task_ns + 1_000_000, "counters": counters,
                         "groups": [{"time_enabled_ns": task_ns, "time_running_ns": task_ns}] * 2}]})
    run = {"schema_version": 1, "td_version": "0.1.0",
           "program": {"name": "td_matmul", "pid": 4242, "argv": ["./td_matmul", "1024"],
                       "start_unix_ns": 0, "end_unix_ns": 500_000_000},
           "machine": {"hostname": "lab-skylake", "kernel": "6.1.0", "architecture": "x86_64",
                       "cpu": {"vendor": "GenuineIntel", "model_name": "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz",
                               "family": 6, "model": 94, "stepping": 3},
                       "logical_cpus": 8, "perf_event_paranoid": 2, "nmi_watchdog": 0},
           "backend": {"name": "perf_event", "measured": "constructed test recording, not a measurement",
                       "software_counters": {"available": True, "reason": ""},
                       "hardware_counters": {"available": True, "reason": "", "errno": ""}},
           "events": events,
           "groups": [{"events": EVENTS}, {"events": ["task-clock"]}],
           "threads": [{"index": 0, "tid": 4242, "exited_before_finalize": False,
                        "counters_measured": True, "counters_error": ""}],
           "regions": regions,
           "diagnostics": [{"severity": "notice", "message": "constructed by tests/data/make_replay_fixture.py"}]}
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "replay_skl_matmul.json")
    with open(out, "w") as f:
        json.dump(run, f, indent=1)
        f.write("\n")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes job_counts_2ranks/ and job_counts_4ranks/: the rank files of two
constructed MPI jobs (schema 1, libtd-mpi's MPI times) whose region "solve"
carries instructions and cycles per rank, for td compare's instruction and
IPC scalability (docs/hpc.md#scalability-between-two-rank-counts).

Planted, 2 ranks against 4 (strong scaling):
  useful time (wall - MPI)  2 x 90 ms = 180 ms, 4 x 60 ms = 240 ms
      -> computation scalability 180 / 240 = 0.75
  instructions              800 M + 1000 M = 1.8 G, 400 + 500 + 500 + 600 M = 2 G
      -> instruction scalability 1.8 / 2 = 0.9
  cycles                    400 M + 500 M = 0.9 G (IPC 2), 1.25 G (IPC 1.6)
      -> IPC scalability 1.6 / 2 = 0.8; frequency 0.75 / (0.9 x 0.8) = 1.0417
Weak scaling (means per rank): computation 90 / 60 = 1.5, instruction
900 M / 500 M = 1.8, IPC 0.8, frequency 1.5 / (1.8 x 0.8) = 1.0417.
The 2-rank job names the counts perf's generic way ("instructions",
"cycles"), the 4-rank one Intel's (INST_RETIRED.ANY, CPU_CLK_UNHALTED.THREAD).
The counts are constructed, not measured; the files say so."""
import json, os

MS = 1_000_000
JOBS = {  # directory: (job id, event names, per rank (wall ns, MPI ns, instructions, cycles))
    "job_counts_2ranks": ("j2", ("instructions", "cycles"),
                          [(100 * MS, 10 * MS, 800e6, 400e6), (100 * MS, 10 * MS, 1000e6, 500e6)]),
    "job_counts_4ranks": ("j4", ("INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD"),
                          [(70 * MS, 10 * MS, 400e6, 250e6), (70 * MS, 10 * MS, 500e6, 312.5e6),
                           (70 * MS, 10 * MS, 500e6, 312.5e6), (70 * MS, 10 * MS, 600e6, 375e6)]),
}


def rank_file(job, names, rank, size, wall, mpi, instructions, cycles):
    counts = dict(zip(names, (instructions, cycles)))
    counters = {n: {"inclusive": int(v), "exclusive": int(v)} for n, v in counts.items()}
    pid = 5000 + rank
    return {"schema_version": 1, "td_version": "0.1.0",
            "program": {"name": "solver", "pid": pid, "argv": ["./solver"],
                        "start_unix_ns": 1_000_000_000, "end_unix_ns": 1_000_000_000 + wall + 5 * MS},
            "mpi": {"rank": rank, "size": size, "job": job, "host": "node0", "launcher": "Open MPI"},
            "mpi_outside_regions": {"ns": 0, "calls": 0, "bytes": 0},
            "machine": {"hostname": "node0", "kernel": "6.1.0", "architecture": "x86_64",
                        "cpu": {"vendor": "GenuineIntel", "model_name": "constructed", "family": 6, "model": 94,
                                "stepping": 3},
                        "logical_cpus": 8, "perf_event_paranoid": 2, "nmi_watchdog": 0},
            "backend": {"name": "perf_event", "measured": "constructed test recording, not a measurement",
                        "software_counters": {"available": True, "reason": ""},
                        "hardware_counters": {"available": True, "reason": "", "errno": ""}},
            "events": [{"name": n, "unit": "count", "perf_type": 4, "perf_config": 0, "hardware": True, "group": 0}
                       for n in names],
            "groups": [{"events": list(names)}],
            "threads": [{"index": 0, "tid": pid, "exited_before_finalize": False, "counters_measured": True,
                         "counters_error": ""}],
            "regions": [{"index": 0, "name": "solve", "path": "solve", "parent": -1, "children": [],
                         "threads": [{"thread": 0, "calls": 1, "recursive_calls": 0, "unterminated": 0,
                                      "closed_implicitly": 0, "wall_inclusive_ns": wall, "wall_exclusive_ns": wall,
                                      "mpi": [mpi, 1, 8], "counters": counters,
                                      "groups": [{"time_enabled_ns": wall, "time_running_ns": wall}]}]}],
            "diagnostics": [{"severity": "notice", "message": "constructed by tests/data/make_job_counts.py"}]}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for directory, (job, names, ranks) in JOBS.items():
        os.makedirs(os.path.join(here, directory), exist_ok=True)
        for rank, row in enumerate(ranks):
            path = os.path.join(here, directory, "td-solver-%d-rank%d.json" % (5000 + rank, rank))
            with open(path, "w") as f:
                json.dump(rank_file(job, names, rank, len(ranks), *row), f, indent=1)
                f.write("\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# A real Open MPI job of three ranks with uneven work (the scenario app's
# rank_work, unchanged and not linked with MPI): each rank writes its own
# file named by job and rank, only rank 0 prints a report, and the job view
# shows rank 2 spending the most CPU time in "solve".
# Usage: mpi_job.sh MPIRUN SCENARIO_APP TD_CLI
set -euo pipefail
mpirun=$1 app=$2 td=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
flags=(--oversubscribe)
# Open MPI keeps its session directory under TMPDIR: one per test, so that
# concurrent tests never remove the directory another mpirun is creating in.
export TMPDIR="$dir"
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
"$mpirun" "${flags[@]}" -np 3 env TD_OUTPUT_DIR="$dir" "$app" rank_work >"$dir/out.txt" 2>"$dir/err.txt"

fail() { echo "mpi_job: $*" >&2; cat "$dir/err.txt" >&2; exit 1; }
files=("$dir"/td-td_scenario_app-*-rank[0-2].json)
[ "${#files[@]}" -eq 3 ] || fail "expected 3 rank files, found: $(ls "$dir")"
reports=$(grep -c '^td report: td_scenario_app' "$dir/err.txt" || true)
[ "$reports" -eq 1 ] || fail "expected rank 0's report alone on stderr, found $reports"

"$td" report --json "$dir" >"$dir/job.json" || fail "td report failed"
python3 - "$dir/job.json" <<'PY' || fail "job view"
import json, sys
job = json.load(open(sys.argv[1]))
assert job["ranks_present"] == [0, 1, 2] and job["ranks_missing"] == [], job
solve = next(r for r in job["regions"] if r["path"] == "solve")
assert solve["calls"] == 9, solve
task = solve["task_clock_ns"]  # CPU time: wall time also holds the preemption of a busy machine
assert task["max_rank"] == 2, solve
assert 1.2 < task["max"] / task["mean"] < 1.8, solve
assert solve["slowest_rank"] == solve["wall_ns"]["max_rank"] and solve["imbalance"] >= 1, solve
halo = next(r for r in job["regions"] if r["path"] == "halo")
assert [r["rank"] for r in halo["ranks"]] == [1, 2], halo
print("mpi_job: 3 ranks; solve: task-clock max/mean %.2f on rank %d, wall imbalance %.2f on rank %d"
      % (task["max"] / task["mean"], task["max_rank"], solve["imbalance"], solve["slowest_rank"]))
PY

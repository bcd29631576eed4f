#!/usr/bin/env bash
# The job view's wait states, efficiencies and failed ranks in real Open MPI
# jobs of 4 ranks (docs/hpc.md#wait-states-and-efficiencies, #when-a-rank-fails).
# Usage: mpi_phases.sh MODE SOURCE MPICC MPIRUN LIBTD_MPI LIBTD INCLUDE TD_CLI
#   phases  mpi_phases.c linked with libtd-mpi (what it plants is at its top):
#           per phase and rank, MPI time within 15 % of the program's own
#           measurement; the late rank named (3 in solve, 2 in halo) in the
#           JSON and the text; the waits charged to the ranks that waited;
#           load balance within 5 % of the planted 0.5; CPU-time imbalance
#           near the planted 2 in "work"; a "(program)" row per rank; the CSV
#   abort   rank 1 calls MPI_Abort: every rank's file is kept (the others
#           written on mpirun's SIGTERM, TD_SIGNALS being on in MPI jobs), and
#           the job view names rank 1 as aborted and the others as ended by SIGTERM
#   kill    rank 1 kills itself with SIGKILL after 2.5 s and two periodic
#           flushes (TD_FLUSH_INTERVAL=1): its partial file counts as rank 1,
#           named partial with its data in the job view, the others complete
#           (ended by SIGTERM)
#   plain   mpi_plain.c (beside SOURCE), no td at all, under `td run` with 4
#           ranks: the job file has a "(program)" row for each rank
#   scaling the strong-scaling phase on 2 and then 4 ranks: `td compare` of
#           the two job files gives "solve" a computation scalability within
#           10 % of the planted 0.857, in the JSON, the CSV and the text
# Exits 77 (skipped), saying why, where mpicc, mpirun or libtd-mpi is missing.
set -euo pipefail
mode=$1 src=$2 mpicc=$3 mpirun=$4 libtdmpi=$5 libtd=$6 include=$7 td=$8
name=mpi_phases
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
libdir=$(dirname "$libtd")
mkdir "$dir/out"

case "$mode" in
phases)
  "$mpicc" -O1 -I"$include" -I"$(dirname "$src")" "$src" "$libtdmpi" "$libtd" \
    -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" -o "$dir/prog" || fail "build"
  "$mpirun" "${flags[@]}" -np 4 -x TD_OUTPUT_DIR="$dir/out" "$dir/prog" phases >"$dir/out.txt" 2>"$dir/err.txt" \
    || fail "mpirun exited with $?"
  job=$(ls "$dir"/out/*job.json) || fail "no job file: $(ls "$dir/out")"
  "$td" report "$job" >"$dir/report.txt" 2>&1 || fail "td report"
  "$td" report --json "$job" >"$dir/report.json" 2>"$dir/err-json.txt" || fail "td report --json"
  "$td" report --csv "$job" >"$dir/report.csv" 2>"$dir/err-csv.txt" || fail "td report --csv"
  python3 - "$dir/report.json" "$dir/out.txt" "$dir/report.txt" "$dir/report.csv" <<'PY' || fail "checks"
import csv, json, re, sys
view = json.load(open(sys.argv[1]))
own = {int(r): (int(s), int(h)) for r, s, h in re.findall(r"rank (\d+) solve_ns=(\d+) halo_ns=(\d+)",
                                                           open(sys.argv[2]).read())}
text = open(sys.argv[3]).read()
assert sorted(own) == [0, 1, 2, 3], own
regions = {r["path"]: r for r in view["regions"]}
def rows(path):
    return {row["rank"]: row for row in regions[path]["ranks"]}
def near(got, want, within):
    return abs(got - want) <= within * want

# MPI time per phase against the program's own MPI_Wtime around its calls,
# where the rank waited long enough to measure (over 50 ms).
for phase, k in (("solve", 0), ("halo", 1)):
    for rank, row in rows(phase).items():
        if own[rank][k] > 50e6:
            assert near(row["mpi_ns"], own[rank][k], 0.15), (phase, rank, row["mpi_ns"], own[rank][k])

solve, halo = regions["solve"]["efficiency"], regions["halo"]["efficiency"]
assert solve["late_rank"] == 3 and halo["late_rank"] == 2, (solve, halo)
# Ranks 0-2 waited ~200 ms in each of 3 allreduces for rank 3; rank 3 did not wait.
waits = {rank: row["wait_ns"] for rank, row in rows("solve").items()}
for rank in (0, 1, 2):
    assert near(waits[rank], own[rank][0] - own[3][0], 0.15), (rank, waits, own)
    assert waits[rank] > 450e6, waits
assert waits[3] == 0, waits
# In halo only rank 3 waited: for rank 2's message (150 ms, more on a busy machine).
hw = {rank: row["wait_ns"] for rank, row in rows("halo").items()}
assert hw[3] > 100e6 and near(hw[3], own[3][1], 0.15) and max(hw[0], hw[1], hw[2]) < 0.1 * hw[3], (hw, own)
assert halo["most_waiting_rank"] == 3, halo
assert near(solve["load_balance"], 0.5, 0.05), solve
assert 0 < solve["parallel_efficiency"] <= solve["load_balance"] + 1e-9, solve
assert solve["communication_efficiency"] > 0.9, solve  # the allreduce itself is short

# The text names the late rank and the waiting ranks per phase.
line = next(l for l in text.splitlines() if re.match(r"^solve +\d\.\d{3} ", l))
assert "rank 3" in line, line
assert re.search(r"^ +waits: r0 [0-9.]+ ms, r1 [0-9.]+ ms, r2 [0-9.]+ ms, r3 0 ns$", text, re.M), text

# A whole-program row per rank, and the job's efficiency from it.
program = regions["(program)"]
assert [row["rank"] for row in program["ranks"]] == [0, 1, 2, 3], program
assert view["efficiency"]["ranks"] == 4 and 0 < view["efficiency"]["load_balance"] <= 1, view["efficiency"]
assert re.search(r"^job \(\(program\)\): load balance ", text, re.M), text

# CPU time imbalance in "work": rank 3 spun 60 ms, the others 20 ms.
cpu = regions["work"]["imbalance_by"]["cpu"]
if cpu is not None:
    assert regions["work"]["task_clock_ns"]["max_rank"] == 3, regions["work"]
    assert near(cpu["ratio"], 2.0, 0.15), cpu
    assert near(cpu["percent"], 50.0, 0.15), cpu
    assert near(cpu["lost_core_seconds"], 0.12, 0.2), cpu
    print("work: CPU imbalance %.2f (%.1f %%, %.3f core-s lost)" % (cpu["ratio"], cpu["percent"],
                                                                   cpu["lost_core_seconds"]))
else:
    print("work: no task-clock on this machine; CPU imbalance not checked")
table = list(csv.DictReader(open(sys.argv[4])))
all_solve = next(r for r in table if r["path"] == "solve" and r["rank"] == "all")
assert all_solve["late_rank"] == "3" and near(float(all_solve["load_balance"]), 0.5, 0.05), all_solve
r0 = next(r for r in table if r["path"] == "solve" and r["rank"] == "0")
assert int(r0["wait_ns"]) == waits[0], r0
print("solve: late rank 3, load balance %.3f (planted 0.5), waits %s ms; halo: late rank 2, rank 3 waited %.0f ms"
      % (solve["load_balance"], [round(waits[r] / 1e6) for r in range(4)], hw[3] / 1e6))
PY
  ;;
abort)
  "$mpicc" -O1 -I"$include" -I"$(dirname "$src")" "$src" "$libtdmpi" "$libtd" \
    -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" -o "$dir/prog" || fail "build"
  if "$mpirun" "${flags[@]}" -np 4 -x TD_OUTPUT_DIR="$dir/out" "$dir/prog" abort >"$dir/out.txt" 2>"$dir/err.txt"; then
    fail "mpirun exited with 0 after MPI_Abort"
  fi
  [ "$(ls "$dir"/out/*-rank?.json | wc -l)" -eq 4 ] || fail "expected 4 rank files: $(ls "$dir/out")"
  "$td" report "$dir/out" >"$dir/report.txt" 2>&1 || fail "td report DIR"
  grep -q '^failed ranks: called MPI_Abort: 1$' "$dir/report.txt" || fail "rank 1 not named as aborted"
  grep -q '^failed ranks: ended by a signal: 0 (SIGTERM), 2 (SIGTERM), 3 (SIGTERM)$' "$dir/report.txt" \
    || fail "ranks 0, 2, 3 not named as ended by SIGTERM"
  "$td" report --json "$dir/out" >"$dir/report.json" 2>/dev/null || fail "td report --json DIR"
  python3 - "$dir/report.json" <<'PY' || fail "checks"
import json, sys
view = json.load(open(sys.argv[1]))
assert view["ranks_present"] == [0, 1, 2, 3] and view["ranks_missing"] == [], view
assert view["ranks_aborted"] == [1] and view["ranks_ended_by_signal"] == [[0, 15], [2, 15], [3, 15]], view
doomed = next(r for r in view["regions"] if r["path"] == "doomed")
assert [row["rank"] for row in doomed["ranks"]] == [0, 1, 2, 3], doomed
print("abort: 4 rank files; rank 1 aborted, ranks 0, 2, 3 ended by SIGTERM")
PY
  ;;
kill)
  "$mpicc" -O1 -I"$include" -I"$(dirname "$src")" "$src" "$libtdmpi" "$libtd" \
    -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" -o "$dir/prog" || fail "build"
  if "$mpirun" "${flags[@]}" -np 4 -x TD_OUTPUT_DIR="$dir/out" -x TD_FLUSH_INTERVAL=1 "$dir/prog" kill \
    >"$dir/out.txt" 2>"$dir/err.txt"; then
    fail "mpirun exited with 0 after a rank was killed"
  fi
  [ "$(ls "$dir"/out/*-rank?.json | wc -l)" -eq 4 ] || fail "expected 4 rank files: $(ls "$dir/out")"
  "$td" report "$dir/out" >"$dir/report.txt" 2>&1 || fail "td report DIR"
  grep -qE '^failed ranks: ended before their end, data up to their last periodic flush: 1 \(partial: last flushed at \+[0-9]+ s\)$' \
    "$dir/report.txt" || fail "rank 1 not named as partial"
  if grep -q '^missing ranks' "$dir/report.txt"; then fail "a rank listed as missing"; fi
  "$td" report --json "$dir/out" >"$dir/report.json" 2>/dev/null || fail "td report --json DIR"
  python3 - "$dir/report.json" <<'PY' || fail "checks"
import json, sys
view = json.load(open(sys.argv[1]))
assert view["ranks_present"] == [0, 1, 2, 3] and view["ranks_missing"] == [], view
[[rank, flushed_ns]] = view["ranks_partial"]
assert rank == 1 and flushed_ns >= 0.9e9, view["ranks_partial"]
assert view["ranks_ended_by_signal"] == [[0, 15], [2, 15], [3, 15]], view
regions = {r["path"]: r for r in view["regions"]}
assert [row["rank"] for row in regions["doomed"]["ranks"]] == [0, 1, 2, 3], regions["doomed"]
doomed1 = next(row for row in regions["doomed"]["ranks"] if row["rank"] == 1)
assert doomed1["wall_ns"] >= 0.9e9, doomed1  # open at the flush: counted up to it
step = regions["doomed/step"]["ranks"]
assert [row["rank"] for row in step] == [1] and step[0]["calls"] >= 9, step
print("kill: 4 rank files; rank 1 partial (flushed at +%.1f s, %d steps), ranks 0, 2, 3 ended by SIGTERM"
      % (flushed_ns / 1e9, step[0]["calls"]))
PY
  ;;
plain)
  "$mpicc" -O1 "$(dirname "$src")/mpi_plain.c" -o "$dir/prog" || fail "build"
  "$mpirun" "${flags[@]}" -np 4 -x TD_OUTPUT_DIR="$dir/out" "$td" run -- "$dir/prog" >"$dir/out.txt" 2>"$dir/err.txt" \
    || fail "mpirun exited with $?"
  job=$(ls "$dir"/out/*job.json) || fail "no job file: $(ls "$dir/out")"
  python3 - "$job" <<'PY' || fail "checks"
import json, sys
job = json.load(open(sys.argv[1]))
regions = {r["path"]: r for r in job["regions"]}
assert list(regions) == ["(program)"], list(regions)
rows = regions["(program)"]["ranks"]
assert [row[0] for row in rows] == [0, 1, 2, 3], rows
# [rank, calls, wall_ns, task_clock_ns, [mpi ns, calls, bytes]]: the allreduce is in it.
assert all(row[2] > 0 and row[4][1] >= 1 for row in rows), rows
print("plain: (program) rows for ranks %s" % [row[0] for row in rows])
PY
  "$td" report "$job" >"$dir/report.txt" 2>&1 || fail "td report"
  grep -qE '^\(program\) +4 +4 ' "$dir/report.txt" || fail "no (program) row of 4 ranks in the job view"
  ;;
scaling)
  "$mpicc" -O1 -I"$include" -I"$(dirname "$src")" "$src" "$libtdmpi" "$libtd" \
    -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" -o "$dir/prog" || fail "build"
  for np in 2 4; do
    mkdir "$dir/out$np"
    "$mpirun" "${flags[@]}" -np $np -x TD_OUTPUT=none -x TD_OUTPUT_DIR="$dir/out$np" "$dir/prog" scaling \
      >"$dir/out$np.txt" 2>&1 || fail "mpirun -np $np exited with $?"
  done
  a=$(ls "$dir"/out2/*job.json) && b=$(ls "$dir"/out4/*job.json) || fail "no job file"
  "$td" compare --json "$a" "$b" >"$dir/compare.json" 2>"$dir/err-json.txt" || fail "td compare --json"
  "$td" compare --csv "$a" "$b" >"$dir/compare.csv" 2>"$dir/err-csv.txt" || fail "td compare --csv"
  "$td" compare "$a" "$b" >"$dir/compare.txt" 2>&1 || fail "td compare"
  python3 - "$dir/compare.json" "$dir/compare.csv" "$dir/compare.txt" <<'PY' || fail "checks"
import csv, json, re, sys
compare = json.load(open(sys.argv[1]))
assert compare["reference"] == "a" and compare["a"]["ranks"] == 2 and compare["b"]["ranks"] == 4, compare
solve = next(r for r in compare["regions"] if r["path"] == "solve")
s = solve["scalability"]
assert s["a_ranks"] == 2 and s["b_ranks"] == 4, s
planted = 1440 / 1680
assert abs(s["computation_scalability"] - planted) <= 0.1 * planted, (s, planted)
assert abs(s["a_useful_ns"] - 1440e6) <= 0.1 * 1440e6 and abs(s["b_useful_ns"] - 1680e6) <= 0.1 * 1680e6, s
assert abs(s["b_global_efficiency"] - solve["b"]["parallel_efficiency"] * s["computation_scalability"]) < 1e-9, s
assert s["a_global_efficiency"] == solve["a"]["parallel_efficiency"], s
assert compare["scalability"] is not None, "the job's own, from (program)"
row = next(r for r in csv.DictReader(open(sys.argv[2])) if r["path"] == "solve")
assert row["reference"] == "a" and abs(float(row["computation_scalability"]) - s["computation_scalability"]) < 1e-4, row
text = open(sys.argv[3]).read()
line = next(l for l in text.splitlines() if re.match(r"^solve +2 +4 ", l))
assert "%.3f" % s["computation_scalability"] in line, line
print("scaling: solve's computation scalability %.3f (planted %.3f), useful %.0f / %.0f ms, global efficiency %.3f"
      % (s["computation_scalability"], planted, s["a_useful_ns"] / 1e6, s["b_useful_ns"] / 1e6,
         s["b_global_efficiency"]))
PY
  ;;
*) fail "unknown mode" ;;
esac

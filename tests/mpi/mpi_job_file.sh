#!/usr/bin/env bash
# libtd-mpi's job file in real Open MPI jobs (docs/hpc.md#one-file-per-job).
# Usage: mpi_job_file.sh MODE SOURCE MPICC MPIRUN LIBTD_MPI LIBTD INCLUDE TD_CLI
#   linked2, linked8  the program linked with libtd-mpi, 2 / 8 ranks (oversubscribed):
#                     one job file, no rank file, exact calls per rank, td report on it
#   summary           8 ranks with TD_MPI_RANKS=0: no rows, spreads and histograms only
#   preload           linked with libtd only; LD_PRELOAD of libtd-mpi gives the job file,
#                     the same job without it gives rank files with the same calls
#   early             rank 1 calls td_finalize() before MPI_Finalize: its own file, the
#                     others in the job file; td report DIR merges both kinds
#   td-run            linked with libtd only, run as `mpirun -np 2 td run -- prog`: td run
#                     preloads libtd-mpi by itself; one job file with exact calls per rank
#   td-run-plain      mpi_plain.c (beside SOURCE), linked with MPI only, under td run:
#                     one job file of both ranks, LD_PRELOAD as td run said
# Exits 77 (skipped), saying why, where mpicc, mpirun or libtd-mpi is missing.
set -euo pipefail
mode=$1 src=$2 mpicc=$3 mpirun=$4 libtdmpi=$5 libtd=$6 include=$7 td=$8
name=mpi_job_file
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
fail() { echo "mpi_job_file $mode: $*" >&2; for f in "$dir"/err*.txt; do echo "== $f" >&2; cat "$f" >&2; done; exit 1; }
flags=(--oversubscribe)
# Open MPI keeps its session directory under TMPDIR: one per test, so that
# concurrent tests never remove the directory another mpirun is creating in.
export TMPDIR="$dir"
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
libdir=$(dirname "$libtd")

launch=()  # what runs the program on each rank: itself, or td run
if [ "$mode" = preload ] || [ "$mode" = td-run ]; then
  "$mpicc" -O1 -I"$include" "$src" "$libtd" -Wl,-rpath,"$libdir" -o "$dir/prog" || fail "build"
  ldd "$dir/prog" | grep -q 'libtd-mpi' && fail "the preload program must not be linked with libtd-mpi"
elif [ "$mode" = td-run-plain ]; then
  "$mpicc" -O1 "$(dirname "$src")/mpi_plain.c" -o "$dir/prog" || fail "build"
  ldd "$dir/prog" | grep -q 'libtd' && fail "the plain program must not be linked with td"
else
  "$mpicc" -O1 -I"$include" "$src" "$libtdmpi" "$libtd" -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" \
    -o "$dir/prog" || fail "build"
fi

# run NAME NP OUTDIR [mpirun args…] -- [program args…]
run() {
  local name=$1 np=$2 out=$3
  shift 3
  local pre=()
  while [ "$1" != -- ]; do pre+=("$1"); shift; done
  shift
  mkdir -p "$out"
  "$mpirun" "${flags[@]}" -np "$np" -x TD_OUTPUT_DIR="$out" "${pre[@]}" "${launch[@]}" "$dir/prog" "$@" \
    >"$dir/out-$name.txt" 2>"$dir/err-$name.txt" || fail "$name: mpirun exited with $?"
  [ "$(grep -c 'done$' "$dir/out-$name.txt")" -eq "$np" ] || fail "$name: the program's stdout changed"
}

check() {  # python checks on the job file; args: file np per_rank [early]
  python3 - "$@" <<'PY'
import json, sys, math
path, np, per_rank = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
early = len(sys.argv) > 4
job = json.load(open(path))
assert job["td_job"] == 1 and job["size"] == np, job
ranks = [r for r in range(np) if not (early and r == 1)]
present = [r for a, b in job["ranks_present"] for r in range(a, b + 1)]
assert present == ranks, present
assert job["per_rank"] == per_rank, job["per_rank"]
red = job["reduction"]
assert red["messages"] == np - 1, red
assert red["levels"] == math.ceil(math.log2(np)), red
regions = {r["path"]: r for r in job["regions"]}
expect = {"solve": {r: 3 for r in ranks}, "solve/inner": {r: 1 for r in ranks},
          "halo": {r: 2 for r in ranks if r > 0}}
for path, calls in expect.items():
    reg = regions[path]
    assert reg["calls"] == sum(calls.values()), (path, reg["calls"])
    assert reg["wall_ns"]["ranks"] == len(calls), (path, reg["wall_ns"])
    assert sum(c for _, c in reg["wall_histogram"]) == len(calls), (path, reg["wall_histogram"])
    if per_rank:
        assert {row[0]: row[1] for row in reg["ranks"]} == calls, (path, reg["ranks"])
    else:
        assert "ranks" not in reg, path
solve = regions["solve"]
# CPU time grows with the rank: the last rank spends the most in solve.
assert solve["task_clock_ns"]["max_rank"] == ranks[-1], solve["task_clock_ns"]
print("job file: %d ranks, %d regions, %d messages, %d bytes (largest %d), root %.1f ms"
      % (len(present), len(regions), red["messages"], red["bytes"], red["largest_message_bytes"],
         red["root_seconds"] * 1e3))
PY
}

case "$mode" in
  linked2 | linked8 | summary)
    np=2; [ "$mode" != linked2 ] && np=8
    env_args=(); per_rank=1
    [ "$mode" = summary ] && { env_args=(-x TD_MPI_RANKS=0); per_rank=0; }
    run job "$np" "$dir/runs" "${env_args[@]}" -- 5
    jobs=("$dir"/runs/td-prog-*job.json)
    [ "${#jobs[@]}" -eq 1 ] && [ -f "${jobs[0]}" ] || fail "expected one job file, found: $(ls "$dir/runs")"
    [ "$(ls "$dir/runs" | wc -l)" -eq 1 ] || fail "expected no other file, found: $(ls "$dir/runs")"
    check "${jobs[0]}" "$np" "$per_rank" || fail "job file"
    [ "$(grep -c '^td job report: prog' "$dir/err-job.txt")" -eq 1 ] || fail "rank 0 prints the job view once"
    grep -q '^td report: prog' "$dir/err-job.txt" && fail "no rank prints its own report"
    "$td" report "${jobs[0]}" >"$dir/report.txt" 2>"$dir/err-report.txt" || fail "td report on the job file"
    last=$((np - 1))
    # The job view's table: region, ranks, calls, …; the slowest rank in solve's row.
    grep -E "^solve +$np +$((3 * np)) .* rank [0-9]+ " "$dir/report.txt" >/dev/null || fail "td report: $(cat "$dir/report.txt")"
    grep -q "^td job report: prog, job .*, $np ranks of $np" "$dir/report.txt" || fail "td report header"
    if [ "$mode" = summary ]; then
      grep -q "per-rank rows not kept" "$dir/report.txt" || fail "summary: no histogram section"
    fi
    "$td" report --json "${jobs[0]}" >"$dir/report.json" || fail "td report --json"
    python3 -c "
import json,sys; v=json.load(open('$dir/report.json'))
s=next(r for r in v['regions'] if r['path']=='solve')
assert v['ranks_present']==list(range($np)) and s['calls']==$((3 * np)), v
assert s['task_clock_ns']['max_rank']==$last, s
" || fail "td report --json"
    ;;
  preload)
    run job 4 "$dir/runs" -x LD_PRELOAD="$libtdmpi" -- 5
    jobs=("$dir"/runs/td-prog-*job.json)
    [ "$(ls "$dir/runs" | wc -l)" -eq 1 ] && [ -f "${jobs[0]}" ] || fail "expected one job file, found: $(ls "$dir/runs")"
    check "${jobs[0]}" 4 1 || fail "job file"
    run ranks 4 "$dir/ranks" -- 5
    [ "$(ls "$dir"/ranks/td-prog-*-rank?.json | wc -l)" -eq 4 ] || fail "without preload: rank files expected"
    "$td" report --csv "${jobs[0]}" | cut -d, -f1-3 >"$dir/a.csv" || fail "td report --csv job file"
    "$td" report --csv "$dir/ranks" | cut -d, -f1-3 >"$dir/b.csv" || fail "td report --csv rank files"
    diff "$dir/a.csv" "$dir/b.csv" >&2 || fail "job file and rank files differ in paths, ranks or calls"
    ;;
  early)
    run job 3 "$dir/runs" -- 0 early
    [ "$(ls "$dir"/runs/td-prog-*job.json | wc -l)" -eq 1 ] || fail "expected a job file: $(ls "$dir/runs")"
    [ "$(ls "$dir"/runs/td-prog-*-rank1.json | wc -l)" -eq 1 ] || fail "expected rank 1's file: $(ls "$dir/runs")"
    [ "$(ls "$dir/runs" | wc -l)" -eq 2 ] || fail "expected two files: $(ls "$dir/runs")"
    check "$dir"/runs/td-prog-*job.json 3 1 early || fail "job file"
    "$td" report "$dir"/runs/td-prog-*job.json >"$dir/alone.txt" || fail "td report job file"
    grep -q "^missing ranks (no file given for them): 1$" "$dir/alone.txt" || fail "rank 1 missing: $(cat "$dir/alone.txt")"
    "$td" report --json "$dir/runs" >"$dir/all.json" || fail "td report DIR"
    python3 -c "
import json; v=json.load(open('$dir/all.json'))
assert v['ranks_present']==[0,1,2] and v['ranks_missing']==[], v
s=next(r for r in v['regions'] if r['path']=='solve')
assert [(r['rank'], r['calls']) for r in s['ranks']]==[(0,3),(1,3),(2,3)], s
assert s['task_clock_ns']['max_rank']==2, s
" || fail "td report DIR: job file and rank file merged"
    ;;
  td-run | td-run-plain)
    launch=("$td" run --)
    run job 2 "$dir/runs" --
    jobs=("$dir"/runs/td-prog-*job.json)
    [ "$(ls "$dir/runs" | wc -l)" -eq 1 ] && [ -f "${jobs[0]}" ] || fail "expected one job file, found: $(ls "$dir/runs")"
    # td run's one line (rank 0's), naming both libraries it preloads.
    notes=$(grep -c '^td run: .*prog is linked with libmpi[^:]*: preloading .* and ' "$dir/err-job.txt" || true)
    [ "$notes" -eq 1 ] || fail "expected td run's preload line once, found it $notes times"
    [ "$(grep -c '^td job report: prog' "$dir/err-job.txt")" -eq 1 ] || fail "rank 0 prints the job view once"
    grep -q '^td run: pass' "$dir/err-job.txt" && fail "an MPI program runs once, without td run's passes"
    if [ "$mode" = td-run ]; then
      check "${jobs[0]}" 2 1 || fail "job file"
    else
      # No region of its own: the job file still lists both ranks of the job.
      python3 - "${jobs[0]}" <<'PY' || fail "job file"
import json, sys
job = json.load(open(sys.argv[1]))
assert job["td_job"] == 1 and job["size"] == 2, job
present = [r for a, b in job["ranks_present"] for r in range(a, b + 1)]
assert present == [0, 1], present
assert job["reduction"]["messages"] == 1 and job["reduction"]["levels"] == 1, job["reduction"]
print("job file: ranks %s, %d regions" % (present, len(job["regions"])))
PY
      # libtd-mpi then libtd, as the line says, each the file built here.
      said=$(sed -n 's/^td run: .*: preloading \(.*\) and \([^ ]*\) (.*/\1:\2/p' "$dir/err-job.txt")
      got=$(sed -n 's/^preload=//p' "$dir/out-job.txt")
      [ "$got" = "$said" ] || fail "rank 0's LD_PRELOAD is '$got', td run said '$said'"
      [ "$(realpath "${got%%:*}")" = "$(realpath "$libtdmpi")" ] || fail "preloaded ${got%%:*}, not $libtdmpi"
      [ "$(realpath "${got#*:}")" = "$(realpath "$libtd")" ] || fail "preloaded ${got#*:}, not $libtd"
    fi
    # --out names one process's file: refused for an MPI program, before it starts.
    rc=0
    "$td" run --out "$dir/one.json" -- "$dir/prog" >"$dir/out-misuse.txt" 2>"$dir/err-misuse.txt" || rc=$?
    [ "$rc" -eq 2 ] || fail "td run --out of an MPI program: exit $rc, expected 2"
    grep -q 'is an MPI program' "$dir/err-misuse.txt" || fail "td run --out: $(cat "$dir/err-misuse.txt")"
    [ ! -s "$dir/out-misuse.txt" ] && [ ! -e "$dir/one.json" ] || fail "td run --out: the program ran"
    ;;
  *) fail "unknown mode" ;;
esac
echo "mpi_job_file $mode: passed"

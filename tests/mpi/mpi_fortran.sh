#!/usr/bin/env bash
# libtd-mpi's Fortran entry points in real Open MPI jobs of two ranks
# (docs/hpc.md#one-file-per-job): Open MPI's Fortran MPI_INIT and MPI_FINALIZE
# call PMPI_Init and PMPI_Finalize themselves, so only libtd-mpi's mpi_init_,
# mpi_finalize_ (and _f08_) definitions can see a Fortran program's. Had they
# not taken over, every rank would write its own file at exit: one job file
# and no other file shows that they did. The same holds for the MPI calls
# timed per region: Open MPI's mpi_allreduce_ (and _f08_) call
# PMPI_Allreduce, so only libtd-mpi's Fortran entry points time them; the
# job file has each region's exact MPI calls and bytes per rank, and the
# 100 ms that rank 1 waits for rank 0 in "reduce".
# Usage: mpi_fortran.sh MODE SOURCE MPIFORT MPIRUN LIBTD_MPI LIBTD LIBTD_FORTRAN MODULE_DIR TD_CLI
#   mpi      `use mpi`, MPI_Init; linked with libtd-mpi
#   f08      `use mpi_f08`, MPI_Init_thread; linked with libtd-mpi
#   td-run   `use mpi`, linked with libtd_fortran only, run as `mpirun -np 2 td run -- prog`:
#            td run sees Open MPI's Fortran library and preloads libtd-mpi
#   cost     `use mpi`, 1 rank, 200,000 MPI_Iprobe calls, linked with and without
#            libtd-mpi: the difference per call (what a wrapped Fortran call
#            costs) stays under 1 µs
# Each mode: one job file of ranks 0 and 1 with the exact calls of each rank,
# and the exact MPI calls and bytes of each rank in "exchange" and "reduce".
# Exits 77 (skipped), saying why, where mpifort, mpirun, libtd-mpi or the
# Fortran binding is missing.
set -euo pipefail
mode=$1 src=$2 mpifort=$3 mpirun=$4 libtdmpi=$5 libtd=$6 libtdf=$7 moddir=$8 td=$9
skip() { echo "mpi_fortran: skipped: $*"; exit 77; }
[ -z "${TD_MPI_TEST_SKIP:-}" ] || skip "$TD_MPI_TEST_SKIP"
[ -n "$mpifort" ] && [ -x "$mpifort" ] || skip "mpifort not found (Debian: libopenmpi-dev, gfortran)"
[ -n "$mpirun" ] && [ -x "$mpirun" ] || skip "mpirun not found (Debian: openmpi-bin)"
[ "$libtdmpi" != none ] && [ -f "$libtdmpi" ] || skip "libtd-mpi was not built (CMake found no MPI)"
[ "$libtdf" != none ] && [ -f "$libtdf" ] || skip "the Fortran binding was not built (no Fortran compiler)"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "mpi_fortran $mode: $*" >&2; for f in "$dir"/*.txt; do echo "== $f" >&2; cat "$f" >&2; done; exit 1; }
flags=(--oversubscribe)
# Open MPI keeps its session directory under TMPDIR: one per test, so that
# concurrent tests never remove the directory another mpirun is creating in.
export TMPDIR="$dir"
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
rpath=-Wl,-rpath,"$(dirname "$libtd")":"$(dirname "$libtdf")":"$(dirname "$libtdmpi")"

# The module file is gfortran's: mpifort must wrap the compiler td was built with.
case $mode in
  mpi) build=("$src" "$libtdf" "$libtdmpi" "$libtd") args=() launch=() ;;
  f08) build=(-DTD_TEST_F08 "$src" "$libtdf" "$libtdmpi" "$libtd") args=(thread) launch=() ;;
  td-run) build=("$src" "$libtdf" "$libtd") args=() launch=("$td" run --) ;;
  cost) build=("$src" "$libtdf" "$libtd") args=() launch=() ;;  # and "timed", below
  *) fail "unknown mode" ;;
esac
"$mpifort" -O1 -I"$moddir" "${build[@]}" "$rpath" -o "$dir/prog" >"$dir/build.txt" 2>&1 || fail "build"
if [ "$mode" = cost ]; then
  "$mpifort" -O1 -I"$moddir" "$src" "$libtdf" "$libtdmpi" "$libtd" "$rpath" -o "$dir/timed" >>"$dir/build.txt" 2>&1 ||
    fail "build with libtd-mpi"
  # shellcheck source=cost.sh
  source "$(dirname "$0")/cost.sh"
  wrapped_call_cost "mpi_fortran cost: MPI_Iprobe (mpi_iprobe_)" "$dir/prog" "$dir/timed"
  exit 0
fi
if [ "$mode" = td-run ]; then
  ldd "$dir/prog" | grep -q 'libtd-mpi' && fail "the td run program must not be linked with libtd-mpi"
fi

mkdir "$dir/runs"
"$mpirun" "${flags[@]}" -np 2 -x TD_OUTPUT_DIR="$dir/runs" "${launch[@]}" "$dir/prog" "${args[@]}" \
  >"$dir/out.txt" 2>"$dir/err.txt" || fail "mpirun exited with $?"
[ "$(grep -c ' done$' "$dir/out.txt")" -eq 2 ] || fail "expected both ranks' lines on stdout"
jobs=("$dir"/runs/td-prog-*job.json)
[ "$(ls "$dir/runs" | wc -l)" -eq 1 ] && [ -f "${jobs[0]}" ] ||
  fail "expected one job file and no other file, found: $(ls "$dir/runs")"
[ "$(grep -c '^td job report: prog' "$dir/err.txt")" -eq 1 ] || fail "rank 0 prints the job view once"
if [ "$mode" = td-run ]; then
  # What td run recognised MPI by: the Fortran library, as --as-needed leaves
  # libmpi itself out of a program that calls only Fortran MPI routines.
  notes=$(grep -c '^td run: .*prog is linked with libmpi[^:]*: preloading .*libtd-mpi' "$dir/err.txt" || true)
  [ "$notes" -eq 1 ] || fail "expected td run's preload line once, found it $notes times"
fi

python3 - "${jobs[0]}" <<'PY' || fail "job file"
import json, sys
job = json.load(open(sys.argv[1]))
assert job["td_job"] == 1 and job["size"] == 2, job
present = [r for a, b in job["ranks_present"] for r in range(a, b + 1)]
assert present == [0, 1], present
assert job["per_rank"] is True, job["per_rank"]
assert job["reduction"]["messages"] == 1 and job["reduction"]["levels"] == 1, job["reduction"]
regions = {r["path"]: r for r in job["regions"]}
expect = {"(program)": {0: 1, 1: 1}, "compute": {0: 2, 1: 3}, "compute/step": {0: 4, 1: 6}, "exchange": {0: 1, 1: 1},
          "reduce": {0: 1, 1: 1}}
assert sorted(regions) == sorted(expect), sorted(regions)
for path, calls in expect.items():
    reg = regions[path]
    assert {row[0]: row[1] for row in reg["ranks"]} == calls, (path, reg["ranks"])
    assert reg["calls"] == sum(calls.values()), (path, reg["calls"])
# The Fortran MPI calls, timed once each through libtd-mpi's mpi_xxx_ /
# mpi_xxx_f08_ entry points: [ns, calls, bytes] per rank.
# (A row without one: no MPI call.)
def mpi(path):
    return {row[0]: row[4] if len(row) > 4 else [0, 0, 0] for row in regions[path]["ranks"]}
for path in ("compute", "compute/step"):
    assert mpi(path) == {0: [0, 0, 0], 1: [0, 0, 0]}, (path, mpi(path))
# exchange: MPI_Sendrecv (2 + 2 integers), MPI_Allgather in place (this
# rank's 1 integer of the receive buffer), MPI_Barrier.
for rank, (ns, calls, nbytes) in mpi("exchange").items():
    assert calls == 3 and nbytes == 16 + 4 and ns > 0, ("exchange", rank, ns, calls, nbytes)
# reduce: one MPI_Allreduce of 1 integer; rank 1 waits in it for rank 0,
# which slept 100 ms first.
reduce = mpi("reduce")
for rank, (ns, calls, nbytes) in reduce.items():
    assert calls == 1 and nbytes == 4 and ns > 0, ("reduce", rank, ns, calls, nbytes)
assert reduce[1][0] >= 80e6, ("rank 1 waited", reduce[1][0])
assert reduce[0][0] < reduce[1][0], ("rank 0 came last", reduce)
print("job file: ranks %s, %s" % (present, ", ".join(
    "%s %s" % (p, {row[0]: row[1] for row in regions[p]["ranks"]}) for p in sorted(expect))))
print("MPI [ns, calls, bytes]: exchange %s, reduce %s" % (mpi("exchange"), reduce))
PY
echo "mpi_fortran $mode: passed"

#!/usr/bin/env bash
# MPI time per region and MPI_Abort in real Open MPI jobs
# (docs/hpc.md#mpi-time-per-region, #mpi_abort).
# Usage: mpi_time.sh MODE SOURCE MPICC MPIRUN LIBTD_MPI LIBTD INCLUDE TD_CLI
#   regions  2 ranks linked with libtd-mpi: the rank that waits for a late one
#            reads the region's MPI time within 15 % of what the program itself
#            measured around the calls (MPI_Wtime); an MPI_Send/MPI_Recv pair of
#            1000 ints is 4000 bytes and 1 call on each side; the job view has
#            the MPI share per region; td report prints the MPI section
#   abort    2 ranks, the last calls MPI_Abort inside a region: its own file is
#            written, marked aborted, and `td report DIR` names it as failed
#   cost     1 rank, 200,000 MPI_Iprobe calls with and without libtd-mpi:
#            the difference per call (what a wrapped call costs) stays under 1 µs
#   no-fortran  1 rank, mpi_no_fortran.c (beside SOURCE): libtd-mpi's Fortran
#            entry points without Open MPI's Fortran library return
#            MPI_ERR_INTERN in their error argument instead of crashing
#   fortran-names  2 ranks, mpi_fortran_names.c (beside SOURCE) linked with
#            libtd-mpi and Open MPI's libmpi_mpifh: an MPI_Send/MPI_Recv pair
#            through each name libmpi_mpifh exports (mpi_send_, mpi_send,
#            mpi_send__, MPI_SEND) is timed once, with its exact bytes; the
#            ranks write one job file, as MPI_INIT and mpi_finalize__ (other
#            spellings too) went through libtd-mpi
# Exits 77 (skipped), saying why, where mpicc, mpirun or libtd-mpi is missing.
set -euo pipefail
mode=$1 src=$2 mpicc=$3 mpirun=$4 libtdmpi=$5 libtd=$6 include=$7 td=$8
name=mpi_time
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
libdir=$(dirname "$libtd")
"$mpicc" -O1 -I"$include" "$src" "$libtdmpi" "$libtd" -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" \
  -o "$dir/prog" || fail "build"

case "$mode" in
regions)
  mkdir "$dir/out"
  "$mpirun" "${flags[@]}" -np 2 -x TD_OUTPUT_DIR="$dir/out" "$dir/prog" regions >"$dir/out.txt" 2>"$dir/err.txt" \
    || fail "mpirun exited with $?"
  job=$(ls "$dir"/out/*.json)
  "$td" report "$job" >"$dir/report.txt" 2>&1 || fail "td report"
  grep -q '^MPI share of each rank' "$dir/report.txt" || fail "no MPI share in the job view"
  python3 - "$job" "$dir/out.txt" <<'PY' || fail "checks"
import json, re, sys
job = json.load(open(sys.argv[1]))
own = {int(r): int(ns) for r, ns in re.findall(r"rank (\d+) step_mpi_ns=(\d+)", open(sys.argv[2]).read())}
regions = {r["path"]: r for r in job["regions"]}
step = {row[0]: row for row in regions["step"]["ranks"]}
# Rank 0 waited ~300 ms for rank 1 in the barrier: td's time in the two
# calls, from inside its wrappers, against the program's own around them.
ns, calls, nbytes = step[0][4]
assert own[0] > 200e6, own
assert abs(ns - own[0]) <= 0.15 * own[0], (ns, own[0])
assert calls == 2 and nbytes == 4 * 8, step[0]  # a barrier (0 bytes) and 4 doubles
share = regions["step"]["mpi_share"]
assert share["ranks"] == 2 and share["max_rank"] == 0 and share["max"] > 0.5, share
ex = {row[0]: row[4] for row in regions["exchange"]["ranks"]}
assert ex[0][1:] == [1, 4000] and ex[1][1:] == [1, 4000], ex  # 1000 ints each way, one call
print("mpi_time regions: rank 0 step MPI %.1f ms (program: %.1f ms), share %.0f%%; exchange 4000 B each side"
      % (ns / 1e6, own[0] / 1e6, 100 * share["max"]))
PY
  ;;
abort)
  mkdir "$dir/out"
  # mpirun ends the other rank and exits non-zero: that is the job aborting.
  if "$mpirun" "${flags[@]}" -np 2 -x TD_OUTPUT_DIR="$dir/out" "$dir/prog" abort >"$dir/out.txt" 2>"$dir/err.txt"; then
    fail "mpirun exited with 0 after MPI_Abort"
  fi
  # The aborting rank's file; rank 0's, written on mpirun's SIGTERM, is
  # tested with 4 ranks in mpi_phases.sh abort.
  file=$(ls "$dir"/out/*-rank1.json 2>/dev/null) || fail "no file of the aborting rank: $(ls "$dir/out")"
  "$td" report "$dir/out" >"$dir/report.txt" 2>&1 || fail "td report DIR"
  grep -q '^failed ranks: called MPI_Abort: 1$' "$dir/report.txt" || fail "the job view does not name rank 1"
  python3 - "$file" <<'PY' || fail "checks"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["mpi"]["rank"] == 1 and run["mpi"]["aborted"] is True, run["mpi"]
doomed = next(r for r in run["regions"] if r["path"] == "doomed")
assert doomed["threads"][0]["calls"] == 1 and doomed["threads"][0]["unterminated"] == 1, doomed
print("mpi_time abort: rank 1's file written at MPI_Abort, marked aborted")
PY
  ;;
cost)
  "$mpicc" -O1 -DTD_NO_INSTRUMENTATION -I"$include" "$src" -o "$dir/plain" || fail "build plain"
  # shellcheck source=cost.sh
  source "$(dirname "$0")/cost.sh"
  wrapped_call_cost "mpi_time cost: MPI_Iprobe" "$dir/plain" "$dir/prog"
  ;;
no-fortran)
  "$mpicc" -O1 "$(dirname "$src")/mpi_no_fortran.c" "$libtdmpi" "$libtd" \
    -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" -o "$dir/nofortran" || fail "build no-fortran"
  ! ldd "$dir/nofortran" | grep -q 'libmpi_mpifh\|libmpi_usempif08' || fail "linked with a Fortran MPI library"
  "$mpirun" "${flags[@]}" -np 1 -x TD_OUTPUT=none "$dir/nofortran" >"$dir/out.txt" 2>"$dir/err.txt" \
    || fail "mpirun exited with $?"
  line=$(grep '^mpi_barrier_=' "$dir/out.txt") || fail "no result line"
  [[ $line =~ ^mpi_barrier_=([0-9]+)\ mpi_barrier_f08_=([0-9]+)\ MPI_ERR_INTERN=([0-9]+)$ ]] &&
    [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[3]}" ] && [ "${BASH_REMATCH[2]}" = "${BASH_REMATCH[3]}" ] ||
    fail "expected MPI_ERR_INTERN from both entry points: $line"
  echo "mpi_time no-fortran: $line"
  ;;
fortran-names)
  # libmpi_mpifh after libtd-mpi, kept though nothing resolves to it at link
  # time: libtd-mpi's entry points find its definitions with RTLD_NEXT.
  fortran_lib=$(dirname "$(ldd "$dir/prog" | awk '/libmpi\.so/ {print $3}')")/libmpi_mpifh.so
  [ -f "$fortran_lib" ] || skip "Open MPI's Fortran library (libmpi_mpifh) not found (Debian: libopenmpi-dev)"
  "$mpicc" -O1 -I"$include" "$(dirname "$src")/mpi_fortran_names.c" "$libtdmpi" -Wl,--no-as-needed "$fortran_lib" \
    "$libtd" -Wl,-rpath,"$libdir":"$(dirname "$libtdmpi")" -o "$dir/names" || fail "build fortran-names"
  mkdir "$dir/out"
  "$mpirun" "${flags[@]}" -np 2 -x TD_OUTPUT_DIR="$dir/out" "$dir/names" >"$dir/out.txt" 2>"$dir/err.txt" \
    || fail "mpirun exited with $?"
  [ "$(grep -c '^rank [01] ierr=0 0 0 0 0 0$' "$dir/out.txt")" -eq 2 ] || fail "expected MPI_SUCCESS from every call"
  # One job file, no rank file: MPI_INIT and mpi_finalize__ went through libtd-mpi.
  job=$(ls "$dir"/out/*-job.json) && [ "$(ls "$dir/out" | wc -l)" -eq 1 ] ||
    fail "expected one job file, found: $(ls "$dir/out")"
  python3 - "$job" <<'PY' || fail "checks"
import json, sys
regions = {r["path"]: r for r in json.load(open(sys.argv[1]))["regions"]}
# [ns, calls, bytes] per rank: one call each side, 4 bytes per int sent.
for ints, path in enumerate(("gfortran", "plain", "f2c", "upper"), start=1):
    mpi = {row[0]: row[4] for row in regions[path]["ranks"]}
    for rank, (ns, calls, nbytes) in mpi.items():
        assert calls == 1 and nbytes == 4 * ints and ns > 0, (path, rank, ns, calls, nbytes)
    assert sorted(mpi) == [0, 1], (path, mpi)
print("mpi_time fortran-names: mpi_send_, mpi_send, mpi_send__, MPI_SEND (and their mpi_recv): 1 call, 4/8/12/16 B")
PY
  ;;
*) fail "unknown mode" ;;
esac

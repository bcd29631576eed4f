#!/usr/bin/env bash
# libtd_compat (docs/compat.md) on programs instrumented for LIKWID's marker
# API and PAPI's high-level API, built against the real liblikwid / libpapi:
# each runs once as it is and once with td, and under td its exit status and
# its stdout (apart from the lines that report what the marker API returned)
# must not change, and td's JSON must hold the exact calls per region.
#
# Usage: compat_test.sh MODE BUILD_DIR TESTS_DIR PYTHON TD_CLI COMPAT_LIB PROGRAM…
#   preload-likwid LIKWID_REGIONS LIKWID_THREADS   LD_PRELOAD=libtd_compat.so
#   preload-papi PAPI_HL                            LD_PRELOAD=libtd_compat.so
#   preload-fortran PAPI_FORTRAN [LIKWID_FORTRAN]  the Fortran entry points, LD_PRELOAD
#   td-run LIKWID_REGIONS PAPI_HL                   `td run`, which preloads by itself
#   td-likwid LIKWID_REGIONS_SOURCE                 built against td alone (pkg-config td-likwid)
#   td-likwid-fortran FORTRAN_SOURCE                the same from Fortran (td's module `likwid`)
#   cxx LIKWID_CXX PAPI_CXX                         C++ programs: LD_PRELOAD and `td run`
#   mpi MPI_SOURCE CFLAGS_AND_LIBS…                 built with mpicc, 2 ranks under mpirun, LD_PRELOAD
#   events PAPI_HL                                  PAPI_EVENTS / LIKWID_EVENTS -> TD_EVENTS
# Lines starting "getv:" are GET's answers, checked against td's JSON
# (check_get.py).
set -euo pipefail
mode=$1
build=$(cd "$2" && pwd)
here=$(cd "$3" && pwd)
python=$4
td_cli=$5
compat=$6
shift 6
test_name=compat_$mode
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=../bindings/common.sh
. "$here/../bindings/common.sh"
check_counts="$here/../bindings/check_counts.py"
export OMP_DYNAMIC=false
unset OMP_NUM_THREADS OMP_THREAD_LIMIT TD_EVENTS PAPI_EVENTS LIKWID_EVENTS LD_PRELOAD

check_get="$here/check_get.py"
# outer/compute's four calls are gone: likwid_markerResetRegion("compute")
# zeroes them in td's recording; the one call after it is top-level.
likwid_counts=(outer=1 outer/inner=1 outer/inner/deep=1 compute=1 held=1 twice=1)
likwid_get=$'get: compute count=4 time_positive=1\nget: after reset count=0 time=0 events_zero=1\nget: after one more count=1\nget: never started count=0 time=0\nget: stop never started -> -14'
papi_counts=(main=1 main/step=3 main/step/PAPI_hl_read=1 main/PAPI_hl_read=1 worker=3x2 dup=1)
papi_rc=$'rc: ok calls 10 of 10\nrc: end never begun -1\nrc: read never begun -1\nrc: begin dup 0\nrc: begin dup again -1\nrc: end dup 0\nrc: end null -1\nrc: stop 0\nrc: stop again -7\nrc: begin after stop -14\nrc: low-level initialised 1'

# run WHAT OUT EXPECTED_STATUS COMMAND…: runs COMMAND in OUT (created), its
# stdout in OUT.stdout, stderr in OUT.stderr; fails unless it exits with
# EXPECTED_STATUS.
run() {
  local what=$1 out=$2 expected=$3
  shift 3
  mkdir -p "$out"
  local status=0
  (cd "$out" && "$@") >"$out.stdout" 2>"$out.stderr" || status=$?
  [ "$status" -eq "$expected" ] ||
    { cat "$out.stdout" "$out.stderr" >&2; fail "$what: exit status $status, expected $expected"; }
}

# same_output WHAT PREFIX A B: the stdout files A and B agree apart from lines starting PREFIX.
same_output() {
  diff <(grep -v "^$2" "$3") <(grep -v "^$2" "$4") >&2 || fail "$1: stdout differs from the program's own"
}

# lines WHAT PREFIX FILE EXPECTED: the lines of FILE starting PREFIX are EXPECTED.
lines() {
  local got
  got=$(grep "^$2" "$3" || true)
  [ "$got" = "$4" ] || fail "$1: expected lines
$4
got
$got"
}

# in_stderr WHAT FILE TEXT: FILE holds TEXT.
in_stderr() {
  grep -qF -- "$3" "$2" || { cat "$2" >&2; fail "$1: stderr lacks: $3"; }
}

one_json() {
  local reports=("$1"/td-*.json)
  [ ${#reports[@]} -eq 1 ] && [ -f "${reports[0]}" ] || fail "expected one td JSON in $1, found ${#reports[@]}"
  echo "${reports[0]}"
}

case $mode in
preload-likwid)
  regions=$1 threads=$2
  [ -n "$(ldd "$regions" | grep liblikwid)" ] || fail "$regions is not linked with liblikwid"
  run "real LIKWID" "$scratch/real" 3 "$regions"
  run "LD_PRELOAD" "$scratch/td" 3 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" "$regions"
  same_output "LD_PRELOAD" "get" "$scratch/real.stdout" "$scratch/td.stdout"
  lines "LD_PRELOAD" "get:" "$scratch/td.stdout" "$likwid_get"
  in_stderr "LD_PRELOAD" "$scratch/td.stderr" 'likwid_markerStartRegion("twice"): the region is already open on this thread'
  in_stderr "LD_PRELOAD" "$scratch/td.stderr" 'likwid_markerStopRegion("never_started"): the region is not open on this thread'
  "$python" "$check_counts" "$(one_json "$scratch/td")" "${likwid_counts[@]}" || fail "LD_PRELOAD: wrong counts"
  "$python" "$check_get" "$(one_json "$scratch/td")" "$scratch/td.stdout" --exclusive outer ||
    fail "LD_PRELOAD: GET's answers differ from td's JSON"
  echo "LIKWID, nested/REGISTER/GET/RESET: exit status and output unchanged, exact counts"

  run "real LIKWID, OpenMP" "$scratch/real-omp" 0 "$threads"
  run "LD_PRELOAD, OpenMP" "$scratch/td-omp" 0 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" "$threads"
  same_output "LD_PRELOAD, OpenMP" "get:" "$scratch/real-omp.stdout" "$scratch/td-omp.stdout"
  "$python" "$check_counts" "$(one_json "$scratch/td-omp")" parallel=1x2 parallel/kernel=5x2 ||
    fail "LD_PRELOAD, OpenMP: wrong counts"
  echo "LIKWID in OpenMP parallel code: exact counts per thread"
  ;;
preload-papi)
  hl=$1
  [ -n "$(ldd "$hl" | grep libpapi)" ] || fail "$hl is not linked with libpapi"
  run "real PAPI" "$scratch/real" 4 "$hl"
  run "LD_PRELOAD" "$scratch/td" 4 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" "$hl"
  same_output "LD_PRELOAD" "rc:" "$scratch/real.stdout" "$scratch/td.stdout"
  lines "LD_PRELOAD" "rc:" "$scratch/td.stdout" "$papi_rc"
  in_stderr "LD_PRELOAD" "$scratch/td.stderr" 'PAPI_hl_region_end("never_begun"): the region is not open on this thread; returns PAPI_EINVAL'
  "$python" "$check_counts" "$(one_json "$scratch/td")" "${papi_counts[@]}" || fail "LD_PRELOAD: wrong counts"
  echo "PAPI high-level: exit status and output unchanged, documented return codes, exact counts"
  ;;
preload-fortran)
  papi=$1 likwid=${2:-}
  run "real PAPI, Fortran" "$scratch/real-papi" 0 "$papi"
  run "LD_PRELOAD, PAPI Fortran" "$scratch/td-papi" 0 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" "$papi"
  same_output "LD_PRELOAD, PAPI Fortran" "rc:" "$scratch/real-papi.stdout" "$scratch/td-papi.stdout"
  lines "LD_PRELOAD, PAPI Fortran" "rc:" "$scratch/td-papi.stdout" $'rc: end never -1\nrc: stop 0'
  "$python" "$check_counts" "$(one_json "$scratch/td-papi")" outer=2 outer/padded=2 outer/padded/PAPI_hl_read=2 ||
    fail "LD_PRELOAD, PAPI Fortran: wrong counts"
  echo "PAPIf_hl_* from Fortran: exact counts, return codes"
  if [ -n "$likwid" ]; then
    run "real LIKWID, Fortran" "$scratch/real-likwid" 0 "$likwid"
    run "LD_PRELOAD, LIKWID Fortran" "$scratch/td-likwid" 0 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" "$likwid"
    same_output "LD_PRELOAD, LIKWID Fortran" "get" "$scratch/real-likwid.stdout" "$scratch/td-likwid.stdout"
    lines "LD_PRELOAD, LIKWID Fortran" "get:" "$scratch/td-likwid.stdout" $'get: count=3\nget: after reset count=0'
    # RESET of "loop" zeroes it and "padded" inside it; one more pass follows.
    "$python" "$check_counts" "$(one_json "$scratch/td-likwid")" loop=1 loop/padded=1 ||
      fail "LD_PRELOAD, LIKWID Fortran: wrong counts"
    "$python" "$check_get" "$(one_json "$scratch/td-likwid")" "$scratch/td-likwid.stdout" ||
      fail "LD_PRELOAD, LIKWID Fortran: GET's answers differ from td's JSON"
    echo "LIKWID's Fortran module: exact counts, blank-padded names trimmed, GET and RESET"
  fi
  ;;
td-run)
  regions=$1 hl=$2
  run "real LIKWID" "$scratch/real-likwid" 3 "$regions"
  run "td run (LIKWID)" "$scratch/run-likwid" 3 "$td_cli" run --out "$scratch/run-likwid/likwid.json" -- "$regions"
  in_stderr "td run (LIKWID)" "$scratch/run-likwid.stderr" "is linked with liblikwid.so"
  in_stderr "td run (LIKWID)" "$scratch/run-likwid.stderr" "exited with status 3"
  grep -q '^likwid_regions done$' "$scratch/run-likwid.stdout" || fail "td run (LIKWID): the program's output is missing"
  lines "td run (LIKWID)" "get:" "$scratch/run-likwid.stdout" "$likwid_get"
  "$python" "$check_counts" "$scratch/run-likwid/likwid.json" "${likwid_counts[@]}" || fail "td run (LIKWID): wrong counts"
  "$python" "$check_get" "$scratch/run-likwid/likwid.json" "$scratch/run-likwid.stdout" --exclusive outer ||
    fail "td run (LIKWID): GET's answers differ from td's JSON"
  echo "td run preloads for a program linked with liblikwid: exact counts"

  run "td run (PAPI)" "$scratch/run-papi" 4 "$td_cli" run --out "$scratch/run-papi/papi.json" -- "$hl"
  in_stderr "td run (PAPI)" "$scratch/run-papi.stderr" "is linked with libpapi.so"
  lines "td run (PAPI)" "rc:" "$scratch/run-papi.stdout" "$papi_rc"
  "$python" "$check_counts" "$scratch/run-papi/papi.json" "${papi_counts[@]}" || fail "td run (PAPI): wrong counts"
  echo "td run preloads for a program linked with libpapi: exact counts"

  # A shell script is no ELF file: only --compat preloads into it (and what it runs).
  printf '#!/bin/sh\nexec "%s"\n' "$hl" >"$scratch/wrapper.sh"
  chmod +x "$scratch/wrapper.sh"
  run "td run --compat" "$scratch/run-wrapper" 4 "$td_cli" run --compat --out "$scratch/run-wrapper/w.json" -- "$scratch/wrapper.sh"
  in_stderr "td run --compat" "$scratch/run-wrapper.stderr" "--compat: preloading"
  "$python" "$check_counts" "$scratch/run-wrapper/w.json" "${papi_counts[@]}" || fail "td run --compat: wrong counts"
  echo "td run --compat preloads into a script's program: exact counts"
  ;;
td-likwid)
  source_file=$1
  libdir=$(cache_value CMAKE_INSTALL_LIBDIR)
  case $libdir in /*) echo "the build installs to the absolute $libdir: not installed here"; exit 0 ;; esac
  prefix="$scratch/prefix"
  install_build "$prefix"
  pc_dir="$prefix/$libdir/pkgconfig"
  [ -f "$pc_dir/td-likwid.pc" ] || fail "no td-likwid.pc in $pc_dir"
  [ -f "$prefix/include/td/likwid/likwid-marker.h" ] || fail "no include/td/likwid/likwid-marker.h installed"
  flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs td-likwid) || fail "pkg-config td-likwid failed"
  cc=$(cache_value CMAKE_C_COMPILER)
  cp "$source_file" "$scratch/prog.c"
  # shellcheck disable=SC2086  # the flags are meant to be split into words
  "$cc" -DLIKWID_PERFMON -Wall -Werror -o "$scratch/prog" "$scratch/prog.c" $flags ||
    fail "compiling with pkg-config td-likwid ($flags) failed"
  if ldd "$scratch/prog" | grep -q liblikwid; then ldd "$scratch/prog" >&2; fail "the program loads liblikwid"; fi
  loads_from "td-likwid" "$scratch/prog" libtd_compat "$prefix/$libdir"
  run "td-likwid" "$scratch/out" 3 env TD_OUTPUT=none TD_JSON=1 "$scratch/prog"
  lines "td-likwid" "get:" "$scratch/out.stdout" "$likwid_get"
  "$python" "$check_counts" "$(one_json "$scratch/out")" "${likwid_counts[@]}" || fail "td-likwid: wrong counts"
  "$python" "$check_get" "$(one_json "$scratch/out")" "$scratch/out.stdout" --exclusive outer ||
    fail "td-likwid: GET's answers differ from td's JSON"
  # Without LIKWID_PERFMON the macros are empty: no regions, no td.
  "$cc" -w -o "$scratch/prog-off" "$scratch/prog.c" $flags || fail "compiling without LIKWID_PERFMON failed"
  run "td-likwid, markers off" "$scratch/out-off" 3 env TD_OUTPUT=none TD_JSON=1 "$scratch/prog-off"
  [ -z "$(ls "$scratch/out-off")" ] || fail "without LIKWID_PERFMON td still wrote $(ls "$scratch/out-off")"
  echo "td-likwid: built against td alone (no liblikwid), exact counts; without LIKWID_PERFMON no markers"
  ;;
td-likwid-fortran)
  source_file=$1
  libdir=$(cache_value CMAKE_INSTALL_LIBDIR)
  case $libdir in /*) echo "the build installs to the absolute $libdir: not installed here"; exit 0 ;; esac
  fc=$(cache_value CMAKE_Fortran_COMPILER)
  [ -n "$fc" ] || { echo "SKIPPED: td was configured without a Fortran compiler"; exit 77; }
  prefix="$scratch/prefix"
  install_build "$prefix"
  pc_dir="$prefix/$libdir/pkgconfig"
  [ -f "$prefix/include/td/likwid/likwid.mod" ] || fail "no include/td/likwid/likwid.mod installed"
  flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs td-likwid) || fail "pkg-config td-likwid failed"
  cp "$source_file" "$scratch/prog.f90"
  # As LIKWID documents it, with td's flags in place of LIKWID's; -fopenmp for
  # the program's own parallel regions.
  # shellcheck disable=SC2086  # the flags are meant to be split into words
  (cd "$scratch" && "$fc" -fopenmp -DLIKWID_PERFMON -Wall -Werror -o prog prog.f90 $flags) ||
    fail "compiling with pkg-config td-likwid ($flags) failed"
  if ldd "$scratch/prog" | grep -q liblikwid; then ldd "$scratch/prog" >&2; fail "the program loads liblikwid"; fi
  loads_from "td-likwid-fortran" "$scratch/prog" libtd_compat "$prefix/$libdir"
  run "td-likwid-fortran" "$scratch/out" 0 env OMP_NUM_THREADS=2 TD_OUTPUT=none TD_JSON=1 "$scratch/prog"
  grep -q '^likwid_fortran_linked done$' "$scratch/out.stdout" || fail "td-likwid-fortran: the program's output is missing"
  lines "td-likwid-fortran" "get:" "$scratch/out.stdout" \
    $'get: serial count=4 time_positive=T\nget: inner after reset count=0\nget: inner count=1'
  json=$(one_json "$scratch/out")
  "$python" "$check_counts" "$json" pwork=3x2 serial=5 serial/inner=1 || fail "td-likwid-fortran: wrong counts"
  "$python" "$check_get" "$json" "$scratch/out.stdout" --exclusive serial ||
    fail "td-likwid-fortran: GET's answers differ from td's JSON"
  echo "td's Fortran module likwid: built against td alone (no liblikwid), exact counts per thread, GET and RESET"
  ;;
cxx)
  likwid=$1 hl=$2
  [ -n "$(ldd "$likwid" | grep liblikwid)" ] || fail "$likwid is not linked with liblikwid"
  [ -n "$(ldd "$hl" | grep libpapi)" ] || fail "$hl is not linked with libpapi"
  cxx_likwid_counts=(cxx_main=1 cxx_main/serial=5 thread_work=7)
  cxx_likwid_get=$'get: thread 0 count=3 thread 1 count=4\nget: main thread thread_work count=0'
  cxx_papi_counts=(cxx_main=1 cxx_main/phase=2 cxx_main/phase/PAPI_hl_read=2 worker=4x2)
  run "real LIKWID, C++" "$scratch/real-likwid" 5 "$likwid"
  run "LD_PRELOAD, LIKWID C++" "$scratch/td-likwid" 5 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" "$likwid"
  same_output "LD_PRELOAD, LIKWID C++" "get" "$scratch/real-likwid.stdout" "$scratch/td-likwid.stdout"
  lines "LD_PRELOAD, LIKWID C++" "get:" "$scratch/td-likwid.stdout" "$cxx_likwid_get"
  json=$(one_json "$scratch/td-likwid")
  "$python" "$check_counts" "$json" "${cxx_likwid_counts[@]}" || fail "LD_PRELOAD, LIKWID C++: wrong counts"
  "$python" - "$json" <<'PY' || fail "LD_PRELOAD, LIKWID C++: thread_work is not 3 and 4 calls on two threads"
import json, sys
run = json.load(open(sys.argv[1]))
calls = sorted(t["calls"] for r in run["regions"] if r["path"] == "thread_work" for t in r["threads"])
assert calls == [3, 4], calls
PY
  "$python" "$check_get" "$json" "$scratch/td-likwid.stdout" || fail "LD_PRELOAD, LIKWID C++: GET differs from td's JSON"
  run "td run (LIKWID C++)" "$scratch/run-likwid" 5 "$td_cli" run --out "$scratch/run-likwid/likwid.json" -- "$likwid"
  in_stderr "td run (LIKWID C++)" "$scratch/run-likwid.stderr" "is linked with liblikwid.so"
  in_stderr "td run (LIKWID C++)" "$scratch/run-likwid.stderr" "exited with status 5"
  grep -q '^likwid_cxx done$' "$scratch/run-likwid.stdout" || fail "td run (LIKWID C++): the program's output is missing"
  lines "td run (LIKWID C++)" "get:" "$scratch/run-likwid.stdout" "$cxx_likwid_get"
  "$python" "$check_counts" "$scratch/run-likwid/likwid.json" "${cxx_likwid_counts[@]}" ||
    fail "td run (LIKWID C++): wrong counts"
  echo "LIKWID from C++ (scope guard, std::thread): exit status and output unchanged, exact counts, GET per thread"

  run "real PAPI, C++" "$scratch/real-papi" 6 "$hl"
  run "LD_PRELOAD, PAPI C++" "$scratch/td-papi" 6 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" "$hl"
  same_output "LD_PRELOAD, PAPI C++" "rc:" "$scratch/real-papi.stdout" "$scratch/td-papi.stdout"
  lines "LD_PRELOAD, PAPI C++" "rc:" "$scratch/td-papi.stdout" "rc: 24 calls, 0 not PAPI_OK"
  "$python" "$check_counts" "$(one_json "$scratch/td-papi")" "${cxx_papi_counts[@]}" ||
    fail "LD_PRELOAD, PAPI C++: wrong counts"
  run "td run (PAPI C++)" "$scratch/run-papi" 6 "$td_cli" run --out "$scratch/run-papi/papi.json" -- "$hl"
  in_stderr "td run (PAPI C++)" "$scratch/run-papi.stderr" "is linked with libpapi.so"
  in_stderr "td run (PAPI C++)" "$scratch/run-papi.stderr" "exited with status 6"
  grep -q '^papi_hl_cxx done$' "$scratch/run-papi.stdout" || fail "td run (PAPI C++): the program's output is missing"
  lines "td run (PAPI C++)" "rc:" "$scratch/run-papi.stdout" "rc: 24 calls, 0 not PAPI_OK"
  "$python" "$check_counts" "$scratch/run-papi/papi.json" "${cxx_papi_counts[@]}" || fail "td run (PAPI C++): wrong counts"
  echo "PAPI high-level from C++ (scope guard, std::thread): exit status and output unchanged, exact counts"
  ;;
mpi)
  source_file=$1
  shift
  mpicc=$(command -v mpicc || true)
  mpirun=$(command -v mpirun || true)
  [ -n "$mpicc" ] || { echo "SKIPPED: mpicc not found (Debian: libopenmpi-dev)"; exit 77; }
  [ -n "$mpirun" ] || { echo "SKIPPED: mpirun not found (Debian: openmpi-bin)"; exit 77; }
  # Open MPI's mpicc comes with openmpi-bin; mpi.h with libopenmpi-dev.
  printf '#include <mpi.h>\nint main(int argc, char** argv) { MPI_Init(&argc, &argv); return MPI_Finalize(); }\n' \
    >"$scratch/probe.c"
  if ! "$mpicc" -o "$scratch/probe" "$scratch/probe.c" >"$scratch/probe.log" 2>&1; then
    echo "SKIPPED: $mpicc cannot build an MPI program here ($(grep -m1 -i error "$scratch/probe.log" || true);" \
      "Debian: libopenmpi-dev)"
    exit 77
  fi
  cp "$source_file" "$scratch/mpi_markers.c"
  "$mpicc" -DLIKWID_PERFMON -Wall -o "$scratch/mpi_markers" "$scratch/mpi_markers.c" "$@" ||
    fail "mpicc of $source_file failed"
  [ -n "$(ldd "$scratch/mpi_markers" | grep liblikwid)" ] || fail "the MPI program is not linked with liblikwid"
  flags=(--oversubscribe)
  export TMPDIR="$scratch"  # Open MPI's session directory: this test's own (see tests/mpi)
  [ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
  mkdir -p "$scratch/job"
  status=0
  (cd "$scratch/job" && "$mpirun" "${flags[@]}" -np 2 -x LD_PRELOAD="$compat" -x TD_OUTPUT=none -x TD_JSON=1 \
    -x TD_OUTPUT_DIR="$scratch/job" "$scratch/mpi_markers") >"$scratch/job.stdout" 2>"$scratch/job.stderr" || status=$?
  [ "$status" -eq 0 ] || { cat "$scratch/job.stdout" "$scratch/job.stderr" >&2; fail "mpirun: exit status $status"; }
  [ "$(grep -c '^rank [01] done$' "$scratch/job.stdout")" -eq 2 ] || fail "mpirun: the ranks' output is missing"
  for rank in 0 1; do
    files=("$scratch"/job/td-mpi_markers-*rank"$rank".json)
    [ ${#files[@]} -eq 1 ] && [ -f "${files[0]}" ] ||
      fail "expected one JSON of rank $rank, found: $(ls "$scratch/job")"
    "$python" "$check_counts" "${files[0]}" compute=$((rank + 2)) exchange=2 exchange/allreduce=2 ||
      fail "rank $rank: wrong counts"
    "$python" - "${files[0]}" "$rank" <<'PY' || fail "rank $rank: the JSON does not name its rank"
import json, sys
run = json.load(open(sys.argv[1]))
assert run["mpi"]["rank"] == int(sys.argv[2]) and run["mpi"]["size"] == 2, run["mpi"]
PY
  done
  echo "MPI job of 2 ranks, LIKWID and PAPI markers preloaded: one JSON per rank with its exact counts"
  ;;
events)
  hl=$1
  run "PAPI_EVENTS" "$scratch/papi" 4 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" \
    PAPI_EVENTS="perf::TASK-CLOCK,PAPI_FP_OPS" "$hl"
  in_stderr "PAPI_EVENTS" "$scratch/papi.stderr" \
    "td: counting TD_EVENTS=task-clock for PAPI_EVENTS; ignored (no td equivalent): PAPI_EVENTS PAPI_FP_OPS"
  "$python" "$check_counts" "$(one_json "$scratch/papi")" "${papi_counts[@]}" || fail "PAPI_EVENTS: wrong counts"
  run "LIKWID_EVENTS" "$scratch/likwid" 4 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" \
    LIKWID_EVENTS="PERF_COUNT_HW_X:PMC0|FLOPS_DP" PAPI_EVENTS= "$hl"
  in_stderr "LIKWID_EVENTS" "$scratch/likwid.stderr" \
    "td: ignored (no td equivalent): LIKWID_EVENTS PERF_COUNT_HW_X:PMC0, LIKWID_EVENTS FLOPS_DP"
  run "TD_EVENTS wins" "$scratch/both" 4 env TD_OUTPUT=none TD_JSON=1 LD_PRELOAD="$compat" \
    PAPI_EVENTS="PAPI_TOT_INS" TD_EVENTS=task-clock "$hl"
  in_stderr "TD_EVENTS wins" "$scratch/both.stderr" "td: PAPI_EVENTS is ignored: TD_EVENTS=task-clock is set"
  echo "PAPI_EVENTS / LIKWID_EVENTS: translated where td has the event, the rest named on one line"
  ;;
*) fail "unknown mode $mode" ;;
esac

#!/usr/bin/env bash
# libtd-mpi from an installed td, as README ("Use td from your project") and
# docs/hpc.md#one-file-per-job describe it: `cmake --install` of this build
# into a scratch prefix must put there libtd-mpi, its CMake target td::mpi and
# td-mpi.pc; an MPI program copied out of the tree (mpi_consumer/) is built
# with `pkg-config --cflags --libs td-mpi` and with find_package(td COMPONENTS
# mpi) + td::mpi, and, linked with libtd alone, run under the installed
# `td run`, which must preload the installed libtd-mpi. Each runs as a job of
# two ranks and must leave one job file with the exact calls of each rank.
#
# Usage: install_mpi.sh BUILD_DIR TESTS_DIR MPICC MPIRUN LIBTD_MPI
# Exits 77 (skipped), saying why, where mpicc, mpirun or libtd-mpi is missing.
set -euo pipefail
test_name=install_mpi
build=$(cd "$1" && pwd)
tests=$(cd "$2" && pwd)
mpicc=$3 mpirun=$4 built_libtdmpi=$5
skip() { echo "$test_name: skipped: $*"; exit 77; }
[ -z "${TD_MPI_TEST_SKIP:-}" ] || skip "$TD_MPI_TEST_SKIP"
[ -n "$mpicc" ] && [ -x "$mpicc" ] || skip "mpicc not found (Debian: libopenmpi-dev)"
[ -n "$mpirun" ] && [ -x "$mpirun" ] || skip "mpirun not found (Debian: openmpi-bin)"
[ "$built_libtdmpi" != none ] && [ -f "$built_libtdmpi" ] || skip "libtd-mpi was not built (CMake found no MPI)"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=../bindings/common.sh
. "$tests/bindings/common.sh"

libdir=$(cache_value CMAKE_INSTALL_LIBDIR)
case $libdir in /*) skip "the build installs to the absolute $libdir: not installed here" ;; esac
prefix="$scratch/prefix"
install_build "$prefix"
lib="$prefix/$libdir"
bin="$prefix/$(cache_value CMAKE_INSTALL_BINDIR)"

# 1. What the install step put there.
for file in libtd-mpi.so libtd-mpi.so.0 pkgconfig/td-mpi.pc cmake/td/tdTargets.cmake; do
  [ -e "$lib/$file" ] || fail "no $file in $lib"
done
grep -q 'add_library(td::mpi SHARED IMPORTED)' "$lib/cmake/td/tdTargets.cmake" ||
  fail "the installed CMake package has no td::mpi"
echo "installed: libtd-mpi.so*, td-mpi.pc, td::mpi in $lib"

flags=(--oversubscribe)
# Open MPI keeps its session directory under TMPDIR: one per test, so that
# concurrent tests never remove the directory another mpirun is creating in.
export TMPDIR="$scratch"
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)

# job WHAT PROGRAM [LAUNCHER…]: runs PROGRAM as two ranks, then checks that
# they wrote one job file between them, rank r with r + 3 calls.
job() {
  local what=$1 program=$2
  shift 2
  local out="$scratch/run-$RANDOM$RANDOM"
  mkdir "$out"
  (cd "$out" && "$mpirun" "${flags[@]}" -np 2 -x TD_OUTPUT_DIR="$out" "$@" "$program") \
    >"$out.stdout" 2>"$out.stderr" || { cat "$out.stdout" "$out.stderr" >&2; fail "$what: mpirun failed"; }
  [ "$(grep -c ' done$' "$out.stdout")" -eq 2 ] || { cat "$out.stdout" >&2; fail "$what: the program's output"; }
  local files=("$out"/*)
  [ ${#files[@]} -eq 1 ] && [[ ${files[0]} == */td-consumer_*-job.json ]] ||
    { cat "$out.stderr" >&2; fail "$what: expected one job file, found: $(ls "$out")"; }
  python3 - "$what" "${files[0]}" <<'PY' || exit 1
import json, sys
what, path = sys.argv[1], sys.argv[2]
job = json.load(open(path))
present = [r for a, b in job["ranks_present"] for r in range(a, b + 1)]
region = next((r for r in job["regions"] if r["path"] == "consumer_work"), None)
rows = {row[0]: row[1] for row in region["ranks"]} if region else None
if job["size"] != 2 or present != [0, 1] or rows != {0: 3, 1: 4}:
    sys.exit(f"install_mpi: {what}: job file {path}: size {job['size']}, ranks {present}, "
             f"consumer_work calls per rank {rows}; expected 2, [0, 1], {{0: 3, 1: 4}}")
PY
  echo "$what: two ranks, one job file, consumer_work calls 3 and 4"
  last_stderr="$out.stderr"
}

# 2. pkg-config td-mpi.
cp -r "$tests/install/mpi_consumer" "$scratch/src"
pc=$(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs td-mpi) || fail "pkg-config td-mpi failed"
# shellcheck disable=SC2086  # pkg-config's output is meant to be split into words
"$mpicc" -Wall -Werror -o "$scratch/consumer_pc" "$scratch/src/main.c" $pc ||
  fail "compiling with pkg-config td-mpi ($pc) failed"
loads_from "pkg-config td-mpi" "$scratch/consumer_pc" libtd-mpi "$lib"
loads_from "pkg-config td-mpi" "$scratch/consumer_pc" libtd "$lib"
job "pkg-config td-mpi" "$scratch/consumer_pc"

# 3. CMake: find_package(td CONFIG REQUIRED COMPONENTS mpi), td::mpi.
cmake -S "$scratch/src" -B "$scratch/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_C_COMPILER="$(cache_value CMAKE_C_COMPILER)" >"$scratch/cmake.log" 2>&1 ||
  { cat "$scratch/cmake.log" >&2; fail "CMake: configure failed"; }
cmake --build "$scratch/cmake-build" >>"$scratch/cmake.log" 2>&1 ||
  { cat "$scratch/cmake.log" >&2; fail "CMake: build failed"; }
loads_from "CMake td::mpi" "$scratch/cmake-build/consumer_mpi" libtd-mpi "$lib"
job "CMake td::mpi" "$scratch/cmake-build/consumer_mpi"

# 4. The installed td run on a program linked with libtd alone: it preloads
# the libtd-mpi installed beside it (not the build tree's).
# shellcheck disable=SC2046  # pkg-config's output is meant to be split into words
"$mpicc" -Wall -Werror -o "$scratch/consumer_td" "$scratch/src/main.c" \
  $(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs td) || fail "compiling with pkg-config td failed"
ldd "$scratch/consumer_td" | grep -q libtd-mpi && fail "td run: the program must not be linked with libtd-mpi"
job "installed td run" "$scratch/consumer_td" "$bin/td" run --
said=$(sed -n 's/^td run: .*: preloading \([^ ]*\) and \([^ ]*\) (.*/\1 \2/p' "$last_stderr")
[ "$(echo "$said" | wc -w)" -eq 2 ] || { cat "$last_stderr" >&2; fail "td run: no preload line"; }
for preloaded in $said; do
  [ "$(realpath "$(dirname "$preloaded")")" = "$(realpath "$lib")" ] ||
    fail "the installed td run preloads $preloaded, expected it from $lib"
done
echo "installed td run: preloads $said"

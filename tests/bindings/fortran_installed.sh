#!/usr/bin/env bash
# The Fortran binding as the README describes it, from an installed td: a
# program written outside td's tree (fortran_consumer/, copied out) is built
# with `pkg-config --cflags --libs td-fortran` and with CMake's td::fortran,
# runs nested regions, loops, a blank-padded name, a name variable whose
# contents change, a sweep over integer kinds and an OpenMP parallel region;
# its JSON must hold the exact calls per region and per thread. With the
# Python binding built, td.load() must agree with `td report --json` on it.
#
# Usage: fortran_installed.sh BUILD_DIR TESTS_DIR PYTHON
set -euo pipefail
test_name=fortran_installed
build=$(cd "$1" && pwd)
here=$(cd "$2" && pwd)
python=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=common.sh
. "$here/common.sh"

libdir=$(cache_value CMAKE_INSTALL_LIBDIR)
case $libdir in /*) echo "the build installs to the absolute $libdir: not installed here"; exit 0 ;; esac
prefix="$scratch/prefix"
install_build "$prefix"
fc=$(cache_value CMAKE_Fortran_COMPILER)
openmp=$(cache_value OpenMP_Fortran_FLAGS)
[ -n "$openmp" ] || openmp=-fopenmp
cp -r "$here/fortran_consumer" "$scratch/src"
expected=(outer=1 outer/middle=3 outer/middle/inner=12 outer/loop_body=1000 outer/padded=5
          outer/dyn0=2 outer/dyn1=3 "outer/sweep[1]=1" "outer/sweep[2]=2" "outer/sweep[3]=3"
          "outer/sweep[4]=4" omp_work=10x2)
export OMP_DYNAMIC=false
unset OMP_NUM_THREADS OMP_THREAD_LIMIT

# 1. pkg-config
pc_dir="$prefix/$libdir/pkgconfig"
[ -f "$pc_dir/td-fortran.pc" ] || fail "no td-fortran.pc in $pc_dir"
flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs td-fortran) || fail "pkg-config td-fortran failed"
# shellcheck disable=SC2086  # the flags are meant to be split into words
"$fc" $openmp -Wall -Werror -o "$scratch/consumer_pc" "$scratch/src/consumer.f90" $flags ||
  fail "compiling with pkg-config td-fortran ($flags) failed"
loads_from "pkg-config" "$scratch/consumer_pc" libtd_fortran "$prefix/$libdir"
loads_from "pkg-config" "$scratch/consumer_pc" libtd "$prefix/$libdir"
json_pc=$(run_recorded "pkg-config" "$scratch/out-pc" "$scratch/consumer_pc")
"$python" "$here/check_counts.py" "$json_pc" "${expected[@]}" || fail "pkg-config: wrong counts"
"$python" -c 'import json, sys
every = {r["path"]: r.get("sample_every", 0) for r in json.load(open(sys.argv[1]))["regions"]}
assert every["outer/loop_body"] == 10, every' "$json_pc" || fail "td_region_sample did not set loop_body's interval"
echo "pkg-config td-fortran: built, ran, exact counts in its JSON"

# 2. CMake: find_package(td CONFIG REQUIRED COMPONENTS fortran), td::fortran
cmake -S "$scratch/src" -B "$scratch/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_Fortran_COMPILER="$fc" >"$scratch/cmake.log" 2>&1 || { cat "$scratch/cmake.log" >&2; fail "CMake: configure failed"; }
cmake --build "$scratch/cmake-build" >>"$scratch/cmake.log" 2>&1 || { cat "$scratch/cmake.log" >&2; fail "CMake: build failed"; }
loads_from "CMake" "$scratch/cmake-build/consumer_fortran" libtd_fortran "$prefix/$libdir"
json_cmake=$(run_recorded "CMake" "$scratch/out-cmake" "$scratch/cmake-build/consumer_fortran")
"$python" "$here/check_counts.py" "$json_cmake" "${expected[@]}" || fail "CMake: wrong counts"
echo "CMake td::fortran: built, ran, exact counts in its JSON"

# The warnings: none expected from this program beyond td's notices.
if grep -v '^td: \(hardware counters unavailable\|wrote\)' "$scratch/out-cmake.stderr" | grep -q .; then
  cat "$scratch/out-cmake.stderr" >&2
  fail "unexpected output on stderr"
fi

# 3. td.load() on the Fortran run, when the Python binding is installed.
pydir=$(cache_value TD_PYTHON_INSTALL_DIR)
if [ -n "$pydir" ] && [ -d "$(under "$prefix" "$pydir")/td" ]; then
  PYTHONPATH="$(under "$prefix" "$pydir")" "$python" "$here/python_load_check.py" \
    "$prefix/$(cache_value CMAKE_INSTALL_BINDIR)/td" "$json_cmake" || fail "td.load() disagrees"
fi

#!/usr/bin/env bash
# Uses td from outside its build the ways the README ("Use td from your
# project") describes, and checks each one end to end:
#   - installed with the build's own libdir: a consumer through CMake's
#     find_package and one through pkg-config;
#   - the same with a multiarch libdir (lib/x86_64-linux-gnu);
#   - pkg-config with an absolute libdir (td.pc cannot find the prefix from
#     where it lies then, so the prefix is written in at install time);
#   - the build tree itself, through CMAKE_PREFIX_PATH and through td_DIR.
# Every consumer runs; its JSON report must hold its region with the exact
# number of calls, and it must have loaded libtd from where it was pointed.
#
# The other libdirs need their own configure of td (install rules and package
# files are generated per libdir), but not a second compile: the built files
# do not depend on the libdir, so this build's library and CLI are copied
# into the scratch build tree at the places its install rules read them from.
#
# Usage: install_and_consume.sh BUILD_DIR CONSUMER_SOURCE_DIR LIBDIR BUILT_FILE...
#   LIBDIR      the build's CMAKE_INSTALL_LIBDIR
#   BUILT_FILE  every file the install rules copy (library, its links, CLI)
set -euo pipefail
build=$(cd "$1" && pwd)
consumer=$2
own_libdir=$3
shift 3
built_files=("$@")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail() {
  echo "install_and_consume: $*" >&2
  exit 1
}

cache_value() {  # NAME: the build's cached value of NAME, empty if unset
  sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -n 1
}

# run_consumer WHAT PROGRAM REGION CALLS LIBDIR: runs PROGRAM, then checks its
# report and which libtd it loaded.
run_consumer() {
  local what=$1 program=$2 region=$3 calls=$4 libdir=$5
  local out="$scratch/out-$RANDOM$RANDOM"
  mkdir "$out"
  (cd "$out" && TD_OUTPUT=none TD_JSON=1 TD_OUTPUT_DIR="$out" "$program") >"$out.log" 2>&1 ||
    { cat "$out.log" >&2; fail "$what: $program failed"; }
  python3 - "$what" "$out" "$region" "$calls" <<'PY' || exit 1
import glob, json, sys
what, out, region, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
reports = glob.glob(out + "/td-*.json")
if len(reports) != 1:
    sys.exit(f"install_and_consume: {what}: expected one JSON report in {out}, found {len(reports)}")
regions = [r for r in json.load(open(reports[0]))["regions"] if r["name"] == region]
got = sum(t["calls"] for r in regions for t in r["threads"])
if got != calls:
    sys.exit(f"install_and_consume: {what}: region {region} has {got} calls in {reports[0]}, expected {calls}")
PY
  local loaded
  loaded=$(ldd "$program" | sed -n 's/^[[:space:]]*libtd\.so[^ ]* => \([^ ]*\) .*/\1/p')
  [ -n "$loaded" ] || fail "$what: $program does not load libtd"
  [ "$(realpath "$(dirname "$loaded")")" = "$(realpath "$libdir")" ] ||
    fail "$what: $program loads $loaded, expected it from $libdir"
  echo "$what: built, ran, $calls calls of $region in its report, libtd from $libdir"
}

# cmake_consumer WHAT LIBDIR CMAKE_ARGS...: builds and runs the C++ consumer.
cmake_consumer() {
  local what=$1 libdir=$2
  shift 2
  local dir="$scratch/consumer-$RANDOM$RANDOM"
  cmake -S "$consumer" -B "$dir" "$@" >"$dir.log" 2>&1 || { cat "$dir.log" >&2; fail "$what: configure failed"; }
  cmake --build "$dir" >>"$dir.log" 2>&1 || { cat "$dir.log" >&2; fail "$what: build failed"; }
  run_consumer "$what" "$dir/consumer_cpp" consumer_loop 3 "$libdir"
}

# pkgconfig_consumer WHAT PC_DIR LIBDIR INCLUDEDIR: builds and runs the C
# consumer with the td.pc in PC_DIR, after checking the directories it names.
pkgconfig_consumer() {
  local what=$1 pc_dir=$2 libdir=$3 includedir=$4
  [ -f "$pc_dir/td.pc" ] || fail "$what: no td.pc in $pc_dir"
  local var want got
  for var in libdir includedir; do
    if [ $var = libdir ]; then want=$libdir; else want=$includedir; fi
    got=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --variable=$var td)
    [ "$(realpath -m "$got")" = "$(realpath -m "$want")" ] || fail "$what: td.pc gives $var=$got, expected $want"
  done
  local program="$scratch/consumer_c-$RANDOM$RANDOM"
  # shellcheck disable=SC2046  # pkg-config's output is meant to be split into words
  cc -std=c99 -Wall -Wextra -Werror -o "$program" "$consumer/main.c" \
    $(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs td) || fail "$what: compiling against td.pc failed"
  run_consumer "$what" "$program" pkgconfig_region 4 "$libdir"
}

# configure_layout DIR LIBDIR: td configured into DIR with another libdir,
# the built files copied in so that its install rules find them.
configure_layout() {
  local dir=$1 libdir=$2
  # The bindings and tdsim are left out: their files are not among those copied in, and
  # tests/bindings checks the bindings installed.
  local args=(-DCMAKE_INSTALL_LIBDIR="$libdir"
              -DTD_BUILD_TESTS=OFF -DTD_BUILD_SAMPLES=OFF -DTD_BUILD_BENCHMARKS=OFF
              -DTD_BUILD_FORTRAN=OFF -DTD_BUILD_PYTHON=OFF -DTD_BUILD_COMPAT=OFF -DTD_BUILD_MPI=OFF
              -DTD_BUILD_TDSIM=OFF)
  local name value
  # Same generator, build type and dependencies as the build, so the output
  # paths and the exported configuration match the files copied in.
  for name in CMAKE_BUILD_TYPE CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_PREFIX_PATH \
              absl_DIR nlohmann_json_DIR PFM_LIBRARY PAPI_LIBRARY PFM_INCLUDE_DIR PAPI_INCLUDE_DIR; do
    value=$(cache_value "$name")
    if [ -n "$value" ]; then args+=("-D$name=$value"); fi
  done
  cmake -S "$(cache_value CMAKE_HOME_DIRECTORY)" -B "$dir" -G "$(cache_value CMAKE_GENERATOR)" "${args[@]}" \
    >"$dir.log" 2>&1 || { cat "$dir.log" >&2; fail "configuring td with libdir $libdir failed"; }
  local file rel
  for file in "${built_files[@]}"; do
    rel=${file#"$build"/}
    [ "$rel" != "$file" ] || fail "$file is not inside $build"
    mkdir -p "$dir/$(dirname "$rel")"
    cp -P "$file" "$dir/$rel"
  done
}

install_tree() {  # BUILD PREFIX
  cmake --install "$1" --prefix "$2" >"$2.log" 2>&1 || { cat "$2.log" >&2; fail "cmake --install $1 failed"; }
}

# 1. The build's own layout, unless it names absolute directories: installing
# would then write outside the scratch prefix.
own_absolute=
for dir in "$own_libdir" "$(cache_value CMAKE_INSTALL_BINDIR)" "$(cache_value CMAKE_INSTALL_INCLUDEDIR)"; do
  case $dir in /*) own_absolute=$dir ;; esac
done
if [ -n "$own_absolute" ]; then
  echo "the build installs to the absolute $own_absolute: its own layout is not installed here"
else
  prefix="$scratch/own"
  install_tree "$build" "$prefix"
  cmake_consumer "installed (libdir $own_libdir), find_package(td)" "$prefix/$own_libdir" \
    -DCMAKE_PREFIX_PATH="$prefix"
  pkgconfig_consumer "installed (libdir $own_libdir), pkg-config td" "$prefix/$own_libdir/pkgconfig" \
    "$prefix/$own_libdir" "$prefix/$(cache_value CMAKE_INSTALL_INCLUDEDIR)"
fi

# 2. Multiarch, as Debian and Ubuntu lay out /usr.
multiarch=lib/x86_64-linux-gnu
configure_layout "$scratch/build-multiarch" "$multiarch"
prefix="$scratch/multiarch"
install_tree "$scratch/build-multiarch" "$prefix"
cmake_consumer "installed (libdir $multiarch), find_package(td)" "$prefix/$multiarch" \
  -DCMAKE_PREFIX_PATH="$prefix"
pkgconfig_consumer "installed (libdir $multiarch), pkg-config td" "$prefix/$multiarch/pkgconfig" \
  "$prefix/$multiarch" "$prefix/include"
# Moved after installing: td.pc finds the prefix from where it lies.
mv "$prefix" "$scratch/moved"
prefix="$scratch/moved"
pkgconfig_consumer "installed (libdir $multiarch), moved, pkg-config td" "$prefix/$multiarch/pkgconfig" \
  "$prefix/$multiarch" "$prefix/include"

# 3. An absolute libdir outside the prefix given to `cmake --install`.
absolute="$scratch/elsewhere/lib64"
configure_layout "$scratch/build-absolute" "$absolute"
prefix="$scratch/absolute"
install_tree "$scratch/build-absolute" "$prefix"
pkgconfig_consumer "installed (libdir $absolute), pkg-config td" "$absolute/pkgconfig" "$absolute" "$prefix/include"

# 4. The build tree, no install.
library_dir=$(dirname "${built_files[0]}")
cmake_consumer "build tree, CMAKE_PREFIX_PATH" "$library_dir" -DCMAKE_PREFIX_PATH="$build"
cmake_consumer "build tree, td_DIR" "$library_dir" -Dtd_DIR="$build"

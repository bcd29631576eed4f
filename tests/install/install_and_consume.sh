#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds and runs a small
# outside program against it twice: through CMake's find_package and through
# pkg-config. Usage: install_and_consume.sh BUILD_DIR CONSUMER_SOURCE_DIR
set -euo pipefail
build=$1
consumer=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null

cmake -S "$consumer" -B "$scratch/cmake-build" -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/cmake-build" >/dev/null
(cd "$scratch" && TD_OUTPUT=none TD_OUTPUT_DIR="$scratch" "$scratch/cmake-build/consumer_cpp")
grep -q '"consumer_loop"' "$scratch"/td-consumer_cpp-*.json
echo "find_package(td): built, ran, and wrote its report"

export PKG_CONFIG_PATH="$scratch/prefix/lib/pkgconfig:$scratch/prefix/lib/x86_64-linux-gnu/pkgconfig"
cc -std=c99 -o "$scratch/consumer_c" "$consumer/main.c" $(pkg-config --cflags --libs td)
(cd "$scratch" && TD_OUTPUT=none TD_OUTPUT_DIR="$scratch" "$scratch/consumer_c")
grep -q '"pkgconfig_region"' "$scratch"/td-consumer_c-*.json
echo "pkg-config td: built, ran, and wrote its report"

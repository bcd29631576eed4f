#!/usr/bin/env bash
# The whole test suite: plain build, ASan+UBSan build, the threading tests
# under TSan, and a short libFuzzer run of the formula parser and definition
# loader. Usage: scripts/test.sh [plain|asan|tsan|fuzz ...] (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=(plain asan tsan fuzz)

run_suite() {  # name, cmake args, ctest args
  local name=$1 cmake_args=$2 ctest_args=$3
  echo "== $name build =="
  cmake -S . -B "build-$name" -G Ninja $cmake_args >/dev/null
  cmake --build "build-$name" -j "$jobs"
  echo "== $name tests =="
  (cd "build-$name" && ctest --output-on-failure -j "$jobs" $ctest_args)
}

for mode in "${modes[@]}"; do
  case $mode in
    plain) run_suite plain "-DCMAKE_BUILD_TYPE=RelWithDebInfo" "" ;;
    asan)
      # The install test builds an uninstrumented consumer, so it runs in plain only.
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        run_suite asan "-DCMAKE_BUILD_TYPE=Debug -DTD_SANITIZE=address,undefined -DTD_BUILD_BENCHMARKS=OFF" \
        "-LE install" ;;
    tsan)
      # libgomp is not built with TSan, so the OpenMP scenario is left to the other modes.
      TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
        run_suite tsan "-DCMAKE_BUILD_TYPE=Debug -DTD_SANITIZE=thread -DTD_BUILD_BENCHMARKS=OFF -DTD_BUILD_SAMPLES=OFF" \
        "-L scenario|unit -E OpenMp" ;;
    fuzz)
      # libFuzzer needs clang; each target runs briefly from its seed corpus.
      echo "== fuzz build =="
      CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug \
        -DTD_SANITIZE=fuzzer-no-link,address,undefined -DTD_BUILD_FUZZERS=ON \
        -DTD_BUILD_TESTS=OFF -DTD_BUILD_SAMPLES=OFF -DTD_BUILD_BENCHMARKS=OFF >/dev/null
      cmake --build build-fuzz -j "$jobs" --target td_expression_fuzzer td_definitions_fuzzer
      for target in expression definitions; do
        echo "== fuzz $target (${TD_FUZZ_SECONDS:-20} s) =="
        corpus=$(mktemp -d)
        cp tests/fuzz/corpus/$target/* "$corpus"/
        ./build-fuzz/tests/fuzz/td_${target}_fuzzer -max_total_time="${TD_FUZZ_SECONDS:-20}" \
          -max_len=4096 "$corpus" 2>&1 | tail -n 1
        rm -rf "$corpus"
      done ;;
    *) echo "unknown mode $mode (plain, asan, tsan, fuzz)" >&2; exit 2 ;;
  esac
done

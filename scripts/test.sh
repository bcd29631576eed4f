#!/usr/bin/env bash
# The README's second command: the whole test suite, in four stages.
#   plain  optimised build in build/ (shared with scripts/demo.sh): every test
#   asan   AddressSanitizer + UndefinedBehaviorSanitizer, clang at -O1: every
#          test but those that run nothing of td's own code the plain stage does
#          not already run (install, preload, html; see asan_skip below); the
#          same build holds the fuzz targets
#   tsan   ThreadSanitizer: only the tests labelled `threading`
#   fuzz   each libFuzzer target for TD_FUZZ_SECONDS (default 3) from its seeds,
#          with libFuzzer seed TD_FUZZ_SEED (default 1; 0 = a random one), then
#          once on large inputs; the long runs are docs/fuzzing.md's command
# Each GoogleTest program runs as a few shard processes (TD_TEST_SHARDS in
# tests/CMakeLists.txt), not one process per case. Every stage runs even when
# an earlier one failed; a table at the end says, per stage, how many tests
# (shards and scripts) ran, passed, failed and were skipped, and how long the
# stage took; each stage's line and the total also count the GoogleTest cases
# inside the shards. The exit status is non-zero when any stage failed.
# Usage: scripts/test.sh [plain|asan|tsan|fuzz ...]   (default: all four)
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || exit 1

jobs=$(nproc)
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(plain asan tsan fuzz)
logs=build-logs
mkdir -p "$logs"
source scripts/ccache.sh

# Sanitizer builds use clang so that one instrumented build serves both the
# test suite and the fuzz targets (libFuzzer is clang's). -O1, not Debug's -O0:
# the sanitizers' checks are the same and the tests run several times faster
# (assertions stay on: the build type is still Debug).
asan_args=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug
           "-DCMAKE_C_FLAGS_DEBUG=-g -O1" "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1"
           -DTD_SANITIZE=fuzzer-no-link,address,undefined -DTD_BUILD_FUZZERS=ON -DTD_BUILD_BENCHMARKS=OFF)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:exitcode=66

declare -A ran passed failed skipped seconds note cases_passed cases_skipped cases_failed
failures=0

configure() {  # stage, build dir, cmake args…
  local stage=$1 dir=$2
  shift 2
  cmake -S . -B "$dir" -G Ninja "${launcher[@]}" "$@" >"$logs/$stage-configure.log" 2>&1 || {
    tail -n 30 "$logs/$stage-configure.log"
    note[$stage]="configure failed (see $logs/$stage-configure.log)"
    return 1
  }
}

build() {  # stage, build dir, targets…
  local stage=$1 dir=$2
  shift 2
  local targets=() start=$SECONDS
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$dir" -j "$jobs" "${targets[@]}" >"$logs/$stage-build.log" 2>&1 || {
    grep -E 'error|Error' "$logs/$stage-build.log" | head -n 30
    note[$stage]="build failed (see $logs/$stage-build.log)"
    return 1
  }
  echo "$stage: built in $((SECONDS - start)) s"
}

# Runs ctest and fills the counters for the stage from its summary lines.
run_ctest() {  # stage, build dir, ctest args…
  local stage=$1 dir=$2
  shift 2
  local log="$logs/$stage-ctest.log"
  # -V: every test's output goes to the log, where the GoogleTest cases a
  # shard ran are counted.
  (cd "$dir" && ctest -V -j "$jobs" "$@") >"$log" 2>&1
  local status=$?
  local total fail skip
  total=$(sed -n 's/.*tests passed, [0-9]* tests\{0,1\} failed out of \([0-9]*\).*/\1/p' "$log" | tail -n 1)
  fail=$(sed -n 's/.*tests passed, \([0-9]*\) tests\{0,1\} failed out of.*/\1/p' "$log" | tail -n 1)
  skip=$(grep -c '(Skipped)$' "$log")
  total=${total:-0}
  fail=${fail:-0}
  ran[$stage]=$total
  failed[$stage]=$fail
  skipped[$stage]=$skip
  passed[$stage]=$((total - fail - skip))
  local counts inside=""
  read -r -a counts <<<"$(gtest_cases "$log")"
  if [ ${#counts[@]} -eq 3 ]; then
    cases_passed[$stage]=${counts[0]} cases_skipped[$stage]=${counts[1]} cases_failed[$stage]=${counts[2]}
    inside=", inside them $((counts[0] + counts[1] + counts[2])) GoogleTest cases: ${counts[0]} passed,"
    inside+=" ${counts[1]} skipped, ${counts[2]} failed"
  fi
  if [ "$status" -ne 0 ] || [ "$total" -eq 0 ]; then
    sed -n '/The following tests FAILED/,$p' "$log"
    grep -E '^[0-9]+: \[  FAILED  \] [^0-9]' "$log" | sort -u | head -n 30  # the cases inside a shard
    note[$stage]="see $log"
    [ "$total" -eq 0 ] && note[$stage]="no test ran (see $log)"
    return 1
  fi
  echo "$stage: ${passed[$stage]} passed, $fail failed, $skip skipped (log: $log)${inside}"
}

# What the GoogleTest programs ran inside the tests of a log, where tests are
# shards of several cases: "passed skipped failed", or nothing where no test
# of the log was a shard.
gtest_cases() {  # ctest -V log
  awk '/\[  PASSED  \] [0-9]+ tests?\./ { p += $(NF - 1) }
       /\[  SKIPPED \] [0-9]+ tests?,/ { s += $(NF - 3) }
       /\[  FAILED  \] [0-9]+ tests?,/ { f += $(NF - 3) }
       /GTEST_TOTAL_SHARDS/ { sharded = 1 }
       END { if (sharded) print p + 0, s + 0, f + 0 }' "$1"
}

stage_plain() {
  configure plain build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTD_BUILD_TESTS=ON -DTD_BUILD_BENCHMARKS=ON \
      -DTD_TEST_SHARDS=ON &&
    build plain build && run_ctest plain build
}

# Left to the plain stage (docs/design.md, "What the test command runs where"):
# install tests build uninstrumented consumers; `preload` tests load the
# instrumented libtd_compat into programs without the sanitizer runtime
# (/bin/sh); `html` tests render td's pages in Chromium (the pages come from
# the code the unit tests' HtmlReport cases run under ASan). By name
# (GoogleTest patterns, which TD_TEST_EXCLUDE leaves out of every shard): a
# test that runs `td events` once per listed event (hundreds of processes; the
# encoder itself is EventEncoder.* here). And, of the suites that check one
# importer or evaluator against perf's or the vendor's formulas on each
# microarchitecture's data, the microarchitectures that take no path of the
# code the others leave out: under ASan one of each kind runs (an Intel core
# and a hybrid part's, an Intel E-core, Arm with a CPUID-gated correction,
# AMD; a Lion Cove part with its own exceptions), the rest in plain.
asan_skip_labels='install|preload|html'
asan_skip_cases=CliEvents.ListAgreesWithEncode
for uarch in adl_glc bdw clx emr hsw icl icx ivb neoverse_v1 neoverse_v2 skl snb spr tgl zen5; do
  asan_skip_cases+=":Perf612/PerfMetricsDiff.*/$uarch"
done
asan_skip_cases+=":Perf612/ImportedMatchesPerf.*/adl_glc:Perf612/ImportedMatchesPerf.*/srf:Perf612/AmdPipeline.*/zen5"
for uarch in adl_glc adl_grt arl_lnc arl_skt clx emr grr icl icx lnl_skt mtl_rwc rkl skl skx spr tgl; do
  asan_skip_cases+=":Perfmon6dadedf/VendorMetrics.*/$uarch"
done
# The sanitizer stages run each GoogleTest program as a few shard processes
# (TD_TEST_SHARDS, tests/CMakeLists.txt): a sanitized process takes about
# 0.15 s to start and to check for leaks at exit, once per case before.
asan_args+=(-DTD_TEST_SHARDS=ON "-DTD_TEST_EXCLUDE=$asan_skip_cases")
stage_asan() {
  configure asan build-asan "${asan_args[@]}" && build asan build-asan &&
    run_ctest asan build-asan -LE "$asan_skip_labels"
}

stage_tsan() {
  # libgomp is not built with TSan, so the OpenMP scenario is left to the other stages.
  configure tsan build-tsan -DCMAKE_BUILD_TYPE=Debug -DTD_SANITIZE=thread -DTD_BUILD_BENCHMARKS=OFF \
      -DTD_BUILD_SAMPLES=OFF -DTD_TEST_SHARDS=ON "-DTD_TEST_EXCLUDE=*OpenMp*" &&
    build tsan build-tsan td_threading_suite && run_ctest tsan build-tsan -L threading
}

# One fuzz target: its seeds for TD_FUZZ_SECONDS, then its large inputs.
# Prints a line per run and, last, "ok bad" for the stage's counts.
fuzz_target() {  # target
  local t=$1 ok=0 bad=0 corpus large
  corpus=$(mktemp -d)
  large=$(mktemp -d)
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  # A fixed seed by default: every run of the suite explores the start of
  # the same sequence of inputs, so a red stage reproduces; TD_FUZZ_SEED=0
  # lets libFuzzer pick a seed (long runs: docs/fuzzing.md).
  if ./build-asan/tests/fuzz/td_"$t"_fuzzer -max_total_time="${TD_FUZZ_SECONDS:-3}" -max_len=4096 \
      -seed="${TD_FUZZ_SEED:-1}" "$corpus" >"$logs/fuzz-$t.log" 2>&1; then
    ok=$((ok + 1))
    echo "fuzz $t: $(grep -E '^Done|#[0-9]+ *DONE' "$logs/fuzz-$t.log" | tail -n 1)"
  else
    bad=$((bad + 1))
    echo "fuzz $t failed (see $logs/fuzz-$t.log):"
    tail -n 40 "$logs/fuzz-$t.log"
  fi
  # Large inputs, run once each: they reach the paths whose cost grows
  # with size, which mutation from small seeds never does in a short run;
  # -timeout fails one that takes far longer than a linear reader would.
  python3 tests/fuzz/large_seeds.py "$t" "$large"
  if ./build-asan/tests/fuzz/td_"$t"_fuzzer -timeout=30 -rss_limit_mb=4096 "$large"/* \
      >"$logs/fuzz-$t-large.log" 2>&1; then
    ok=$((ok + 1))
    echo "fuzz $t, large inputs: $(ls "$large" | wc -l) run"
  else
    bad=$((bad + 1))
    echo "fuzz $t, large inputs, failed (see $logs/fuzz-$t-large.log):"
    tail -n 40 "$logs/fuzz-$t-large.log"
  fi
  rm -rf "$corpus" "$large"
  echo "$ok $bad"
}

# The targets run side by side, as many as there are CPUs: each is one
# process fuzzing for a fixed time (26-31 s for the stage instead of 46 s on
# two CPUs). Each makes fewer executions than alone, by how much varies from
# run to run (event_list: 8,772 and 15,881 against 21,271 in a serial run).
stage_fuzz() {
  local targets=(expression definitions run_json perf_case perf_stat_csv event_list)
  local t ok=0 bad=0 binaries=() counts
  for t in "${targets[@]}"; do binaries+=("td_${t}_fuzzer"); done
  configure fuzz build-asan "${asan_args[@]}" || return 1
  build fuzz build-asan "${binaries[@]}" || return 1
  for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    fuzz_target "$t" >"$logs/fuzz-$t.summary" 2>&1 &
  done
  wait
  for t in "${targets[@]}"; do
    head -n -1 "$logs/fuzz-$t.summary"
    read -r -a counts < <(tail -n 1 "$logs/fuzz-$t.summary")
    if [ ${#counts[@]} -ne 2 ] || ! [[ "${counts[0]}${counts[1]}" =~ ^[0-9]+$ ]]; then
      counts=(0 1)
      echo "fuzz $t: no result (see $logs/fuzz-$t.summary)"
    fi
    ok=$((ok + counts[0]))
    bad=$((bad + counts[1]))
    [ "${counts[1]}" -eq 0 ] || note[fuzz]="see $logs/fuzz-$t*.log"
  done
  ran[fuzz]=$((ok + bad))
  passed[fuzz]=$ok
  failed[fuzz]=$bad
  skipped[fuzz]=0
  [ "$bad" -eq 0 ]
}

for stage in "${stages[@]}"; do
  case $stage in
    plain | asan | tsan | fuzz) ;;
    *) echo "test.sh: unknown stage $stage (plain, asan, tsan, fuzz)" >&2; exit 2 ;;
  esac
done

for stage in "${stages[@]}"; do
  echo "== $stage =="
  start=$SECONDS
  if ! "stage_$stage"; then
    failures=$((failures + 1))
    : "${ran[$stage]:=0}" "${passed[$stage]:=0}" "${skipped[$stage]:=0}"
    [ "${failed[$stage]:-0}" -eq 0 ] && failed[$stage]=1
    note[$stage]=${note[$stage]:-"failed (see $logs/)"}
  fi
  seconds[$stage]=$((SECONDS - start))
done

echo
printf '%-6s %6s %7s %7s %8s %8s  %s\n' stage tests passed failed skipped seconds ""
t_ran=0 t_passed=0 t_failed=0 t_skipped=0 c_passed=0 c_skipped=0 c_failed=0
for stage in "${stages[@]}"; do
  printf '%-6s %6d %7d %7d %8d %8d  %s\n' "$stage" "${ran[$stage]}" "${passed[$stage]}" \
    "${failed[$stage]}" "${skipped[$stage]}" "${seconds[$stage]}" "${note[$stage]:-}"
  c_passed=$((c_passed + ${cases_passed[$stage]:-0})); c_skipped=$((c_skipped + ${cases_skipped[$stage]:-0}))
  c_failed=$((c_failed + ${cases_failed[$stage]:-0}))
  t_ran=$((t_ran + ran[$stage])); t_passed=$((t_passed + passed[$stage]))
  t_failed=$((t_failed + failed[$stage])); t_skipped=$((t_skipped + skipped[$stage]))
done
inside=""
[ $((c_passed + c_skipped + c_failed)) -gt 0 ] &&
  inside=" (GoogleTest cases inside the shards: $c_passed passed, $c_skipped skipped, $c_failed failed)"
echo "total: $t_passed passed, $t_failed failed, $t_skipped skipped$inside"
[ "$failures" -eq 0 ]

#!/bin/bash
# The markers' instruction budget: runs marker pairs under callgrind at two
# counts, takes the difference per pair (start-up and exit cancel out) and
# fails when a form costs more than its budget. The software group's budget
# is the goal of 150 whole-program instructions (measured 147 in Release and
# RelWithDebInfo); the others are the figures of docs/performance.md plus
# about 5 % (2-vCPU Zen 5 VM, GCC 12: 267-270 and 298-302 whole-program; the
# markers' two files are built at -O2 in Release too), so that a regression
# on the hot path fails CI instead of waiting for someone to read a benchmark.
#
# Usage: instruction_budget.sh <td_callgrind_pairs> <td_user_read_pairs> [Release|RelWithDebInfo]
# Exit 77 (ctest: skipped) with the reason when it cannot measure here.
set -u
callgrind_pairs=$1
user_read_pairs=$2
build_type=${3:-RelWithDebInfo}

# Whole-program instructions per pair: (pairs at 2N - pairs at N) / N.
readonly small=2000 large=4000
# name|budget (instructions per pair); the loop below says what each runs.
case $build_type in
  Release | RelWithDebInfo) per_form=(150 282 317) ;;
  *) echo "skipped: no budgets for a $build_type build (they are for Release and RelWithDebInfo)"; exit 77 ;;
esac
budgets=(
  "software group, TSC clock (C markers, one read() each)|${per_form[0]}"
  "rdpmc on fake pages (C markers, user-read form, 0 kernel reads)|${per_form[1]}"
  "TD_CLOCK=monotonic (the general form)|${per_form[2]}"
)

if ! command -v valgrind >/dev/null; then
  echo "skipped: valgrind is not installed (apt-get install valgrind)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# instructions <out name> <clock> <program> <pairs>: the Ir of main and all it
# calls, from callgrind's summary. Start-up and exit are left out: the exit's
# calibration of td's own cost repeats work as the load makes it, which once
# moved a whole-program difference by more than the budget's margin.
instructions() {
  local out=$work/$1 clock=$2
  shift 2
  if ! TD_OUTPUT=none TD_JSON=0 TD_QUIET=1 TD_CLOCK=$clock \
      valgrind --tool=callgrind --toggle-collect=main --callgrind-out-file="$out" "$@" >"$out.log" 2>&1; then
    echo "FAIL: under callgrind, $* exited non-zero:" >&2
    tail -n 20 "$out.log" >&2
    return 1
  fi
  sed -n 's/^summary: \([0-9]*\).*/\1/p' "$out" | head -n 1
}

# The budgets are for the forms they name: the software group counted and
# read on the fast form with the TSC clock. A run that took another (counters
# refused, another clock) would be cheaper and pass for the wrong reason.
mkdir -p "$work/form"
TD_OUTPUT=none TD_QUIET=1 TD_OUTPUT_DIR="$work/form" "$callgrind_pairs" 10 >/dev/null 2>&1
recording=$(ls "$work"/form/td-*.json 2>/dev/null | head -n 1)
if [ -n "$recording" ] && grep -qF '"marker_clock": "monotonic"' "$recording"; then
  clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
  echo "skipped: the markers cannot read the TSC here (the kernel's clocksource is '$clocksource'; docs/performance.md," \
       "\"The marker clock\"), so their fast forms are not taken, and the budgets are for them"
  exit 77
fi
for expected in '"name": "perf_event"' '"marker_clock": "tsc"' '"counters_measured": true'; do
  if [ -z "$recording" ] || ! grep -qF "$expected" "$recording"; then
    echo "FAIL: the pairs did not run on the form the budgets are for: the recording lacks $expected"
    exit 1
  fi
done

failed=0
for i in "${!budgets[@]}"; do
  IFS='|' read -r name budget <<<"${budgets[$i]}"
  case $i in
    0) run=(auto "$callgrind_pairs") ;;
    1) run=(auto "$user_read_pairs") ;;
    2) run=(monotonic "$callgrind_pairs") ;;
  esac
  a=$(instructions "$i.small" "${run[@]}" "$small") || { failed=1; continue; }
  b=$(instructions "$i.large" "${run[@]}" "$large") || { failed=1; continue; }
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "FAIL $name: callgrind wrote no summary"
    failed=1
    continue
  fi
  per_pair=$(( (b - a + (large - small) / 2) / (large - small) ))
  if [ "$per_pair" -gt "$budget" ]; then
    echo "FAIL $name: $per_pair instructions per pair, over the budget of $budget"
    failed=1
  else
    echo "ok $name: $per_pair instructions per pair (budget $budget)"
  fi
done
exit $failed

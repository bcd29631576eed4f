#!/usr/bin/env bash
# Re-measures the figures quoted in samples/*/README.md and docs/tutorial.md:
# each sample's documented command, run ROUNDS times (default 5), printing the
# output of the median run. Run it on an idle machine after
# scripts/demo.sh; the figures depend on the machine, so quote them with it.
# Usage: scripts/sample-figures.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
bin=build/samples
for s in matmul branches prefetch false_sharing frontend aliasing4k triad; do
  [ -x "$bin/td_$s" ] || { echo "sample-figures: $bin/td_$s is missing; run scripts/demo.sh first" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) logical CPUs, $(uname -r)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# run NAME ARGS…: runs the sample ROUNDS times and prints, whole, the output
# of the run whose wall time was the median, so that the figures quoted
# together (times and their ratios) come from one run.
run() {
  local name=$1
  shift
  echo
  echo "\$ $bin/td_$name $*   (the median of $rounds runs by wall time)"
  (cd "$work" && TD_OUTPUT=none TD_JSON=0 TD_QUIET=1 python3 - "$OLDPWD/$bin/td_$name" "$rounds" "$@" <<'EOF'
import subprocess, sys, time
program, rounds, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = []
for _ in range(rounds):
    start = time.monotonic()
    out = subprocess.run([program, *args], capture_output=True, text=True, check=True).stdout
    runs.append((time.monotonic() - start, out))
runs.sort(key=lambda r: r[0])
seconds, out = runs[(len(runs) - 1) // 2]
print(out, end="")
print(f"(wall times of the runs: {', '.join(f'{s:.2f}' for s, _ in runs)} s)")
EOF
  )
}

run matmul
run matmul 1000
run branches 8 10
run prefetch 256 16
run false_sharing 2 50
run frontend 2000
run aliasing4k 32 20000
run triad 256 10
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

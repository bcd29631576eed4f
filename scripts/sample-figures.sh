#!/usr/bin/env bash
# Re-measures the figures quoted in samples/*/README.md and docs/tutorial.md:
# each sample's documented command, run ROUNDS times (default 5), with the
# median of every time it prints. Run it on an idle machine after
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

# run NAME ARGS…: runs the sample ROUNDS times; prints every numeric field's
# median, field by field, under the first run's text.
run() {
  local name=$1
  shift
  local i
  for ((i = 0; i < rounds; ++i)); do
    (cd "$work" && TD_OUTPUT=none TD_JSON=0 TD_QUIET=1 "$OLDPWD/$bin/td_$name" "$@" 2>/dev/null) >"$work/$name.$i"
  done
  echo
  echo "\$ $bin/td_$name $*   (median of $rounds)"
  python3 - "$work" "$name" "$rounds" <<'EOF'
import re, statistics, sys
work, name, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
runs = [open(f"{work}/{name}.{i}").read().splitlines() for i in range(rounds)]
number = re.compile(r"-?\d+\.\d+")
for line_no, line in enumerate(runs[0]):
    values = [number.findall(r[line_no]) if line_no < len(r) else [] for r in runs]
    fields = number.findall(line)
    if not fields or any(len(v) != len(fields) for v in values):
        print(line)
        continue
    medians = iter(statistics.median_low(float(v[k]) for v in values) for k in range(len(fields)))
    print(number.sub(lambda m: f"{next(medians):.{len(m.group()) - m.group().index('.') - 1}f}", line))
EOF
}

run matmul
run matmul 1000
run branches 8 10
run prefetch 256 16
run false_sharing 2 50
run frontend 2000
run aliasing4k 32
run triad 256 10
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

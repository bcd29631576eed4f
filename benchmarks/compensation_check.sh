#!/usr/bin/env bash
# Compensation at many pairs (docs/performance.md, "td's cost inside what it
# reports"): runs td_compensation_pairs RUNS times and prints, per run, the
# work's CPU time without markers, the compensated task-clock of "work" and
# their ratio, and the cost per pair td measured at exit.
# Usage: compensation_check.sh BUILD_DIR [RUNS (5)] [PAIRS (100000)] [ITERATIONS (220)]
# TD_CLI: the td that reads the files (default BUILD_DIR/tools/td/td).
# 220 steps are about 1.1 µs on the 2-vCPU development VM: 100,000 pairs
# then split 110 ms of work.
set -euo pipefail
build=$(cd "${1:?usage: compensation_check.sh BUILD_DIR [RUNS] [PAIRS] [ITERATIONS]}" && pwd)
runs=${2:-5} pairs=${3:-100000} iterations=${4:-220}
td=${TD_CLI:-$build/tools/td/td}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for ((r = 1; r <= runs; r++)); do
  rm -f "$dir"/*.json
  work=$(TD_OUTPUT=none TD_OUTPUT_DIR="$dir" "$build/benchmarks/td_compensation_pairs" "$pairs" "$iterations" 2>/dev/null |
    sed -n 's/^work_cpu_ns //p')
  file=$(ls "$dir"/*.json)
  "$td" report "$file" --json 2>/dev/null | python3 -c '
import json, sys
work, path = float(sys.argv[1]), sys.argv[2]
report = json.load(sys.stdin)
clock = next(r["software"]["task-clock"]["inclusive"] for r in report["regions"] if r["path"] == "work")
cost = json.load(open(path)).get("marker_cost") or {}
events = [e["name"] for e in json.load(open(path))["events"]]
at = events.index("task-clock") if "task-clock" in events else None
pair = "not measured" if not cost.get("inside") or at is None else \
    "%.0f + %.0f ns" % (cost["inside"][at], cost["around"][at])
print("run %s: work %.1f ms, compensated %.1f ms, ratio %.3f; task-clock per pair %s" %
      (sys.argv[3], work / 1e6, clock / 1e6, clock / work, pair))' "$work" "$file" "$r"
done

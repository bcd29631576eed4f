#!/usr/bin/env bash
# A real recording from this machine, re-analysed by `td report`: the same
# regions come back, and without hardware counts the report says why instead
# of drawing a tree. Usage: report_roundtrip.sh SCENARIO_APP TD_TOOL
set -euo pipefail
app=$1
tool=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$dir" && TD_OUTPUT=none TD_QUIET=1 TD_OUTPUT_DIR="$dir" "$app" nested)
report=$("$tool" report "$dir"/td-*.json)
echo "$report"
grep -q '└─ leaf' <<<"$report"
grep -q 'inner_b ' <<<"$report"
if grep -q '"available": false' <(grep -A2 '"hardware_counters"' "$dir"/td-*.json); then
  grep -q '^Top-Down: not available — no hardware counters: ' <<<"$report"
fi
if missing=$("$tool" report "$dir/missing.json" 2>&1); then
  echo "a missing file must be an error" >&2
  exit 1
fi
grep -q 'cannot open' <<<"$missing"
echo "td report re-analysed the recording"

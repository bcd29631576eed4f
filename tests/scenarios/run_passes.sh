#!/usr/bin/env bash
# `td run --passes 2` runs the program twice and merges the two recordings by
# region path; on a machine without a PMU there are no counter groups to share
# out, so `--passes 2` and `--passes auto` both make one pass and say why.
# Usage: run_passes.sh SCENARIO_APP TD_TOOL
set -euo pipefail
app=$1
tool=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$tool" run --passes auto --out auto.json -- "$app" nested >/dev/null 2>auto.txt
pmu=yes
if grep -q '"available": false' <(grep -A2 '"hardware_counters"' auto.json); then
  pmu=no
  grep -q -- '--passes auto: 1 pass; no hardware counters' auto.txt
fi
TD_EVENTS=minor-faults "$tool" run --passes 2 --out merged.json -- "$app" nested >report.txt 2>err.txt
cat err.txt
if [ "$pmu" = yes ]; then
  passes=2
  grep -q 'td run: pass 2 of 2: 4 regions, 2 counter groups' err.txt
  grep -q 'td run: merged 2 passes' err.txt
else
  passes=1
  grep -q 'td run: --passes 2: no PMU: one pass is enough' err.txt
  grep -q 'td run: pass 1 of 1: 4 regions, 2 counter groups' err.txt
  if grep -q 'of 2' err.txt; then
    echo "without a PMU --passes 2 must make one pass" >&2
    exit 1
  fi
fi
PASSES=$passes python3 - <<'PY'
import json, os
run = json.load(open("merged.json"))
paths = [r["path"] for r in run["regions"]]
assert "outer/inner_a/leaf" in paths, paths
assert [g["events"] for g in run["groups"]][1] == ["minor-faults"], run["groups"]
merged = any("merged 2 passes" in d["message"] for d in run["diagnostics"])
assert merged == (os.environ["PASSES"] == "2"), run["diagnostics"]
for r in run["regions"]:
    for t in r["threads"]:
        assert len(t["inclusive"]) == len(t["exclusive"]) == len(run["events"]), (r["path"], t)
        assert len(t["groups"]) == len(run["groups"]), (r["path"], t)
PY
grep -q '└─ leaf' report.txt
if "$tool" run --passes 0 -- "$app" nested 2>bad.txt; then
  echo "--passes 0 must be refused" >&2
  exit 1
fi
grep -q 'accepted: auto or 1 to 64' bad.txt
if "$tool" run -- ./no-such-program 2>missing.txt; then
  echo "a missing program must be an error" >&2
  exit 1
fi
grep -q 'cannot start ./no-such-program' missing.txt

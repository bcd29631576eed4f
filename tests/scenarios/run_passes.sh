#!/usr/bin/env bash
# `td run --passes 2` runs the program twice and merges the two recordings by
# region path; `--passes auto` on a machine without a PMU says one pass is all
# there is. Usage: run_passes.sh SCENARIO_APP TD_TOOL
set -euo pipefail
app=$1
tool=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
TD_EVENTS=minor-faults "$tool" run --passes 2 --out merged.json -- "$app" nested >report.txt 2>err.txt
cat err.txt
grep -q 'td run: pass 2 of 2: 4 regions, 2 counter groups' err.txt
grep -q 'td run: merged 2 passes' err.txt
python3 - <<'PY'
import json
run = json.load(open("merged.json"))
paths = [r["path"] for r in run["regions"]]
assert "outer/inner_a/leaf" in paths, paths
assert [g["events"] for g in run["groups"]][1] == ["minor-faults"], run["groups"]
assert any("merged 2 passes" in d["message"] for d in run["diagnostics"]), run["diagnostics"]
for r in run["regions"]:
    for t in r["threads"]:
        assert len(t["counters"]) == len(run["events"]), (r["path"], t)
        assert len(t["groups"]) == len(run["groups"]), (r["path"], t)
PY
grep -q '└─ leaf' report.txt
"$tool" run --passes auto --out auto.json -- "$app" nested >/dev/null 2>auto.txt
if grep -q '"available": false' <(grep -A2 '"hardware_counters"' auto.json); then
  grep -q -- '--passes auto: 1 pass; no hardware counters' auto.txt
fi
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

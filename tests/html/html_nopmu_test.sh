#!/usr/bin/env bash
# The HTML report of a recording without hardware counts, rendered in
# headless Chromium: the region table shows every region nested as in the
# text report (each child's name starts right of its parent's), with calls,
# wall times and the software metrics visible and equal to the recording's,
# and no Top-Down bar is drawn. A screenshot is kept among the test artefacts.
# Usage: html_nopmu_test.sh TD_TOOL RECORDING ARTEFACT_DIR
set -euo pipefail
tool=$1
recording=$2
artefacts=$3
source "$(dirname "$0")/render_in_chromium.sh"
render_report "$tool" "$recording" "$artefacts" td_report_nopmu.png 1200x900

python3 - "$work/dom.html" "$recording" <<'PY'
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
recording = json.load(open(sys.argv[2]))
selftest = re.search(r'<pre id="selftest"[^>]*>(.*?)</pre>', dom, re.S)
assert selftest, "the page did not run its self-test"
page = json.loads(html.unescape(selftest.group(1)))
assert page["bars"] == [], "no Top-Down bar without hardware counts"
rows = page["regions"]
assert sorted(r["path"] for r in rows) == sorted(r["path"] for r in recording["regions"])
seen = {}
for row in rows:
    path = row["path"]
    parent = path.rsplit("/", 1)[0] if "/" in path else None
    assert row["depth"] == path.count("/"), row
    if parent is not None:
        assert parent in seen, f"{path} comes before its parent"
        assert row["left"] > seen[parent]["left"] + 5, f"{path} is not indented under {parent}"
    seen[path] = row
events = [e["name"] for e in recording["events"]]
for region in recording["regions"]:
    cells = seen[region["path"]]["cells"]
    want = {"calls": sum(t["calls"] for t in region["threads"]),
            "wall_inclusive_ns": max(t["wall_inclusive_ns"] for t in region["threads"])}
    for e in events:
        want[e] = sum(t["counters"][e]["inclusive"] for t in region["threads"])
    for key, value in want.items():
        assert cells[key]["value"] == str(value), (region["path"], key, cells[key], value)
        assert cells[key]["visible"] and cells[key]["text"] not in ("", "—"), (region["path"], key)
    assert cells["cpu_utilization"]["visible"], region["path"]
print(f"html no-PMU report: {len(rows)} regions nested, software columns shown and equal to the recording")
PY
echo "screenshot: $artefacts/td_report_nopmu.png"

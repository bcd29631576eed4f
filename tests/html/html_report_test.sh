#!/usr/bin/env bash
# Renders td's HTML report in headless Chromium and checks it as a person
# would see it: the flagged path is present and highlighted, and every bar
# segment's width matches its share of the bar within 1 px. A screenshot is
# kept among the test artefacts.
# Usage: html_report_test.sh TD_TOOL RECORDING ARTEFACT_DIR
set -euo pipefail
tool=$1
recording=$2
artefacts=$3
source "$(dirname "$0")/render_in_chromium.sh"
render_report "$tool" "$recording" "$artefacts" td_report.png 1200x1400

python3 - "$work/dom.html" <<'PY'
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
selftest = re.search(r'<pre id="selftest"[^>]*>(.*?)</pre>', dom, re.S)
assert selftest, "the page did not run its self-test"
bars = json.loads(selftest.group(1).replace("&quot;", '"'))["bars"]
assert len(bars) == 8, f"expected 8 bar segments (4 per region), got {len(bars)}"
for b in bars:
    assert abs(b["expected"] - b["actual"]) <= 1, f"segment {b} is off by more than 1 px"
# The flagged path: highlighted (critical), flagged, and open.
for node in ("Backend_Bound", "Backend_Bound.Memory_Bound", "Backend_Bound.Memory_Bound.L3_Miss_Bound"):
    pattern = r'<details class="node flagged critical" data-node="%s" open="">' % re.escape(node)
    assert re.search(pattern, dom), f"{node} is not shown as the flagged path"
assert 'data-node="Backend_Bound.Memory_Bound.Store_Bound"' in dom
assert not re.search(r'class="node[^"]*critical[^"]*" data-node="Backend_Bound.Memory_Bound.Store_Bound"', dom)
print(f"html report: {len(bars)} bar segments within 1 px, flagged path highlighted")
PY
echo "screenshot: $artefacts/td_report.png"

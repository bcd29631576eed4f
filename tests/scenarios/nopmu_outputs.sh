#!/usr/bin/env bash
# A recording without hardware counts (tests/data/nopmu_matmul.json, made by
# the real runtime on a VM without a PMU) through every output of td report
# and td compare: each carries every region's calls, wall time and software
# metrics, equal to the recording's own numbers, and compare names the
# regions it compares. A recording with hardware counts (HARDWARE_RECORDING)
# keeps its Top-Down trees in --json, with the same additions beside them.
# Usage: nopmu_outputs.sh TD_TOOL RECORDING HARDWARE_RECORDING
set -euo pipefail
tool=$1
recording=$2
hardware=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tool" report "$recording" --json > "$work/report.json"
"$tool" report "$recording" --csv > "$work/report.csv"
"$tool" report "$recording" --html "$work/report.html" 2>/dev/null
"$tool" compare "$recording" --regions multiply1,multiply2 > "$work/compare.txt"
"$tool" compare "$recording" --regions multiply1,multiply2 --csv > "$work/compare.csv"
"$tool" compare "$recording" --regions multiply1,multiply2 --html "$work/compare.html" 2>/dev/null
"$tool" report "$hardware" --json > "$work/hardware.json"

python3 - "$recording" "$work" "$hardware" <<'PY'
import csv, json, re, sys
recording = json.load(open(sys.argv[1]))
work = sys.argv[2]
events = [e["name"] for e in recording["events"]]
assert not any(e["hardware"] for e in recording["events"]), "the fixture must hold no hardware counts"

def totals(region):
    """Threads summed, wall = longest thread: the text report's totals."""
    t = {"calls": sum(x["calls"] for x in region["threads"]),
         "wall_inclusive_ns": max(x["wall_inclusive_ns"] for x in region["threads"]),
         "wall_exclusive_ns": max(x["wall_exclusive_ns"] for x in region["threads"])}
    for e in events:
        t[e] = sum(x["counters"][e]["inclusive"] for x in region["threads"])
        t[e + ".exclusive"] = sum(x["counters"][e]["exclusive"] for x in region["threads"])
    t["cpu_utilization"] = t["task-clock"] / t["wall_inclusive_ns"]
    return t

regions = {r["path"]: totals(r) for r in recording["regions"]}

# --json: one entry per region, no tree, the recording's values.
report = json.load(open(f"{work}/report.json"))
assert report["available"] is False
assert [r["path"] for r in report["regions"]] == [r["path"] for r in recording["regions"]]
for r in report["regions"]:
    want = regions[r["path"]]
    for key in ("calls", "wall_inclusive_ns", "wall_exclusive_ns"):
        assert r[key] == want[key], (r["path"], key, r[key], want[key])
    for e in events:
        assert r["software"][e]["inclusive"] == want[e], (r["path"], e)
        assert r["software"][e]["exclusive"] == want[e + ".exclusive"], (r["path"], e)
    assert abs(r["software"]["cpu_utilization"]["inclusive"] - want["cpu_utilization"]) < 1e-9
    assert r["inclusive"] is None and r["exclusive"] is None

# --csv: the same numbers, and the CPU utilisation.
rows = {(r["region"], r["kind"], r["name"]): r["value"] for r in csv.DictReader(open(f"{work}/report.csv"))}
for path, want in regions.items():
    assert int(rows[(path, "time", "calls")]) == want["calls"]
    assert int(rows[(path, "count", "task-clock")]) == want["task-clock"]
    assert abs(float(rows[(path, "time", "cpu_utilization")]) - want["cpu_utilization"]) < 1e-6

# --html: the region table holds every region, nested, with the raw values.
html = open(f"{work}/report.html", encoding="utf-8").read()
for path, want in regions.items():
    depth = path.count("/")
    row = re.search(r'<tr data-region="%s" data-depth="%d">(.*?)</tr>' % (re.escape(path), depth), html)
    assert row, f"no region row for {path} at depth {depth}"
    for key in ["calls", "wall_inclusive_ns", "wall_exclusive_ns"] + events:
        assert f'data-key="{key}" data-value="{want[key]}"' in row.group(1), (path, key)

# compare: the regions named, the software rows and their ratios.
a, b = regions["matmul/multiply1"], regions["matmul/multiply2"]
text = open(f"{work}/compare.txt", encoding="utf-8").read()
run = f'{recording["program"]["name"]} (pid {recording["program"]["pid"]})'
assert f"multiply1 = region matmul/multiply1 of {run}\n" in text, text
assert f"multiply2 = region matmul/multiply2 of {run}\n" in text, text
assert re.search(r"\ntask-clock ratio +1\.00 +%.2f\n" % (b["task-clock"] / a["task-clock"]), text), text
assert "speedup, calls and software counters only" in text, text
table = list(csv.reader(open(f"{work}/compare.csv")))
assert table[0] == ["row", "multiply1", "multiply2"], table[0]
by_row = {r[0]: r[1:] for r in table}
assert by_row["Wall time"] == [str(a["wall_inclusive_ns"]), str(b["wall_inclusive_ns"])]
assert by_row["task-clock"] == [str(a["task-clock"]), str(b["task-clock"])]
assert by_row["page-faults"] == [str(a["page-faults"]), str(b["page-faults"])]
assert by_row["CPUs"] == [f'{a["cpu_utilization"]:.2f}', f'{b["cpu_utilization"]:.2f}']
assert by_row["region"] == ["matmul/multiply1", "matmul/multiply2"]
assert by_row["run"] == [run, run]
chtml = open(f"{work}/compare.html", encoding="utf-8").read()
assert "<th>region</th><th>matmul/multiply1</th><th>matmul/multiply2</th>" in chtml
assert ">task-clock ratio</td><td>1.00</td><td>%.2f</td>" % (b["task-clock"] / a["task-clock"]) in chtml
# The hardware recording: trees as before, the measured values beside them.
hw_recording = json.load(open(sys.argv[3]))
hw_report = json.load(open(f"{work}/hardware.json"))
assert hw_report["available"] is True
for rec, r in zip(hw_recording["regions"], hw_report["regions"]):
    assert r["path"] == rec["path"]
    assert r["inclusive"]["tree"], f"{r['path']} lost its tree"
    task_clock = sum(t["counters"]["task-clock"]["inclusive"] for t in rec["threads"])
    assert r["software"]["task-clock"]["inclusive"] == task_clock, r["path"]
    assert set(r["software"]) == {"task-clock", "cpu_utilization"}, "only what the recording holds"
print(f"no-PMU outputs: {len(regions)} regions, JSON, CSV, HTML and compare agree with the recording")
PY

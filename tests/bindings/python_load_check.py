"""td.load() against `td report --json`: the same numbers, region by region.

usage: python_load_check.py TD_COMMAND RUN.json [RUN2.json]
Also: names decoded, the recording's per-thread calls, to_dict() as JSON,
to_pandas() (or its ImportError without pandas), the HTML, a directory and a
list of files, and a damaged file giving LoadError with td's one line.
"""
import json
import os
import subprocess
import sys
import tempfile

import td

cli, files = sys.argv[1], sys.argv[2:]
problems = []


def check(condition, what):
    if not condition:
        problems.append(what)


for file in files:
    run = td.load(file)
    check(isinstance(run, td.Run), f"td.load({file!r}) gave {type(run).__name__}, not td.Run")
    report = json.loads(subprocess.run([cli, "report", file, "--json"], check=True,
                                       stdout=subprocess.PIPE).stdout)
    with open(file, "rb") as f:
        recording = json.loads(f.read())
    check([r["path"] for r in run.regions] == [r["path"] for r in report["regions"]],
          f"{file}: region paths differ from td report --json")
    for mine, theirs, recorded in zip(run.regions, report["regions"], recording["regions"]):
        for key in ("calls", "threads", "wall_inclusive_ns", "wall_exclusive_ns", "software", "call_times"):
            check(mine[key] == theirs[key], f"{file}: {mine['path']}: {key} {mine[key]!r} != {theirs[key]!r}")
        check(mine["topdown"] == theirs["inclusive"], f"{file}: {mine['path']}: Top-Down result differs")
        check(mine["calls"] == sum(t["calls"] for t in recorded["threads"]),
              f"{file}: {mine['path']}: calls differ from the recording's threads")
        check([t["calls"] for t in mine["per_thread"]] == [t["calls"] for t in recorded["threads"]],
              f"{file}: {mine['path']}: per-thread calls differ")
        # Every entry has the counts a schema 3 file leaves out when 0, as the recording says.
        for t, rt in zip(mine["per_thread"], recorded["threads"]):
            for key in ("recursive_calls", "unterminated", "closed_implicitly"):
                check(t[key] == rt.get(key, 0), f"{file}: {mine['path']}: thread {t['thread']} {key} {t.get(key)!r}")
        # Raw deltas keyed by event whatever the file's schema (1: keyed, 2 and 3: lists).
        names = [e["name"] for e in recording["events"]]
        for t, rt in zip(mine["per_thread"], recorded["threads"]):
            want = rt.get("counters")
            if "inclusive" in rt:
                want = None if rt["inclusive"] is None else {
                    n: {"inclusive": i, "exclusive": x} for n, i, x in zip(names, rt["inclusive"], rt["exclusive"])}
            check(t["counters"] == want, f"{file}: {mine['path']}: thread {t['thread']} counters {t['counters']!r}")
        summed = None
        for t in mine["per_thread"]:
            for n, d in (t["counters"] or {}).items():
                summed = summed or {}
                slot = summed.setdefault(n, {"inclusive": 0, "exclusive": 0})
                slot["inclusive"] += d["inclusive"]
                slot["exclusive"] += d["exclusive"]
        check(mine["counters"] == summed, f"{file}: {mine['path']}: counters {mine['counters']!r} != {summed!r}")
        check(mine["name"] == recorded["name"] or "\\" in recorded["name"],
              f"{file}: {mine['path']}: name {mine['name']!r}")
    for key in ("uarch", "available", "unavailable_reason", "peak_gbps"):
        check(getattr(run, key) == report[key], f"{file}: {key} differs")
    check(run.program["pid"] == recording["program"]["pid"], f"{file}: program pid")
    # Plain data: survives JSON.
    check(json.loads(json.dumps(run.to_dict()))["regions"][0]["path"] == run.regions[0]["path"],
          f"{file}: to_dict() is not plain data")
    try:
        frame = run.to_pandas()
        check(len(frame) == len(run.regions) and list(frame["calls"]) == [r["calls"] for r in run.regions],
              f"{file}: to_pandas() rows differ")
    except ImportError as e:
        check("pandas" in str(e), f"{file}: to_pandas() without pandas: {e}")
    page = run._repr_html_()
    check(page.startswith("<iframe") and "srcdoc=" in page and "&lt;!DOCTYPE html&gt;" in page,
          f"{file}: _repr_html_ is not the report in an iframe")
    check(run.html().startswith("<!DOCTYPE html>"), f"{file}: html() is not a page")
    top = run.regions[0]
    check(run.region(top["path"]) is top, f"{file}: region(path)")
    print(f"{file}: td.load() agrees with td report --json on {len(run.regions)} regions")

# A directory and a list of files give Runs; timelines and other JSON are left out.
with tempfile.TemporaryDirectory() as scratch:
    for i, file in enumerate(files):
        with open(file, "rb") as f, open(os.path.join(scratch, f"td-run-{i}.json"), "wb") as out:
            out.write(f.read())
    with open(os.path.join(scratch, "other.json"), "w") as f:
        f.write('{"not": "a recording"}')
    runs = td.load(scratch)
    check(isinstance(runs, td.Runs) and len(runs) == len(files), f"td.load(directory) gave {runs!r}")
    check(len(td.load(files)) == len(files), "td.load(list) length")
    check([r["calls"] for r in runs[0].regions] == [r["calls"] for r in td.load(files[0]).regions],
          "td.load(directory) numbers differ")
    damaged = os.path.join(scratch, "damaged.json")
    with open(damaged, "w") as f:
        f.write('{"schema_version": 1, "td_version": "0.1.0", "regions": [')
    try:
        td.load(damaged)
        check(False, "td.load(damaged file) did not raise")
    except td.LoadError as e:
        check("\n" not in str(e) and "damaged.json" in str(e), f"LoadError is not td's one line: {e}")

if problems:
    sys.exit("python_load_check:\n  " + "\n  ".join(problems))
print("python_load_check: all agree")

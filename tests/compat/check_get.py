"""Checks what likwid_markerGetRegion answered against td's JSON of the same run.

usage: check_get.py RUN.json STDOUT [--exclusive PATH]...
  Each line of STDOUT of the form
    getv: path=PATH cap=CAP count=C nevents=N time=T events=E1,E2,...
  is GET's answer for the region at PATH, which ran on one thread and was not
  entered again after the GET: C must be its calls, T its inclusive wall time
  in seconds, N the number of td's events capped at CAP, and E1… its
  inclusive raw counts in the order of the JSON's "events" (exactly). T is
  exact where the markers used CLOCK_MONOTONIC (backend.marker_clock); where
  they read the TSC (TD_CLOCK) it may differ from the JSON's by 1e-4 of itself
  plus 1 ns: GET converts ticks at the rate known when it is called, the JSON
  at the rate known at exit, measured over the longer span.
  --exclusive PATH: on every thread of PATH, its exclusive values (wall time
  and each counter) are its inclusive values minus its children's inclusive
  values, exactly (what likwid_markerResetRegion of a child must keep true).
"""
import json
import sys

args = sys.argv[1:]
exclusive = [args[i + 1] for i, a in enumerate(args) if a == "--exclusive"]
args = [a for i, a in enumerate(args) if a != "--exclusive" and (i == 0 or args[i - 1] != "--exclusive")]
run_file, stdout_file = args
with open(run_file, "rb") as f:
    run = json.loads(f.read())
regions = {r["path"]: r for r in run["regions"]}
tsc = run["backend"].get("marker_clock") == "tsc"

# Each event's name, in the order of the counts' lists (for messages).
keys = [e["name"] for e in run["events"]]

problems = []
checked = 0
with open(stdout_file, encoding="utf-8") as f:
    lines = [line.strip() for line in f if line.startswith("getv:")]
for line in lines:
    fields = dict(item.split("=", 1) for item in line[len("getv:"):].split())
    path, cap = fields["path"], int(fields["cap"])
    count, nevents, time = int(fields["count"]), int(fields["nevents"]), float(fields["time"])
    events = [float(v) for v in fields["events"].split(",") if v]
    region = regions.get(path)
    if region is None or len(region["threads"]) != 1:
        problems.append(f"{line}: no region {path!r} on exactly one thread")
        continue
    t = region["threads"][0]
    if count != t["calls"]:
        problems.append(f"{line}: count {count}, the JSON has {t['calls']} calls")
    if abs(time - t["wall_inclusive_ns"] * 1e-9) > (1e-9 + 1e-4 * time if tsc else 1e-12 + 1e-12 * time):
        problems.append(f"{line}: time {time!r} s, the JSON has {t['wall_inclusive_ns']} ns")
    want = [] if t["inclusive"] is None else t["inclusive"][:cap]
    if nevents != len(events) or nevents != len(want):
        problems.append(f"{line}: nevents {nevents} ({len(events)} values), expected {len(want)} "
                        f"(td's {len(keys)} events, capped at {cap})")
    elif any(float(w) != v for w, v in zip(want, events)):
        problems.append(f"{line}: events {events}, the JSON has {want} ({keys[:cap]})")
    checked += 1

for path in exclusive:
    region = regions.get(path)
    if region is None:
        problems.append(f"--exclusive: no region {path!r}")
        continue
    children = [r for r in run["regions"] if r.get("parent") is not None and r["path"].rpartition("/")[0] == path]
    for t in region["threads"]:
        kids = [c for r in children for c in r["threads"] if c["thread"] == t["thread"]]
        wall = t["wall_inclusive_ns"] - sum(c["wall_inclusive_ns"] for c in kids)
        if t["wall_exclusive_ns"] != wall:
            problems.append(f"{path}: thread {t['thread']}: wall_exclusive_ns {t['wall_exclusive_ns']}, "
                            f"inclusive minus children's {wall}")
        for e, k in enumerate(keys if t["inclusive"] is not None else []):
            value = t["inclusive"][e] - sum(c["inclusive"][e] for c in kids)
            if t["exclusive"][e] != value:
                problems.append(f"{path}: thread {t['thread']}: {k} exclusive {t['exclusive'][e]}, "
                                f"inclusive minus children's {value}")

if not lines:
    problems.append(f"no getv: line in {stdout_file}")
if problems:
    sys.exit(f"{run_file}:\n  " + "\n  ".join(problems))
print(f"{run_file}: {checked} GET answers match td's JSON"
      + (f"; exclusive values exact in {', '.join(exclusive)}" if exclusive else ""))

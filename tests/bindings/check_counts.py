"""Checks exact call counts in a td recording (read as plain JSON, not through td).

usage: check_counts.py RUN.json PATH=CALLS[xTHREADS] ...
  PATH=CALLS          the region at PATH has CALLS calls, summed over its threads
  PATH=CALLSxTHREADS  it ran on THREADS threads, with CALLS calls on each
Also checks that no region was left unterminated or closed implicitly, and that
the recording has no region beyond those named unless --allow-others.
"""
import json
import sys

args = sys.argv[1:]
allow_others = "--allow-others" in args
args = [a for a in args if a != "--allow-others"]
run_file, wanted = args[0], args[1:]
with open(run_file, "rb") as f:
    run = json.loads(f.read())
regions = {r["path"]: r for r in run["regions"]}
problems = []
for item in wanted:
    path, _, count = item.rpartition("=")
    per_thread, _, threads = count.partition("x")
    region = regions.get(path)
    if region is None:
        problems.append(f"no region {path!r} (regions: {', '.join(sorted(regions))})")
        continue
    calls = [t["calls"] for t in region["threads"]]
    if threads:
        if len(calls) != int(threads) or any(c != int(per_thread) for c in calls):
            problems.append(f"{path}: calls per thread {calls}, expected {threads} threads of {per_thread}")
    elif sum(calls) != int(per_thread):
        problems.append(f"{path}: {sum(calls)} calls, expected {per_thread}")
    for t in region["threads"]:
        # Schema 3 leaves these out when they are 0.
        unterminated, implicit = t.get("unterminated", 0), t.get("closed_implicitly", 0)
        if unterminated or implicit:
            problems.append(f"{path}: thread {t['thread']} has unterminated {unterminated}, "
                            f"closed_implicitly {implicit}")
named = {item.rpartition("=")[0] for item in wanted}
if not allow_others and set(regions) - named:
    problems.append(f"regions not expected: {sorted(set(regions) - named)}")
if problems:
    sys.exit(f"{run_file}:\n  " + "\n  ".join(problems))
print(f"{run_file}: {len(wanted)} regions with the expected calls")

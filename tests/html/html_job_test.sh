#!/usr/bin/env bash
# The job view's HTML (td report DIR --html) rendered in headless Chromium:
# three ranks of a four-rank job of the scenario program (rank r spends
# (r + 1) ms per call in "solve"; rank 0 never runs "halo", renamed here to a
# name that is HTML). Checked as a person sees the page: one visible cell per
# region and rank present, each in the colour of its step of the scale
# (darker for a larger share of the region's slowest rank), the step that
# share gives, one ▲ per region on its slowest rank, a hatched cell where a
# rank did not run the region, and the HTML name shown as text. The files get
# MPI times added (rank r: (r + 1) × 20 % of each region's wall time on each thread), so the
# page is also switched to CPU time and MPI share and checked the same way
# under each. A screenshot is kept among the test artefacts.
# Usage: html_job_test.sh TD_TOOL SCENARIO_APP ARTEFACT_DIR
set -euo pipefail
tool=$1
app=$2
artefacts=$3
ranks=$(mktemp -d)
trap 'rm -rf "$ranks"' EXIT
for rank in 0 1 2; do
  (cd "$ranks" && env TD_OUTPUT=none OMPI_COMM_WORLD_RANK=$rank OMPI_COMM_WORLD_SIZE=4 PMIX_NAMESPACE=jh \
     "$app" rank_work 2>> app.log) || { cat "$ranks/app.log" >&2; exit 1; }
done
python3 - "$ranks" <<'PY'
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/td-*.json"):
    run = json.load(open(path, encoding="utf-8"))
    fifths = run["mpi"]["rank"] + 1  # MPI time rounded up: the share is never under (r + 1) / 5
    run["mpi_outside_regions"] = {"ns": 0, "calls": 0, "bytes": 0}
    for region in run["regions"]:
        if region["path"] == "halo":
            region["name"] = region["base_name"] = region["path"] = 'halo<i>&amp;"'
        for part in region["threads"]:
            part["mpi"] = [-(-part["wall_inclusive_ns"] * fifths // 5), part["calls"], 0]
    json.dump(run, open(path, "w", encoding="utf-8"), indent=1)
PY
source "$(dirname "$0")/render_in_chromium.sh"
render_report "$tool" "$ranks" "$artefacts" td_job_heatmap.png 1000x600
trap 'rm -rf "$ranks" "$work"' EXIT  # render_report's trap removes only its own folder

python3 - "$work/dom.html" <<'PY'
import html, json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
selftest = re.search(r'<pre id="selftest"[^>]*>(.*?)</pre>', dom, re.S)
assert selftest, "the page did not run its self-test"
page = json.loads(html.unescape(selftest.group(1)))
scale = page["scale"]
assert len(scale) == 10, scale
def rgb(css):
    return [int(v) for v in re.findall(r"\d+", css)[:3]]
lightness = [sum(rgb(c)) for c in scale]
assert all(a > b for a, b in zip(lightness, lightness[1:])), f"the scale does not darken step by step: {scale}"
rows = {row["path"]: row for row in page["rows"]}
assert set(rows) == {"(program)", "solve", 'halo<i>&amp;"'}, rows.keys()
assert rows['halo<i>&amp;"']["name"] == 'halo<i>&amp;"', "the name is shown as text, not markup"
for path, row in rows.items():
    cells = row["cells"]
    assert [c["rank"] for c in cells] == ["0", "1", "2"], (path, cells)
    assert all(c["width"] > 0 for c in cells), (path, "a cell is not visible")
    run = [c for c in cells if c["ns"] is not None]
    top = max(int(c["ns"]) for c in run)
    marked = [c for c in cells if "slowest" in c["cls"].split()]
    assert len(marked) == 1 and marked[0]["mark"] == "\u25b2", (path, cells)
    assert int(marked[0]["ns"]) == top, (path, "the mark is not on the slowest rank")
    for c in run:
        step = min(9, int(10 * int(c["ns"]) / top)) if top > 0 else 0
        assert f"h{step}" in c["cls"].split(), (path, c, step)
        assert c["bg"] == scale[step], (path, c, "not the colour of its step")
    for c in cells:
        if c["ns"] is None:
            assert "none" in c["cls"].split() and c["bg"] not in scale, (path, c)
assert [c["ns"] is None for c in rows['halo<i>&amp;"']["cells"]] == [True, False, False], "rank 0 never runs halo"

# Switched to each metric: the step and mark each cell's value gives under it,
# in the colour of that step. CPU time by share of the most, MPI share as is.
with_cpu = any(c["cpu_ns"] is not None for r in page["rows"] for c in r["cells"])  # task-clock where perf allows it
assert page["metric"] == "wall", page["metric"]
assert set(page["by_metric"]) == {"wall", "mpi"} | ({"cpu"} if with_cpu else set()), page["by_metric"].keys()
def value(metric, c):
    if metric == "wall":
        return None if c["ns"] is None else int(c["ns"])
    if metric == "cpu":
        return None if c["cpu_ns"] is None else int(c["cpu_ns"])
    return None if c["mpi_ns"] is None else int(c["mpi_ns"]) / int(c["ns"])
for metric, shown in page["by_metric"].items():
    for row, cells in zip(page["rows"], shown):
        values = [value(metric, c) for c in row["cells"]]
        known = [v for v in values if v is not None]
        if not known:  # (program) has no task-clock: every cell hatched, none marked
            assert all(c["cls"] == "cell none" for c in cells), (metric, row["path"], cells)
            continue
        top = max(known) if metric != "mpi" else 1
        marked = [i for i, c in enumerate(cells) if "slowest" in c["cls"].split()]
        assert len(marked) == 1 and cells[marked[0]]["mark"] == "\u25b2", (metric, row["path"], cells)
        assert values[marked[0]] == max(known), (metric, row["path"], "the mark is not on the top rank")
        for v, c in zip(values, cells):
            if v is None:
                assert "none" in c["cls"].split(), (metric, row["path"], c)
                continue
            step = min(9, int(10 * v / top)) if top > 0 else 0
            assert f"h{step}" in c["cls"].split() and c["bg"] == scale[step], (metric, row["path"], c, step)
solve_mpi = [c["cls"].split()[1] for c in page["by_metric"]["mpi"][[r["path"] for r in page["rows"]].index("solve")]]
assert solve_mpi == ["h2", "h4", "h6"], f"MPI shares 20, 40, 60 %: {solve_mpi}"
print(f"html job view: {sum(len(r['cells']) for r in rows.values())} cells in the colours of their steps by wall "
      "time, CPU time and MPI share, one mark per region on its top rank, names shown as text")
PY
echo "screenshot: $artefacts/td_job_heatmap.png"

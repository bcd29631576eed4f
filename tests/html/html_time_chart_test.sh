#!/usr/bin/env bash
# The HTML report's time chart (an icicle of the region tree) and its page
# without hardware counters, rendered in headless Chromium at a desktop
# (1280 px) and a notebook (800 px) width, for two recordings without a PMU:
# nopmu_matmul.json, and one made here from it with a region run on four
# threads and 1,500 regions too small to draw. Checked as a person sees it:
#  - each bar's rendered width is its share of the run within 2 px, and that
#    share is the region's inclusive wall time over its parent's (the run's
#    for top-level regions) times the parent's share, computed here from the
#    recording;
#  - every label shown ends inside its bar;
#  - the regions too small are left out and the page says how many;
#  - no region section repeats the table ("1 call, X ms wall"): only the
#    region on several threads has one, and the across-threads table holds
#    its spread;
#  - nothing is wider than the window (no horizontal scrollbar).
# Screenshots are kept among the test artefacts. Skips (status 77) where
# Chromium is missing.
# Usage: html_time_chart_test.sh TD_TOOL NOPMU_RECORDING ARTEFACT_DIR
set -euo pipefail
tool=$1
recording=$2
artefacts=$3
source "$(dirname "$0")/render_in_chromium.sh"
if ! chromium_path > /dev/null; then
  echo "skipped: chromium is not installed, so the chart cannot be rendered"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artefacts"

# Threads 0-3 run "pool" for 4, 5, 6 and 9 ms; inside it, on each thread,
# "task" for 3 ms and 1,500 "t<i>" of 1 µs each (under 0.5 % of the run).
python3 - "$recording" "$work/threads.json" <<'PY'
import copy, json, sys
run = json.load(open(sys.argv[1], encoding="utf-8"))
template = run["regions"][1]["threads"][0]
def on_thread(thread, wall_ns, exclusive_ns):
    t = copy.deepcopy(template)
    t.update(thread=thread, calls=1, wall_inclusive_ns=wall_ns, wall_exclusive_ns=exclusive_ns)
    t["counters"]["task-clock"] = {"inclusive": wall_ns, "exclusive": exclusive_ns}
    return t
def add(name, parent, threads):
    index = len(run["regions"])
    path = name if parent is None else run["regions"][parent]["path"] + "/" + name
    run["regions"].append({"base_name": name, "children": [], "index": index, "name": name, "parameter": None,
                           "parent": -1 if parent is None else parent, "path": path, "threads": threads})
    if parent is not None:
        run["regions"][parent]["children"].append(index)
    return index
for i in range(1, 4):
    thread = copy.deepcopy(run["threads"][0])
    thread.update(index=i, tid=thread["tid"] + i)
    run["threads"].append(thread)
pool_ms = [4, 5, 6, 9]
pool = add("pool", None, [on_thread(i, ms * 1000000, (ms - 3) * 1000000) for i, ms in enumerate(pool_ms)])
task = add("task", pool, [on_thread(i, 3000000, 3000000 - 1500 * 1000) for i in range(4)])
for k in range(1500):
    add(f"t{k}", task, [on_thread(0, 1000, 1000)])
run["program"]["end_unix_ns"] += 9000000
json.dump(run, open(sys.argv[2], "w", encoding="utf-8"))
PY

for name in nopmu threads; do
  file=$recording
  [ "$name" = threads ] && file=$work/threads.json
  "$tool" report "$file" --html "$work/$name.html"
  if grep -q 'https\?://' "$work/$name.html"; then
    echo "the report refers to the network" >&2
    exit 1
  fi
  for size in 1280x900 800x900; do
    render_page "$work/$name.html" "$work/$name-$size.dom" "$artefacts/td_time_chart_${name}_${size%x*}.png" \
      "$size" "$work/profile"
  done
done

python3 - "$work" "$recording" <<'PY'
import html, json, re, sys
work = sys.argv[1]
recordings = {"nopmu": json.load(open(sys.argv[2], encoding="utf-8")),
              "threads": json.load(open(work + "/threads.json", encoding="utf-8"))}

def expected_shares(run):
    """Each region's share of the run: its inclusive wall time (longest
    thread) over its parent's, or over its siblings' sum where that is
    larger, times the parent's share; regions under 0.5 % left out."""
    regions = run["regions"]
    wall = [max(t["wall_inclusive_ns"] for t in r["threads"]) for r in regions]
    top = [r["index"] for r in regions if r["parent"] < 0]
    program = run["program"]["end_unix_ns"] - run["program"]["start_unix_ns"]
    shares = {"": (0.0, 1.0)}
    def place(kids, left, width, parent_ns):
        denom = max(parent_ns, sum(wall[k] for k in kids))
        for k in kids:
            w = width * wall[k] / denom
            if w >= 0.005:
                shares[regions[k]["path"]] = (left, w)
                place(regions[k]["children"], left, w, wall[k])
            left += w
    place(top, 0.0, 1.0, max(program, sum(wall[k] for k in top)))
    return shares

for name, run in recordings.items():
    want = expected_shares(run)
    for size in ("1280x900", "800x900"):
        dom = open(f"{work}/{name}-{size}.dom", encoding="utf-8").read()
        selftest = re.search(r'<pre id="selftest"[^>]*>(.*?)</pre>', dom, re.S)
        assert selftest, f"{name} {size}: the page did not run its self-test"
        page = json.loads(html.unescape(selftest.group(1)))
        chart = page["chart"]
        assert chart is not None, f"{name} {size}: no time chart"
        window = int(size.split("x")[0])
        assert window - 80 < chart["width"] <= window, (name, size, chart["width"])
        bars = {b["path"]: b for b in chart["bars"]}
        assert set(bars) == set(want), (name, size, sorted(set(bars) ^ set(want))[:5])
        for path, (left, share) in want.items():
            b = bars[path]
            assert abs(b["share"] - share) < 1e-5 and abs(b["left_share"] - left) < 1e-5, (name, path, b, share)
            assert abs(b["width"] - share * chart["width"]) <= 2, (name, size, path, b["width"], share)
            assert abs(b["left"] - left * chart["width"]) <= 2, (name, size, path, b["left"], left)
            assert b["label_fits"], (name, size, path, "label runs past its bar")
        assert chart["left_out"] == len(run["regions"]) - (len(want) - 1), (name, chart["left_out"])
        assert page["scroll_width"] <= page["client_width"], (name, size, "wider than the window",
                                                              page["scroll_width"], page["client_width"])
        labelled = {p for p, b in bars.items() if b["label"]}
        assert "matmul" in labelled and bars["matmul"]["label"].startswith("matmul · "), (name, size, bars["matmul"])
        if size == "1280x900":
            assert "matmul/multiply1" in labelled, (name, "a 40 % bar has room for its label at 1280 px")
        assert re.search(r"\n1 call; [\d.]+ [µm]?s inclusive \([\d.]+% of the run\), [\d.]+ [µm]?s exclusive; [\d.]+ CPUs",
                         bars["matmul/init"]["title"]), bars["matmul/init"]["title"]
        if name == "nopmu":
            assert page["sections"] == [], (size, "sections that repeat the table", page["sections"])
            assert 'class="muted collapsed">5 regions without a section' in dom
            assert "Across threads" not in dom
        else:
            assert chart["left_out"] == 1500 and "1,500 regions under 0.5% of the run" in dom, chart["left_out"]
            sections = {h for h in page["sections"]}
            assert sections == {f"region-{i}" for i in (5, 6)}, sections
            threads_table = dom[dom.index('<table class="threads">'):]
            threads_table = threads_table[:threads_table.index("</table>")]
            rows = re.findall(r'<tr data-region="(pool(?:/task)?)">(.*?)</tr>', threads_table, re.S)
            assert [r[0] for r in rows] == ["pool", "pool/task"], rows
            # Per-call times: one call on each of 4 threads, each call's own time.
            calls = re.search(r'<table class="call-times">.*?<tr data-region="pool"[^>]*>(.*?)</tr>', dom, re.S)
            assert calls, "the per-call table lists pool"
            per_call = dict(re.findall(r'data-key="(\w+)" data-value="([\d.]+)"', calls.group(1)))
            assert (per_call["calls"], per_call["min_ns"], per_call["max_ns"]) == ("4", "4000000", "9000000"), per_call
            pool = dict(re.findall(r'data-key="(\w+)" data-value="([\d.]+)"', rows[0][1]))
            assert (pool["wall_min_ns"], pool["wall_max_ns"], pool["wall_mean_ns"]) == ("4000000", "9000000", "6000000")
            assert abs(float(pool["imbalance"]) - 1.5) < 1e-4 and "thread 3" in rows[0][1], rows[0]
    print(f"{name}: {len(want) - 1} regions drawn within 2 px of their share at 1280 and 800 px, labels inside "
          f"their bars, {len(run['regions']) - len(want) + 1} left out, no horizontal scrollbar")
PY
echo "screenshots: $artefacts/td_time_chart_*.png"

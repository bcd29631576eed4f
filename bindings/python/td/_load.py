"""td.load(): a recorded td run as plain Python data.

The numbers come from td itself: `td report FILE --json` (the analysis: calls,
times, software metrics, Top-Down trees, flags, diagnoses) joined by region
path with the recording (names, parameters, per-thread counts, raw counter
deltas, the run's diagnostics). The HTML is `td report FILE --html`. The td
command is found as _config.TD_CLI says (next to the installed library), or
TD_CLI in the environment, or on PATH.
"""
import html as _html
import json
import os
import shutil
import subprocess
import tempfile

from . import _config


class LoadError(Exception):
    """A recording td cannot read, or no td command to read it with."""


def _cli():
    for candidate in (os.environ.get("TD_CLI"), _config.TD_CLI):
        if candidate and os.access(candidate, os.X_OK) and os.path.isfile(candidate):
            return candidate
    found = shutil.which("td")
    if found:
        return found
    raise LoadError("td.load() needs the td command: not found next to this package "
                    f"({_config.TD_CLI or 'no path recorded'}) nor on PATH; set TD_CLI=/path/to/td")


def _run_cli(args):
    """Runs `td ARGS…`; its stdout, or LoadError with td's one-line reason."""
    try:
        done = subprocess.run([_cli(), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    except OSError as e:
        raise LoadError(f"cannot run td: {e}") from None
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise LoadError(reason[-1] if reason else f"td {' '.join(args)} exited with {done.returncode}")
    return done.stdout


def _bytes_text(text):
    """A byte string of td's JSON (docs/json-schema.md, "Byte strings") as the
    str that td.region() would have been given for it (UTF-8, surrogateescape)."""
    if not isinstance(text, str) or "\\" not in text:
        return text
    out = bytearray()
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == "\\":
            out += b"\\"
            i += 2
            continue
        if c == "\\" and i + 3 < n and text[i + 1] == "x":
            digits = text[i + 2:i + 4]
            if len(digits) == 2 and all(d in "0123456789abcdefABCDEF" for d in digits):
                out.append(int(digits, 16))
                i += 4
                continue
        out += c.encode("utf-8", "surrogatepass")
        i += 1
    return out.decode("utf-8", "surrogateescape")


def _counter_keys(events):
    """Each event's key: its name, "name@gN" for a later copy in group N."""
    keys, seen = [], set()
    for e in events:
        name = _bytes_text(e.get("name"))
        keys.append(name if name not in seen else f"{name}@g{e.get('group')}")
        seen.add(name)
    return keys


def _thread_counters(t, keys):
    """A thread's raw deltas keyed by event, {event: {"inclusive", "exclusive"}}, from
    either layout (schemas 2 and 3: lists in the order of "events"; 1: already keyed); None
    when the thread was not measured."""
    if "counters" in t:
        return t["counters"]
    inclusive, exclusive = t.get("inclusive"), t.get("exclusive")
    if inclusive is None or exclusive is None:
        return None
    return {k: {"inclusive": i, "exclusive": x} for k, i, x in zip(keys, inclusive, exclusive)}


def _sum_counters(threads):
    """Raw counter deltas summed over the threads that measured them; None when none did."""
    total = None
    for t in threads:
        counters = t.get("counters")
        if counters is None:
            continue
        if total is None:
            total = {}
        for event, values in counters.items():
            slot = total.setdefault(event, {"inclusive": 0, "exclusive": 0})
            slot["inclusive"] += values.get("inclusive", 0)
            slot["exclusive"] += values.get("exclusive", 0)
    return total


# Counts that schema 3 leaves out of a thread's entry when they are 0.
_ZERO_WHEN_ABSENT = {"recursive_calls": 0, "unterminated": 0, "closed_implicitly": 0}


def _region(recorded, analysed, by_index, tids, keys):
    threads = [{**_ZERO_WHEN_ABSENT, **t, "counters": _thread_counters(t, keys)}
               for t in recorded.get("threads", [])]
    topdown = analysed.get("inclusive")
    tree = topdown.get("tree", []) if topdown else []
    parent = recorded.get("parent", -1)
    depth = recorded.get("path", "").count("/")
    return {
        "path": analysed.get("path", recorded.get("path")),
        "name": _bytes_text(recorded.get("name")),
        "base_name": _bytes_text(recorded.get("base_name", recorded.get("name"))),
        "parameter": recorded.get("parameter"),
        "parent": by_index[parent]["path"] if 0 <= parent < len(by_index) else None,
        "depth": depth,
        "calls": analysed.get("calls"),
        "threads": analysed.get("threads"),
        "wall_inclusive_ns": analysed.get("wall_inclusive_ns"),
        "wall_exclusive_ns": analysed.get("wall_exclusive_ns"),
        "recursive_calls": sum(t["recursive_calls"] for t in threads),
        "unterminated": sum(t["unterminated"] for t in threads),
        "closed_implicitly": sum(t["closed_implicitly"] for t in threads),
        "software": analysed.get("software", {}),
        "call_times": analysed.get("call_times"),
        "counters": _sum_counters(threads),
        "per_thread": [dict(t, tid=tids.get(t.get("thread"))) for t in threads],
        "nodes": {node["name"]: node.get("value") for node in tree},
        "flagged": [node["name"] for node in tree if node.get("flagged")],
        "critical": [node["name"] for node in tree if node.get("critical")],
        "diagnoses": list(topdown.get("diagnoses", [])) if topdown else [],
        "metrics": dict(topdown.get("metrics", {})) if topdown else {},
        "topdown": topdown,
        "topdown_exclusive": analysed.get("exclusive"),
    }


class Run:
    """One recorded run: `td report FILE --json` joined with the recording FILE.

    Attributes (plain Python data): file, program, machine, backend, threads,
    diagnostics (what td said during the run), uarch, available (whether there
    are Top-Down trees), unavailable_reason, peak_gbps, regions (a list of
    dicts, parents before children; see region()), analysis (the whole
    `td report --json` output) and recording (the whole file).
    """

    def __init__(self, path, uarch=None):
        self.file = os.fspath(path)
        self._uarch = uarch
        # td first: it checks the whole file and says what is wrong in one line.
        args = ["report", self.file, "--json"] + (["--uarch", uarch] if uarch else [])
        self.analysis = json.loads(_run_cli(args))
        try:
            with open(self.file, "rb") as f:
                self.recording = json.loads(f.read())
        except (OSError, ValueError) as e:
            raise LoadError(f"{self.file}: {e}") from None
        rec = self.recording
        self.program = dict(rec.get("program", {}))
        self.program["name"] = _bytes_text(self.program.get("name"))
        self.program["argv"] = [_bytes_text(a) for a in self.program.get("argv", [])]
        self.machine = rec.get("machine", {})
        self.backend = rec.get("backend", {})
        self.threads = rec.get("threads", [])
        self.diagnostics = [dict(d, message=_bytes_text(d.get("message"))) for d in rec.get("diagnostics", [])]
        self.uarch = self.analysis.get("uarch")
        self.available = self.analysis.get("available")
        self.unavailable_reason = self.analysis.get("unavailable_reason")
        self.peak_gbps = self.analysis.get("peak_gbps")
        recorded = rec.get("regions", [])
        analysed = {r.get("path"): r for r in self.analysis.get("regions", [])}
        tids = {t.get("index"): t.get("tid") for t in self.threads}
        self.regions = []
        keys = _counter_keys(rec.get("events", []))
        for r in recorded:
            self.regions.append(_region(r, analysed.get(r.get("path"), {}), self.regions, tids, keys))
        self._html = None

    def region(self, which):
        """The region dict with this path, or with this name when only one region has it."""
        named = []
        for r in self.regions:
            if r["path"] == which:
                return r
            if r["name"] == which:
                named.append(r)
        if len(named) == 1:
            return named[0]
        raise KeyError(f"{which!r}: {'no such region' if not named else 'name repeats; give the path'} "
                       f"in {self.file}")

    def to_dict(self):
        """Everything above as one dict of plain data (JSON-serialisable)."""
        return {
            "file": self.file, "program": self.program, "machine": self.machine, "backend": self.backend,
            "threads": self.threads, "diagnostics": self.diagnostics, "uarch": self.uarch,
            "available": self.available, "unavailable_reason": self.unavailable_reason,
            "peak_gbps": self.peak_gbps, "regions": self.regions,
        }

    def _rows(self):
        for r in self.regions:
            row = {k: r[k] for k in ("path", "name", "base_name", "parameter", "depth", "calls", "threads",
                                     "wall_inclusive_ns", "wall_exclusive_ns")}
            for metric, values in r["software"].items():
                if values is None:
                    row[metric] = None
                    continue
                row[metric] = values.get("inclusive")
                if "exclusive" in values:
                    row[metric + ".exclusive"] = values["exclusive"]
            row.update(r["nodes"])
            row.update(r["metrics"])
            row["flagged"] = ",".join(r["flagged"])
            row["diagnoses"] = ",".join(d.get("id", "") for d in r["diagnoses"])
            yield row

    def to_pandas(self):
        """One row per region: times, software metrics, Top-Down node values
        (inclusive), metrics, flagged nodes. Needs pandas."""
        return _data_frame(list(self._rows()))

    def html(self):
        """td's self-contained HTML report of this run (`td report FILE --html`)."""
        if self._html is None:
            with tempfile.TemporaryDirectory(prefix="td-html-") as scratch:
                out = os.path.join(scratch, "report.html")
                _run_cli(["report", self.file, "--html", out] + (["--uarch", self._uarch] if self._uarch else []))
                with open(out, encoding="utf-8", errors="replace") as f:
                    self._html = f.read()
        return self._html

    def _repr_html_(self):
        # In an iframe: the report is a whole page with its own styles and
        # script, which must not restyle the notebook around it.
        return ('<iframe style="width: 100%; height: 640px; border: 1px solid #ddd; resize: vertical" '
                f'srcdoc="{_html.escape(self.html(), quote=True)}"></iframe>')

    def __repr__(self):
        return (f"<td.Run {self.file!r}: {self.program.get('name')} (pid {self.program.get('pid')}), "
                f"{len(self.regions)} regions>")


class Runs:
    """Several recorded runs (td.load of a directory or a list): a sequence of Run."""

    def __init__(self, runs):
        self.runs = list(runs)

    def __len__(self):
        return len(self.runs)

    def __iter__(self):
        return iter(self.runs)

    def __getitem__(self, i):
        return self.runs[i]

    def to_dict(self):
        return {"runs": [run.to_dict() for run in self.runs]}

    def to_pandas(self):
        """The runs' rows one after the other, with a `file` column first. Needs pandas."""
        rows = []
        for run in self.runs:
            rows += [dict({"file": run.file}, **row) for row in run._rows()]
        return _data_frame(rows)

    def _repr_html_(self):
        return "".join(f"<h3>{_html.escape(run.file)}</h3>{run._repr_html_()}" for run in self.runs)

    def __repr__(self):
        return f"<td.Runs of {len(self.runs)}: {', '.join(repr(r.file) for r in self.runs)}>"


def _data_frame(rows):
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas() needs pandas (pip install pandas); to_dict() holds the same data") from None
    return pandas.DataFrame(rows)


def _is_recording(path):
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "td_version" in data and "regions" in data


def _files_in(directory):
    names = sorted(n for n in os.listdir(directory) if n.endswith(".json") and not n.endswith(".trace.json"))
    return [os.path.join(directory, n) for n in names if _is_recording(os.path.join(directory, n))]


def load(path, uarch=None):
    """Reads recorded td runs (td-PROGRAM-PID.json) with the td command.

    path: a file, giving a Run; or a directory (its td recordings, *.json
    except timelines) or a list of files and directories, giving Runs.
    uarch: analyse as this microarchitecture (`td uarchs`), as `td report --uarch`.
    Raises LoadError with td's reason when a file cannot be read.
    """
    if isinstance(path, (str, bytes, os.PathLike)):
        path = os.fsdecode(path)
        if not os.path.isdir(path):
            return Run(path, uarch)
        files = _files_in(path)
        if not files:
            raise LoadError(f"{path}: no td recordings (td-PROGRAM-PID.json) in this directory")
        return Runs(Run(f, uarch) for f in files)
    files = []
    for item in path:
        item = os.fsdecode(item)
        files += _files_in(item) if os.path.isdir(item) else [item]
    return Runs(Run(f, uarch) for f in files)

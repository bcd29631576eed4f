#!/usr/bin/env python3
"""Writes large seed inputs for one fuzz target into a corpus folder.

The checked-in seeds are small and libFuzzer grows inputs slowly, so paths
whose cost depends on size (an object with many keys, a long expression, a
CSV of many lines) are never reached in a short run. These seeds reach them
at once; the fuzz stage runs them with a per-input time limit, so a reader
that turns quadratic again fails the stage.

  large_seeds.py TARGET DIR
"""
import json
import sys


def run_json():
    # One object with 100,000 keys (about 1.5 MB): the reader must stay linear.
    many_keys = {"k%06d" % i: i for i in range(100_000)}
    yield "many_keys.json", json.dumps(many_keys)
    # A run whose region list is long and whose names are long.
    regions = [{"name": "r%d" % i + "x" * 200, "threads": []} for i in range(20_000)]
    yield "many_regions.json", json.dumps({"schema_version": 1, "regions": regions})
    yield "deep_arrays.json", "[" * 5000 + "]" * 5000


def definitions():
    nodes = [{"name": "N%d" % i, "formula": "+".join("E%d" % j for j in range(i % 50 + 1))} for i in range(5000)]
    yield "many_nodes.json", json.dumps({"uarch": "x", "nodes": nodes})


def expression():
    yield "long_sum", " + ".join("EV_%d" % i for i in range(20_000))
    yield "deep_parens", "(" * 5000 + "1" + ")" * 5000


def perf_case():
    counts = {"EVENT_%d" % i: i for i in range(50_000)}
    yield "many_counts.json", json.dumps({"uarch": "skl", "counts": counts})


def perf_stat_csv():
    yield "many_lines.csv", "".join("%d,,EVENT_%d,1000,100.00,,\n" % (i, i) for i in range(100_000))


def event_list():
    # Lists as long as any perf command line; each event is encoded on its own.
    yield "many_events.txt", ",".join("cpu/event=0x%x,umask=0x1/" % (i % 256) for i in range(2_000))


GENERATORS = {
    "run_json": run_json,
    "definitions": definitions,
    "expression": expression,
    "perf_case": perf_case,
    "perf_stat_csv": perf_stat_csv,
    "event_list": event_list,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in GENERATORS:
        sys.exit("usage: large_seeds.py {%s} DIR" % "|".join(GENERATORS))
    target, folder = sys.argv[1], sys.argv[2]
    for name, text in GENERATORS[target]():
        with open("%s/large_%s" % (folder, name), "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()

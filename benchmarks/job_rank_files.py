#!/usr/bin/env python3
"""Derives the rank files of a large MPI job from one real rank file.

    job_rank_files.py TEMPLATE.json OUT_DIR RANKS [--seed N]

TEMPLATE.json is a run file a rank wrote (td_job_rank_program run with
OMPI_COMM_WORLD_RANK/SIZE set, so it has "mpi"). For every rank r < RANKS the
script writes OUT_DIR/td-PROGRAM-JOB-rankRRRR.json: the template with rank r of
a RANKS-rank job, a pid and host of its own (32 ranks per host), and every
region's times and counts on every thread scaled by a factor of its own
(0.8-1.2, one rank in 97 slower by another half), so the job view has real
spreads and slowest ranks. Every field the reader checks stays consistent
(exclusive <= inclusive, integers in range, the same regions and threads), so
the files pass `td report`'s full validation. The template's job-view
summary ("rank_summary") is left out: it is the template's, and the job view
then reads every part, which is what this derivation measures. Written like the runtime writes
them (runtime/recorded/run_file.cc): keys sorted, indented by one space, each
region on one line of its own without spaces.
"""
import argparse
import copy
import json
import os
import random
import sys


def scaled(value, factor):
    return max(0, int(round(value * factor)))


def perturb_part(part, factor):
    part["wall_inclusive_ns"] = scaled(part["wall_inclusive_ns"], factor)
    part["wall_exclusive_ns"] = min(scaled(part["wall_exclusive_ns"], factor), part["wall_inclusive_ns"])
    # Schema 2: counts as lists in the order of the run's events, groups as
    # [time_enabled_ns, time_running_ns].
    if part.get("inclusive") is None:
        return
    part["inclusive"] = [scaled(v, factor) for v in part["inclusive"]]
    part["exclusive"] = [min(scaled(x, factor), i) for x, i in zip(part["exclusive"], part["inclusive"])]
    part["groups"] = [[scaled(e, factor), min(scaled(r, factor), scaled(e, factor))] for e, r in part["groups"]]


def run_file_text(run):
    """The run as td's writer lays it out: the regions, most of the bytes, one
    compact line each inside an otherwise indented document."""
    placeholder = "@regions@"
    regions = run["regions"]
    text = json.dumps(dict(run, regions=placeholder), indent=1, sort_keys=True, ensure_ascii=False)
    lines = ",\n".join("  " + json.dumps(r, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
                        for r in regions)
    listed = "[\n" + lines + "\n ]" if regions else "[]"
    return text.replace(json.dumps(placeholder), listed, 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("template")
    parser.add_argument("out_dir")
    parser.add_argument("ranks", type=int)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with open(args.template, encoding="utf-8") as f:
        template = json.load(f)
    if "mpi" not in template:
        sys.exit(f"{args.template} is not a rank's file (no \"mpi\"): run the program with OMPI_COMM_WORLD_RANK set")
    os.makedirs(args.out_dir, exist_ok=True)
    program = template["program"]["name"]
    job = template["mpi"]["job"]
    width = len(str(max(args.ranks - 1, 0)))
    rng = random.Random(args.seed)
    for rank in range(args.ranks):
        run = copy.deepcopy(template)
        run.pop("rank_summary", None)
        run["program"]["pid"] = 10000 + rank
        run["program"]["start_unix_ns"] += rank * 1000
        run["program"]["end_unix_ns"] += rank * 1000
        host = f"node{rank // 32:03d}"
        run["machine"]["hostname"] = host
        run["mpi"].update({"rank": rank, "size": args.ranks, "host": host})
        for thread in run["threads"]:
            thread["tid"] = 100000 + rank * 64 + thread["index"]
        slow = 1.5 if rank % 97 == 13 else 1.0
        for region in run["regions"]:
            for part in region["threads"]:
                perturb_part(part, slow * rng.uniform(0.8, 1.2))
        name = f"td-{program}-{job}-rank{rank:0{width}d}.json" if job else f"td-{program}-rank{rank:0{width}d}.json"
        with open(os.path.join(args.out_dir, name), "w", encoding="utf-8") as f:
            f.write(run_file_text(run))
            f.write("\n")


if __name__ == "__main__":
    main()

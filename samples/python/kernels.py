"""Three versions of C = A × B on Python lists (no NumPy), each in its own td
region under "kernels", run R times each; then the run's own recording is read
back with td.load() and the versions are compared from td's numbers.

    python3 samples/python/kernels.py [N [R]]     (default N = 120, R = 3)

with the td package importable (PYTHONPATH: see the README next to this file).
"""
import glob
import operator
import os
import sys
import time

import td


def naive(a, b, n):
    """i, j, k as in C, indexing everywhere: each multiply-add is four list
    lookups and a Python-level loop iteration."""
    c = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(n):
                s += a[i][k] * b[k][j]
            c[i][j] = s
    return c


def transposed(a, b, n):
    """B transposed once, so that the inner loop walks two tuples with zip():
    no index arithmetic, no lookups, still one Python-level loop iteration per
    multiply-add."""
    columns = list(zip(*b))
    c = []
    for row in a:
        c_row = []
        for column in columns:
            s = 0.0
            for x, y in zip(row, column):
                s += x * y
            c_row.append(s)
        c.append(c_row)
    return c


def builtins(a, b, n):
    """B transposed, and the inner product done by sum(map(mul, …)): the loop
    over k runs in C, inside the interpreter's builtins."""
    columns = list(zip(*b))
    return [[sum(map(operator.mul, row, column)) for column in columns] for row in a]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if not (1 <= n <= 2000 and 1 <= repeats <= 100):
        sys.exit("usage: kernels.py [N [R]]  (1 <= N <= 2000, 1 <= R <= 100)")
    a = [[float((i * n + k) % 7 - 3) for k in range(n)] for i in range(n)]
    b = [[(k * n + j) % 5 * 0.5 for j in range(n)] for k in range(n)]
    versions = [naive, transposed, builtins]
    results, seconds = {}, {}
    with td.region("kernels"):
        for f in versions:
            region = td.region(f.__name__)
            seconds[f.__name__] = []
            for _ in range(repeats):
                start = time.perf_counter()
                with region:
                    results[f.__name__] = f(a, b, n)
                seconds[f.__name__].append(time.perf_counter() - start)
    reference = results["naive"]
    agree = all(max(abs(x - y) for rx, ry in zip(reference, r) for x, y in zip(rx, ry)) <= 1e-9 * n
                for r in results.values())
    td.finalize()  # writes td-PROGRAM-PID.json now

    out = os.environ.get("TD_OUTPUT_DIR", ".")
    recordings = [f for f in glob.glob(os.path.join(out, f"td-*-{os.getpid()}*.json"))
                  if not f.endswith(".trace.json")]
    per_call = None
    if recordings:
        try:
            run = td.load(recordings[0])
            per_call = {f.__name__: run.region(f"kernels/{f.__name__}")["wall_inclusive_ns"] / 1e9 /
                        run.region(f"kernels/{f.__name__}")["calls"] for f in versions}
            source = f"td's recording {recordings[0]}"
        except (td.LoadError, KeyError) as e:
            print(f"kernels.py: cannot read the recording back ({e}); timing with perf_counter", file=sys.stderr)
    if per_call is None:
        per_call = {name: min(values) for name, values in seconds.items()}
        source = "time.perf_counter (best of the runs)"
    print(f"C = A x B on Python lists, N = {n}, {repeats} runs of each; times per run from {source}:")
    for f in versions:
        t = per_call[f.__name__]
        print(f"  {f.__name__:13s} {t:8.3f} s  {per_call['naive'] / t:5.2f}x naive")
    print(f"results agree: {'yes' if agree else 'NO'}")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())

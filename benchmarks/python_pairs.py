"""Cost the Python binding adds to a BEGIN/END pair, over the C macro pair.

R repetitions, each timing in turn, in one process: N C macro pairs (a C loop
in libtd_bench_pairs.so, called once through ctypes), an empty Python loop,
and Python loops of N pairs written each way a program would; the medians per
pair are printed, with what each Python form adds over the C pair once the
empty loop is taken off. docs/performance.md ("Bindings") has the figures.

  PYTHONPATH=BUILD/bindings/python python3 benchmarks/python_pairs.py \
      BUILD/benchmarks/libtd_bench_pairs.so [N [R]]     (default N = 20000, R = 15)
"""
import ctypes
import statistics
import sys
import time

import td

helper = ctypes.CDLL(sys.argv[1])
n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 15
helper.td_bench_c_pairs.argtypes = [ctypes.c_longlong]
helper.td_bench_c_pairs.restype = None


def c_pairs():
    helper.td_bench_c_pairs(n)


def empty_loop():
    for _ in range(n):
        pass


def with_new_region():
    for _ in range(n):
        with td.region("py_with"):
            pass


reused = td.region("py_reused")


def with_reused_region():
    for _ in range(n):
        with reused:
            pass


def begin_end():
    begin, end = td.begin, td.end
    for _ in range(n):
        begin("py_begin_end")
        end("py_begin_end")


def plain():
    pass


@td.region("py_decorated")
def decorated():
    pass


def plain_calls():
    for _ in range(n):
        plain()


def decorated_calls():
    for _ in range(n):
        decorated()


def with_parameter():
    for i in range(n):
        with td.region("py_sweep", i & 7):
            pass


# The alternative not taken: the same pair through ctypes, on a td_site made in
# Python (libtd is already loaded by the extension and by the helper).
class Site(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("file", ctypes.c_char_p), ("line", ctypes.c_int),
                ("region_id_plus_one", ctypes.c_int), ("warned", ctypes.c_int)]


ct_begin = helper.td_region_begin  # found in the helper's libtd
ct_end = helper.td_region_end
for f in (ct_begin, ct_end):
    f.argtypes = [ctypes.c_void_p]
    f.restype = None
ct_sites = {}


class CtypesRegion:
    """What a ctypes td.region would be: a name -> site dict, two foreign calls."""
    __slots__ = ("site",)

    def __init__(self, name):
        site = ct_sites.get(name)
        if site is None:
            site = Site(name.encode(), b"(ctypes)", 0, 0, 0)
            ct_sites[name] = site
        self.site = ctypes.addressof(site)

    def __enter__(self):
        ct_begin(self.site)

    def __exit__(self, *exc):
        ct_end(self.site)
        return False


def ctypes_with():
    for _ in range(n):
        with CtypesRegion("ctypes_with"):
            pass


def ctypes_calls():
    site = CtypesRegion("ctypes_calls").site
    for _ in range(n):
        ct_begin(site)
        ct_end(site)


variants = [c_pairs, empty_loop, with_new_region, with_reused_region, begin_end, plain_calls,
            decorated_calls, with_parameter, ctypes_with, ctypes_calls]
td.init()
for v in variants:  # first uses register names and the thread
    v()
times = {v.__name__: [] for v in variants}
for r in range(reps):
    for k in range(len(variants)):
        v = variants[(r + k) % len(variants)]  # rotated: no variant always follows the same one
        t0 = time.perf_counter_ns()
        v()
        times[v.__name__].append((time.perf_counter_ns() - t0) / n)
med = {name: statistics.median(values) for name, values in times.items()}
c, loop = med["c_pairs"], med["empty_loop"]
print(f"pairs per timing: {n}, repetitions: {reps}, td active: {td.is_active()}")
print(f"{'C macro pair':44s} {c:9.1f} ns")
print(f"{'empty Python loop (per iteration)':44s} {loop:9.1f} ns")
for name, label, base in [("with_new_region", 'with td.region("x"): (new object each time)', loop),
                          ("with_reused_region", "with r: (one td.region object)", loop),
                          ("begin_end", 'td.begin("x"); td.end("x")', loop),
                          ("decorated_calls", '@td.region("x") function call', med["plain_calls"]),
                          ("with_parameter", 'with td.region("x", i & 7):', loop),
                          ("ctypes_with", 'ctypes instead: with Region("x"):', loop),
                          ("ctypes_calls", "ctypes instead: begin(site); end(site)", loop)]:
    added = med[name] - base - c
    print(f"{label:44s} {med[name]:9.1f} ns   adds {added / 1000:6.3f} µs over the C pair")

"""Run outside td's tree with the installed package (PYTHONPATH as the README
says) by tests/bindings/python_binding.sh, which checks these exact counts in
the JSON:
  outer 1, outer/middle 3, outer/middle/inner 12, outer/decorated 7,
  outer/loop_body 1000 (read one call in ten: td.sample), outer/raises 2 (left by an exception, still closed),
  outer/sweep[1..4] 1, 2, 3, 4, thread_work: 3 threads, 10 calls each,
and that each kind of bad input printed one warning line and raised nothing.
"""
import sys
import threading

import td

td.init()
assert td.is_active(), "td.is_active() is false after td.init()"


@td.region("decorated")
def decorated(x):
    """Keeps its name and docstring."""
    return x * 2


assert decorated.__name__ == "decorated" and decorated.__doc__.startswith("Keeps")

td.sample("loop_body", 10)  # read one call in ten; calls stay exact
total = 0
with td.region("outer"):
    for i in range(3):
        with td.region("middle"):
            inner = td.region("inner")  # one object, entered four times
            for j in range(4):
                with inner:
                    total += i * j
    for i in range(7):
        total += decorated(i)
    for i in range(1000):
        td.begin("loop_body")
        total += i
        td.end("loop_body")
    for i in range(2):
        try:
            with td.region("raises"):
                raise KeyError(i)
        except KeyError:
            pass
    for value in (1, 2, 2, 3, 3, 3):
        with td.region("sweep", value):
            total += value
    for _ in range(4):
        td.begin("sweep", 4)
        td.end("sweep", parameter=4)

    # Bad input: one warning line per kind, nothing raised, nothing recorded.
    for _ in range(3):
        td.begin(42)
        td.end(None)
        with td.region(b"bytes name"):
            pass
        with td.region("nul\0name"):
            pass
        td.begin("sweep", "not an int")
        td.end("never_begun")  # td's own warning: END with this region not open
print(f"python_consumer: main thread done, checksum {total}", flush=True)


def work():
    for _ in range(10):
        with td.region("thread_work"):
            sum(range(100))


threads = [threading.Thread(target=work) for _ in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()

td.finalize()
assert not td.is_active(), "td.is_active() is true after td.finalize()"
with td.region("after_finalize"):  # ignored
    pass
sys.exit(0)

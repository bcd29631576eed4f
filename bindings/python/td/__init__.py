"""td — per-region Top-Down analysis, from Python.

Recording (markers, over libtd's C API; each Python thread is its own td thread)::

    import td
    with td.region("solve"):          # or @td.region("solve") on a function
        ...
    td.begin("step"); ...; td.end("step")
    td.sample("tiny", 100)            # read one call in 100 of a hot tiny region
    with td.region("copy", offset):   # one region per value: "copy[8]" (a sweep)
        ...

td writes its reports at exit, or at td.finalize(). Bad input (a name that is
not a str, a NUL in a name, an END without its BEGIN) prints one warning line
and the marker is ignored; no marker raises.

Analysis of a recorded run (from C, Fortran or Python)::

    run = td.load("td-myprog-1234.json")   # also a directory or a list of files
    run.regions            # plain dicts: names, paths, calls, times, counters, Top-Down
    run.to_dict(); run.to_pandas()         # pandas only when installed
    run                    # in Jupyter: td's HTML report, inline
"""
import functools as _functools
import inspect as _inspect

from ._td import begin, end, finalize, init, is_active, region, sample
from ._td import _set_decorator, _warn
from ._load import LoadError, Run, Runs, load
from ._config import VERSION as __version__

__all__ = ["region", "begin", "end", "sample", "init", "finalize", "is_active", "load", "Run", "Runs",
           "LoadError"]


def _decorate(reg, function):
    """What @td.region("name") does with the function it decorates."""
    if not callable(function):
        raise TypeError(f"{reg!r} decorates a function, not {type(function).__name__}")
    if (_inspect.isgeneratorfunction(function) or _inspect.iscoroutinefunction(function)
            or _inspect.isasyncgenfunction(function)):
        # The region would close when the call returns the generator or
        # coroutine, before any of its body runs: measuring that would mislead.
        _warn(f"{reg!r} on {getattr(function, '__qualname__', function)!s}: a generator or coroutine "
              f"function is not measured (use `with {reg!r}:` inside it); left as it is")
        return function

    @_functools.wraps(function)
    def measured(*args, **kwargs):
        with reg:
            return function(*args, **kwargs)

    return measured


_set_decorator(_decorate)

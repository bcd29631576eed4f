"""td — per-region Top-Down analysis, from Python.

Recording (markers, over libtd's C API; each Python thread is its own td thread)::

    import td
    with td.region("solve"):          # or @td.region("solve") on a function
        ...
    td.begin("step"); ...; td.end("step")
    td.sample("tiny", 100)            # read one call in 100 of a hot tiny region
    with td.region("copy", offset):   # one region per value: "copy[8]" (a sweep)
        ...

td writes its reports at exit, or at td.finalize(), to td-SCRIPT-PID.json:
named after the script (`python3 kernels.py`: td-kernels-PID.json) or the
module (`python3 -m pkg.tool`: td-pkg.tool-PID.json); after the process
(python3) for `python3 -c`, standard input and the interactive prompt. Bad input (a name that is
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
import os as _os
import sys as _sys

from ._td import begin, end, finalize, init, is_active, region, sample
from ._td import _set_decorator, _set_program_name, _warn
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


def _program_name():
    """The name td gives this run in place of the process's (python3), or None."""
    main = _sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name not in (None, "__main__"):
        return spec.name.removesuffix(".__main__")  # python3 -m pkg: pkg/__main__.py
    path = getattr(main, "__file__", None)
    if not path:
        return None  # -c, standard input, the prompt: no script to name
    if spec is not None:  # python3 app.pyz or python3 app/: the __main__.py inside
        path = _os.path.dirname(path)
    base = _os.path.basename(_os.path.normpath(path))
    stem, extension = _os.path.splitext(base)
    return stem if extension in (".py", ".pyw", ".pyz") and stem else base


_set_decorator(_decorate)
# At import; the runtime reads the name when it writes its reports.
_name = _program_name()
if _name:
    _set_program_name(_name)
del _name

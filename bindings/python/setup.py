"""How pip builds the package td (pyproject.toml): the extension td._td from
src/_td.c against libtd, a copy of libtd beside it, and td/_config.py.

The td it builds against is the first of these that answers:
  TD_PREFIX=DIR      an install of td (`cmake --install build --prefix DIR`)
  TD_BUILD_DIR=DIR   a build tree of td (relative: to the current directory)
  pkg-config td      an install that pkg-config knows (PKG_CONFIG_PATH)
  ../../build        this checkout's build, when it holds runtime/libtd.so.0 and tools/td/td

libtd is copied into the package and the extension finds it through the
rpath $ORIGIN: the installed package keeps working when the build tree it came
from is rebuilt, cleaned or moved, and a wheel made here can be installed
elsewhere. The loader matches libraries by soname, so a process that has
loaded libtd already (a C extension linked to it, LD_PRELOAD) still has one
libtd: the copy is not loaded then. The td command is not copied (td.load()
runs it, and an installed td finds its files relative to itself): _config.py
holds its absolute path; TD_CLI or PATH stand in when that path is gone.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def soname_file(libdir):
    """libdir's libtd.so.N (the soname the extension asks for), or None."""
    found = sorted(p for p in Path(libdir).glob("libtd.so.*") if re.fullmatch(r"libtd\.so\.\d+", p.name))
    return found[0] if found else None


def pc_version(libdir):
    pc = Path(libdir) / "pkgconfig" / "td.pc"
    match = re.search(r"^Version:\s*(\S+)", pc.read_text(), re.M) if pc.is_file() else None
    return match.group(1) if match else None


def from_prefix(prefix):
    prefix = Path(prefix).resolve()
    lib = prefix / "lib"
    for libdir in [lib, prefix / "lib64", *sorted(lib.glob("*-linux-*"))]:
        if soname_file(libdir):
            return dict(where=f"TD_PREFIX={prefix}", version=pc_version(libdir), include=prefix / "include",
                        libdir=libdir, cli=prefix / "bin" / "td")
    raise SystemExit(f"td: TD_PREFIX={prefix}: no libtd.so.N under {lib} or lib64; "
                     f"install td there first (cmake --install BUILD --prefix {prefix})")


def from_pkg_config():
    def variable(*args):
        return subprocess.run(["pkg-config", *args, "td"], capture_output=True, text=True,
                              check=True).stdout.strip()
    try:
        libdir, include, prefix, version = (variable("--variable=libdir"), variable("--variable=includedir"),
                                            variable("--variable=prefix"), variable("--modversion"))
    except (OSError, subprocess.CalledProcessError):
        return None  # no pkg-config, or it knows no td
    prefix = Path(prefix).resolve()  # td.pc's is ${pcfiledir}/../..
    return dict(where=f"pkg-config td ({prefix})", version=version, include=Path(include).resolve(),
                libdir=Path(libdir).resolve(), cli=prefix / "bin" / "td")


def from_build(build, said):
    build = Path(build).resolve()
    cache = build / "CMakeCache.txt"
    if not cache.is_file() or not soname_file(build / "runtime"):
        raise SystemExit(f"td: {said}={build} is not a build of td with libtd built "
                         f"(cmake --build {build} --target td td_cli)")
    values = dict(re.findall(r"^(CMAKE_PROJECT_VERSION|td_SOURCE_DIR):\w+=(.*)$", cache.read_text(), re.M))
    return dict(where=f"{said}={build}", version=values.get("CMAKE_PROJECT_VERSION"),
                include=Path(values["td_SOURCE_DIR"]) / "sdk" / "include", libdir=build / "runtime",
                cli=build / "tools" / "td" / "td")


def find_td():
    if os.environ.get("TD_PREFIX"):
        return from_prefix(os.environ["TD_PREFIX"])
    if os.environ.get("TD_BUILD_DIR"):
        return from_build(os.environ["TD_BUILD_DIR"], "TD_BUILD_DIR")
    td = from_pkg_config()
    if td:
        return td
    build = HERE.parent.parent / "build"
    if soname_file(build / "runtime") and (build / "tools" / "td" / "td").is_file():
        return from_build(build, "default TD_BUILD_DIR")
    raise SystemExit("td: no td to build against: set TD_PREFIX=DIR (an install of td) or "
                     "TD_BUILD_DIR=DIR (a build of td), or PKG_CONFIG_PATH to find td.pc")


TD = find_td()
if not (Path(TD["include"]) / "td" / "td.h").is_file():
    raise SystemExit(f"td: {TD['where']}: no td/td.h under {TD['include']}")
print(f"td: building against {TD['where']}: td {TD['version']}, libtd in {TD['libdir']}")


class BuildExt(build_ext):
    """The extension, then libtd.so.N beside it (the file, not the link)."""

    def run(self):
        super().run()
        library = soname_file(TD["libdir"])
        package = Path(self.build_lib) / "td"
        package.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library.resolve(), package / library.name)


class BuildPy(build_py):
    """td/_config.py from _config.py.in: the version and the td command's absolute path."""

    def run(self):
        super().run()
        cli = Path(TD["cli"])
        text = (HERE / "td" / "_config.py.in").read_text()
        text = text.replace("@PROJECT_VERSION@", TD["version"] or "0")
        text = text.replace("@TD_PYTHON_CLI@", str(cli) if cli.is_file() else "")
        (Path(self.build_lib) / "td" / "_config.py").write_text(text)


setup(
    version=TD["version"] or "0",
    ext_modules=[Extension(
        # libtd.so.N by its path: no libtd.so link is needed, as in an install without it.
        "td._td", ["src/_td.c"], include_dirs=[str(TD["include"])], extra_objects=[str(soname_file(TD["libdir"]))],
        runtime_library_dirs=["$ORIGIN"], py_limited_api=True, extra_compile_args=["-std=gnu11", "-fvisibility=hidden"])],
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy},
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
)

#!/usr/bin/env bash
# `pip install ./bindings/python` as the README describes it, offline: a
# fresh venv, the package built with --no-build-isolation --no-index against
# this build tree (TD_BUILD_DIR), then a script outside td's tree records a
# region 7 times. Its file must be named after the script,
# td-pip_consumer-PID.json; `python -c` keeps the interpreter's name; the
# package must be the venv's, with its own copy of libtd, and td.load() must
# read the region's 7 calls. setuptools builds in place, so the sources are
# copied into the scratch directory; pip's cache is off and its temporary
# files go there too: nothing is written outside it.
#
# Usage: python_pip.sh BUILD_DIR SOURCE_DIR PYTHON
# PYTHON, else the first python3 on PATH, that can build a wheel offline
# (setuptools ≥ 61 with wheel, or setuptools ≥ 70.1, and pip) makes the venv,
# with --system-site-packages to reach them; none can: skipped (exit 77).
set -euo pipefail
test_name="python_pip"
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() {
  echo "$test_name: $*" >&2
  exit 1
}

can_build='import sys, setuptools, pip
major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
try:
    import wheel
except ImportError:
    wheel = None
sys.exit(0 if (major, minor) >= (70, 1) or (major >= 61 and wheel) else 1)'
python=
tried=" "
for candidate in "$3" $(type -ap python3); do
  case $tried in *" $(realpath "$candidate") "*) continue ;; esac
  tried="$tried$(realpath "$candidate") "
  if "$candidate" -c "$can_build" 2>/dev/null; then
    python=$candidate
    break
  fi
  echo "$test_name: $candidate cannot build a wheel offline (it needs pip, and setuptools ≥ 61 with wheel)"
done
[ -n "$python" ] || { echo "$test_name: skipped: no Python here builds wheels offline"; exit 77; }

export TMPDIR="$scratch/tmp" XDG_CACHE_HOME="$scratch/cache" PIP_CONFIG_FILE=/dev/null
mkdir -p "$TMPDIR" "$scratch/run"
unset PYTHONPATH TD_CLI TD_PREFIX PKG_CONFIG_PATH
cp -r "$source/bindings/python" "$scratch/src"
rm -rf "$scratch/src/build" "$scratch/src"/*.egg-info
"$python" -m venv --without-pip --system-site-packages "$scratch/venv" || fail "$python -m venv failed"
venv_python="$scratch/venv/bin/python"

start=$(date +%s%N)
TD_BUILD_DIR="$build" "$venv_python" -m pip install --no-build-isolation --no-index --no-cache-dir \
  --disable-pip-version-check "$scratch/src" >"$scratch/pip.log" 2>&1 ||
  { cat "$scratch/pip.log" >&2; fail "pip install failed"; }
echo "pip install with $python: $(( ($(date +%s%N) - start) / 1000000 )) ms"

# The venv's package, its own libtd, and the build's td command.
where=$(cd "$scratch/run" && "$venv_python" -c 'import td, td._td, td._config
print(td.__file__); print(td._config.TD_CLI)
print(next(l.split()[-1] for l in open("/proc/self/maps") if "/libtd.so" in l))')
package=$(sed -n 1p <<<"$where" | xargs dirname)
case $package in "$scratch/venv/"*) ;; *) fail "imported td from $package, not the venv" ;; esac
[ "$(sed -n 3p <<<"$where")" = "$package/libtd.so.0" ] || fail "libtd loaded from $(sed -n 3p <<<"$where")"
[ "$(sed -n 2p <<<"$where")" = "$build/tools/td/td" ] || fail "the package uses td command $(sed -n 2p <<<"$where")"

# A script: its recording is named after it, and td.load() reads it.
cat >"$scratch/run/pip_consumer.py" <<'EOF'
import os

import td

for i in range(7):
    with td.region("x"):
        sum(range(1000))
print(os.getpid())
EOF
cd "$scratch/run"
pid=$(TD_OUTPUT=none TD_JSON=1 "$venv_python" pip_consumer.py)
json="$scratch/run/td-pip_consumer-$pid.json"
[ -f "$json" ] || fail "no $json; there is: $(ls "$scratch/run")"
calls=$("$venv_python" -c 'import sys, td
run = td.load(sys.argv[1])
print(run.program["name"], run.region("x")["calls"])' "$json")
[ "$calls" = "pip_consumer 7" ] || fail "td.load() of $json gave (name, calls of x) $calls, expected pip_consumer 7"
echo "pip_consumer.py: td-pip_consumer-$pid.json, td.load() reads 7 calls of x"

# python -c: no script to name the run after, so the process's name stays.
rm -f td-*.json
pid=$(TD_OUTPUT=none TD_JSON=1 "$venv_python" -c 'import os, td
with td.region("x"):
    pass
print(os.getpid())')
[ -f "td-python-$pid.json" ] || fail "python -c: no td-python-$pid.json; there is: $(ls)"
echo "python -c: td-python-$pid.json"

#!/usr/bin/env bash
# The Python binding as the README describes it: a script written outside
# td's tree (python_consumer.py, copied out) runs with the package installed
# by `cmake --install` (PYTHONPATH=PREFIX/lib/python3.X/site-packages), or
# with the build tree's (PYTHONPATH=BUILD/bindings/python). Its JSON must hold
# the exact calls for nested regions, a decorator, a loop, regions left by
# exceptions, a sweep and threads; each kind of bad input must have printed
# exactly one warning line and raised nothing; td.load() must agree with
# `td report --json`.
#
# Usage: python_binding.sh installed|build-tree BUILD_DIR TESTS_DIR PYTHON
set -euo pipefail
mode=$1
test_name="python_binding ($mode)"
build=$(cd "$2" && pwd)
here=$(cd "$3" && pwd)
python=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=common.sh
. "$here/common.sh"

if [ "$mode" = installed ]; then
  prefix="$scratch/prefix"
  install_build "$prefix"
  package_root=$(under "$prefix" "$(cache_value TD_PYTHON_INSTALL_DIR)")
  cli=$(under "$prefix" "$(cache_value CMAKE_INSTALL_BINDIR)")/td
  libdir=$(under "$prefix" "$(cache_value CMAKE_INSTALL_LIBDIR)")
else
  package_root="$build/bindings/python"
  cli="$build/tools/td/td"
  libdir=$(dirname "$(find "$build/runtime" -maxdepth 1 -name 'libtd.so.*.*' | head -n 1)")
fi
export PYTHONPATH="$package_root"
unset TD_CLI

# The package, its extension and the td command it uses are the ones meant.
where=$("$python" -c 'import td, td._td, td._config; print(td.__file__); print(td._td.__file__); print(td._config.TD_CLI)')
[ "$(sed -n 1p <<<"$where")" = "$package_root/td/__init__.py" ] || fail "imported td from $(sed -n 1p <<<"$where")"
loads_from "extension" "$(sed -n 2p <<<"$where")" libtd "$libdir"
[ "$(realpath "$(sed -n 3p <<<"$where")")" = "$(realpath "$cli")" ] ||
  fail "the package uses the td command $(sed -n 3p <<<"$where"), expected $cli"

cp "$here/python_consumer.py" "$scratch/consumer.py"
json=$(run_recorded "consumer" "$scratch/out" "$python" "$scratch/consumer.py")
"$python" "$here/check_counts.py" "$json" outer=1 outer/middle=3 outer/middle/inner=12 outer/decorated=7 \
  outer/loop_body=1000 outer/raises=2 "outer/sweep[1]=1" "outer/sweep[2]=2" "outer/sweep[3]=3" \
  "outer/sweep[4]=4" thread_work=10x3 || fail "wrong counts"
"$python" -c 'import json, sys
run = json.load(open(sys.argv[1]))
every = {r["path"]: r.get("sample_every", 0) for r in run["regions"]}
assert every["outer/loop_body"] == 10 and every["outer"] == 0, every' "$json" || fail "td.sample did not set loop_body's interval"
echo "python_consumer.py: ran, exact counts in its JSON"

# One line per kind of bad input, each said once though repeated.
stderr="$scratch/out.stderr"
for pattern in 'td: warning: td\.begin(): a region name must be a str, not int; ignored' \
               'td: warning: td\.end(): a region name must be a str, not NoneType; ignored' \
               'td: warning: td\.region(): a region name must be a str, not bytes; ignored' \
               "td: warning: td\.region('nul\\\\x00name'): a td region name cannot hold a NUL character; ignored" \
               "td: warning: td\.begin('sweep', \.\.\.): the parameter must be an int, not str; ignored" \
               'td: warning: TD_REGION_END("never_begun") .*not open'; do
  n=$(grep -c -e "^$pattern" "$stderr" || true)
  [ "$n" = 1 ] || { cat "$stderr" >&2; fail "expected one line matching \"$pattern\" on stderr, found $n"; }
done
others=$(grep -v -e '^td: warning: td\.\(begin\|end\|region\)(' -e '^td: warning: TD_REGION_END("never_begun")' \
              -e '^td: \(hardware counters unavailable\|wrote\)' "$stderr" || true)
[ -z "$others" ] || { cat "$stderr" >&2; fail "unexpected lines on stderr: $others"; }
if grep -q 'Traceback' "$stderr"; then fail "an exception was raised"; fi
echo "bad input: one warning line per kind, no exception"

"$python" "$here/python_load_check.py" "$cli" "$json" || fail "td.load() disagrees with td report --json"

# Shared by the bindings' tests: the build's cached settings, an install of
# the build into a scratch prefix, and the checks on a run's output.
# Expects $build (the build directory) and $scratch (a scratch directory).

fail() {
  echo "$test_name: $*" >&2
  exit 1
}

cache_value() {  # NAME: the build's cached value of NAME, empty if unset
  sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt" | head -n 1
}

# install_build PREFIX: `cmake --install` of the build into PREFIX.
install_build() {
  cmake --install "$build" --prefix "$1" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log" >&2; fail "cmake --install $build failed"; }
}

# under PREFIX DIR: DIR (a CMAKE_INSTALL_* value) as installed under PREFIX.
under() {
  case $2 in /*) echo "$2" ;; *) echo "$1/$2" ;; esac
}

# run_recorded WHAT OUT COMMAND…: runs COMMAND in OUT with td writing its
# JSON there (no text report), stderr kept in OUT.stderr; prints the JSON's path.
run_recorded() {
  local what=$1 out=$2
  shift 2
  mkdir -p "$out"
  (cd "$out" && TD_OUTPUT=none TD_JSON=1 TD_OUTPUT_DIR="$out" "$@") >"$out.stdout" 2>"$out.stderr" ||
    { cat "$out.stdout" "$out.stderr" >&2; fail "$what: $* failed"; }
  local reports=("$out"/td-*.json)
  [ ${#reports[@]} -eq 1 ] && [ -f "${reports[0]}" ] ||
    fail "$what: expected one JSON report in $out, found ${#reports[@]}"
  echo "${reports[0]}"
}

# loads_from WHAT FILE LIBRARY DIR: FILE loads LIBRARY (libtd.so…) from DIR.
loads_from() {
  local loaded
  loaded=$(ldd "$2" | sed -n "s/^[[:space:]]*$3\.so[^ ]* => \([^ ]*\) .*/\1/p")
  [ -n "$loaded" ] || fail "$1: $2 does not load $3"
  [ "$(realpath "$(dirname "$loaded")")" = "$(realpath "$4")" ] ||
    fail "$1: $2 loads $loaded, expected it from $4"
}

# Sourced by the MPI test scripts after they set `name` and read their
# arguments: skips (exit 77, saying why) where mpicc, mpirun or libtd-mpi is
# missing, makes the scratch folder `dir`, defines fail() and sets mpirun's `flags`.
skip() { echo "$name: skipped: $*"; exit 77; }
[ -z "${TD_MPI_TEST_SKIP:-}" ] || skip "$TD_MPI_TEST_SKIP"
[ -n "$mpicc" ] && [ -x "$mpicc" ] || skip "mpicc not found (Debian: libopenmpi-dev)"
[ -n "$mpirun" ] && [ -x "$mpirun" ] || skip "mpirun not found (Debian: openmpi-bin)"
[ "$libtdmpi" != none ] && [ -f "$libtdmpi" ] || skip "libtd-mpi was not built (CMake found no MPI)"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A failed check: its line, then every *.txt the test left in `dir` (a script
# may define its own after sourcing this).
fail() {
  echo "$name ${mode:-}: $*" >&2
  for f in "$dir"/*.txt; do [ -f "$f" ] && { echo "== $f" >&2; cat "$f" >&2; }; done
  exit 1
}
# mpirun's flags for more ranks than CPUs (and as root, where the tests run
# so); Open MPI's session directory under TMPDIR, one per test.
flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
export TMPDIR="$dir"

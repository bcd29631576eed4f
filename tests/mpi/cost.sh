# Sourced by the `cost` modes of mpi_time.sh (C) and mpi_fortran.sh
# (Fortran), after mpirun, flags, dir and fail() are set:
#   wrapped_call_cost LABEL PLAIN TIMED
# runs `PROG cost 200000` (one rank; the program prints "ns_per_call=X") 3
# times each for PLAIN (without libtd-mpi) and TIMED (with it), keeps each
# one's lowest (the run least disturbed by the machine), prints both and
# their difference, what a wrapped call costs, and fails where that reaches 1 µs.
best_ns_per_call() {
  local prog=$1 b="" v
  for _ in 1 2 3; do
    v=$("$mpirun" "${flags[@]}" -np 1 -x TD_OUTPUT=none "$prog" cost 200000 2>>"$dir/err.txt" |
      sed -n 's/^ns_per_call=//p')
    [ -n "$v" ] || fail "no measurement from $prog"
    b=$(python3 -c "print(min(float('$v'), float('${b:-1e18}')))")
  done
  echo "$b"
}

wrapped_call_cost() {
  local label=$1 plain timed
  plain=$(best_ns_per_call "$2") || exit 1
  timed=$(best_ns_per_call "$3") || exit 1
  python3 - "$label" "$plain" "$timed" <<'PY' || fail "cost"
import sys
label, plain, timed = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
print("%s: %.1f ns without libtd-mpi, %.1f ns with: %.1f ns per wrapped call" % (label, plain, timed, timed - plain))
assert timed - plain < 1000, (plain, timed)
PY
}

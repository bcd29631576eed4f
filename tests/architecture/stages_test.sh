#!/bin/bash
# The stage check of runtime/layers.cmake must fail when it should: a header
# included against the order, a folder missing from the table, a cycle in the
# table. Each case runs the check on a small tree made here and expects its
# exact line. Usage: stages_test.sh <cmake> <source dir>
set -u
cmake=$1
layers=$2/runtime/layers.cmake
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# A runtime tree with every stage folder and one header per folder.
make_tree() {
  rm -rf "$work/runtime"
  for stage in base machine uarch counters regions model analysis report core; do
    mkdir -p "$work/runtime/$stage"
    printf '// %s\n' "$stage" > "$work/runtime/$stage/$stage.h"
  done
  cp "$layers" "$work/runtime/layers.cmake"
}

expect() {  # expect <name> <expected text or "ok">
  local out
  out=$("$cmake" -DRUNTIME_DIR="$work/runtime" -P "$work/runtime/layers.cmake" 2>&1)
  local rc=$?
  if [ "$2" = ok ]; then
    if [ $rc -ne 0 ]; then echo "FAIL $1: rejected a tree that follows the order:"; echo "$out"; failed=1; return; fi
  elif [ $rc -eq 0 ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL $1: expected a failure saying: $2"; echo "got (exit $rc):"; echo "$out"; failed=1; return
  fi
  echo "ok $1"
}

make_tree
echo '#include "runtime/base/base.h"' >> "$work/runtime/core/core.h"
echo '#include "runtime/model/model.h"' >> "$work/runtime/analysis/analysis.h"
echo '#include "runtime/counters/counters.h"' >> "$work/runtime/model/model.h"  # through regions' use
expect "includes along the order" ok

make_tree
echo '#include "runtime/core/core.h"' >> "$work/runtime/base/base.h"
expect "back-edge base -> core" "runtime/base/base.h includes from core/, which base/ does not use"

make_tree
echo '#include "runtime/report/report.h"' >> "$work/runtime/analysis/analysis.h"
expect "back-edge analysis -> report" "runtime/analysis/analysis.h includes from report/, which analysis/ does not use"

make_tree
echo '#include "runtime/counters/counters.h"' >> "$work/runtime/uarch/uarch.h"
expect "sideways uarch -> counters" "runtime/uarch/uarch.h includes from counters/, which uarch/ does not use"

make_tree
mkdir "$work/runtime/extras"
expect "folder outside the table" "runtime/extras/ is not a stage in runtime/layers.cmake"

make_tree
sed -i 's/^set(TD_LAYER_USES_machine base)/set(TD_LAYER_USES_machine base core)/' "$work/runtime/layers.cmake"
expect "cycle in the table" "uses itself through a cycle"

exit $failed

#!/bin/bash
# The check of runtime/layers.cmake must fail when it should: a header
# included against the order in runtime/, tools/ or bindings/, a header that
# is not a stage's entry point included from outside runtime/, an include
# upwards, a folder missing from the table, a cycle in the table. Each case
# runs the check on a small tree made here, with the real table and one
# header per stage and per outer folder, and expects its exact line.
# Usage: stages_test.sh <cmake> <source dir>
set -u
cmake=$1
layers=$2/runtime/layers.cmake
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# The table's own lists, so that the tree follows the table as it is.
stages=$(sed -n 's/^set(TD_RUNTIME_LAYERS \(.*\))$/\1/p' "$layers")
[ -n "$stages" ] || { echo "FAIL: no TD_RUNTIME_LAYERS in $layers"; exit 1; }

make_tree() {
  rm -rf "$work/runtime" "$work/tools" "$work/bindings"
  for stage in $stages; do
    mkdir -p "$work/runtime/$stage"
    printf '// %s\n' "$stage" > "$work/runtime/$stage/$stage.h"
  done
  mkdir -p "$work/tools/td" "$work/bindings/mpi"
  echo '// a tool' > "$work/tools/td/tool.cc"
  echo '// a binding' > "$work/bindings/mpi/binding.cc"
  cp "$layers" "$work/runtime/layers.cmake"
}

expect() {  # expect <name> <expected text or "ok">
  local out
  out=$("$cmake" -DSOURCE_DIR="$work" -P "$work/runtime/layers.cmake" 2>&1)
  local rc=$?
  if [ "$2" = ok ]; then
    if [ $rc -ne 0 ]; then echo "FAIL $1: rejected a tree that follows the order:"; echo "$out"; failed=1; return; fi
  elif [ $rc -eq 0 ] || ! grep -qF -- "$2" <<<"$out"; then
    echo "FAIL $1: expected a failure saying: $2"; echo "got (exit $rc):"; echo "$out"; failed=1; return
  fi
  echo "ok $1"
}

# runtime/
make_tree
echo '#include "runtime/base/base.h"' >> "$work/runtime/driver/driver.h"
echo '#include "runtime/recorded/recorded.h"' >> "$work/runtime/analysis/analysis.h"
echo '#include "runtime/counters/counters.h"' >> "$work/runtime/recorded/recorded.h"  # through regions' use
echo '#include "runtime/job/job.h"' >> "$work/runtime/report/report.h"
echo '#include "runtime/driver/config.h"' >> "$work/tools/td/tool.cc"
echo '#include "runtime/report/text_report.h"' >> "$work/tools/td/tool.cc"
echo '#include "tools/td/tool.h"' >> "$work/tools/td/tool.cc"
echo '#include "runtime/driver/mpi_api.h"' >> "$work/bindings/mpi/binding.cc"
echo '#include "td/td.h"' >> "$work/bindings/mpi/binding.cc"
expect "includes along the order" ok

make_tree
echo '#include "runtime/driver/driver.h"' >> "$work/runtime/base/base.h"
expect "back-edge base -> driver" "runtime/base/base.h includes from driver/, which base/ does not use"

make_tree
echo '#include "runtime/report/report.h"' >> "$work/runtime/analysis/analysis.h"
expect "back-edge analysis -> report" "runtime/analysis/analysis.h includes from report/, which analysis/ does not use"

make_tree
echo '#include "runtime/report/report.h"' >> "$work/runtime/job/job.h"
expect "back-edge job -> report" "runtime/job/job.h includes from report/, which job/ does not use"

make_tree
echo '#include "runtime/counters/counters.h"' >> "$work/runtime/uarch/uarch.h"
expect "sideways uarch -> counters" "runtime/uarch/uarch.h includes from counters/, which uarch/ does not use"

make_tree
mkdir "$work/runtime/extras"
expect "folder outside the table" "runtime/extras/ is not a stage in runtime/layers.cmake"

make_tree
sed -i 's/^set(TD_LAYER_USES_machine base)/set(TD_LAYER_USES_machine base driver)/' "$work/runtime/layers.cmake"
expect "cycle in the table" "uses itself through a cycle"

# Include lines written otherwise, and files deeper or of other kinds.
make_tree
printf '#if 1\n#  include "runtime/driver/driver.h"\n#endif\n' >> "$work/runtime/base/base.h"
expect "an indented include" "runtime/base/base.h includes from driver/, which base/ does not use"

make_tree
echo '#include <runtime/report/report.h>' >> "$work/runtime/uarch/uarch.h"
expect "an angle-bracket include" "runtime/uarch/uarch.h includes from report/, which uarch/ does not use"

make_tree
mkdir -p "$work/runtime/counters/detail"
echo '#include "runtime/driver/driver.h"' > "$work/runtime/counters/detail/inner.c"
expect "a C file one folder down" \
  "runtime/counters/detail/inner.c includes from driver/, which counters/ does not use"

# tools/ and bindings/
make_tree
echo '#include "tools/td/cli.h"' >> "$work/runtime/driver/driver.h"
expect "back-edge runtime -> tools" "runtime/driver/driver.h includes from tools/, which builds on the runtime"

make_tree
echo '#include "bindings/common/name_cache.h"' >> "$work/runtime/base/base.h"
expect "back-edge runtime -> bindings" "runtime/base/base.h includes from bindings/, which builds on the runtime"

make_tree
echo '#include "runtime/regions/thread_state.h"' >> "$work/tools/td/tool.cc"
expect "tools -> regions (no entry points)" "tools/td/tool.cc includes from runtime/regions/, which tools/ does not use"

make_tree
echo '#include "runtime/report/counter_text.h"' >> "$work/tools/td/tool.cc"
expect "tools -> a stage's inner header" \
  "tools/td/tool.cc includes runtime/report/counter_text.h, which is not an entry point of runtime/report/"

make_tree
echo '#include "runtime/report/text_report.h"' >> "$work/bindings/mpi/binding.cc"
expect "bindings -> report" "bindings/mpi/binding.cc includes from runtime/report/, which bindings/ does not use"

make_tree
echo '#include "tools/td/cli.h"' >> "$work/bindings/mpi/binding.cc"
expect "bindings -> tools" "bindings/mpi/binding.cc includes from tools/, which bindings/ does not use"

make_tree
echo '#include "bindings/common/name_cache.h"' >> "$work/tools/td/tool.cc"
expect "tools -> bindings" "tools/td/tool.cc includes from bindings/, which tools/ does not use"

make_tree
sed -i 's/^set(TD_OUTER_USES_bindings driver)/set(TD_OUTER_USES_bindings driver extras)/' "$work/runtime/layers.cmake"
expect "outer row naming no stage" "bindings uses extras, which is not a stage"

exit $failed

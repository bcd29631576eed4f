#!/usr/bin/env bash
# The README's first command: installs what is missing, builds the td library,
# the `td` tool and the samples into build/, runs the matmul case study and
# prints its report, then the commands to try next.
# Usage: scripts/demo.sh [N]   (matrix size, default the sample's own)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

# Tests and benchmarks are left to scripts/test.sh, which adds them to this
# same build folder, so nothing is compiled twice.
source scripts/ccache.sh
echo "== configuring and building td in build/ =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
cmake --build build --target td td_cli td_samples

demo_dir=build/demo
mkdir -p "$demo_dir"
rm -f "$demo_dir"/td-td_matmul-*.json
echo
echo "== running samples/matmul (the report goes to stderr, the JSON to $demo_dir/) =="
(cd "$demo_dir" && ../samples/td_matmul "$@")

json=$(ls -t "$demo_dir"/td-td_matmul-*.json 2>/dev/null | head -n 1 || true)
if [ -z "$json" ]; then
  echo "demo: the sample ran but left no JSON in $demo_dir" >&2
  exit 1
fi
cat <<EOF

== next ==
The recorded run is $json. Try:
  build/tools/td/td report $json --html $demo_dir/matmul.html   # open it in a browser
  build/tools/td/td compare $json --regions multiply1,multiply2,multiply3
  build/tools/td/td explain Memory_Bound
The tutorial (docs/tutorial.md) walks through every sample; the tests run with: bash scripts/test.sh
EOF

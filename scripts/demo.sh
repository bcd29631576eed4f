#!/usr/bin/env bash
# Installs dependencies, builds td, runs the matmul sample and prints its report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target td_matmul
echo
echo "== running samples/matmul (report below; JSON in build/demo/) =="
mkdir -p build/demo
(cd build/demo && ../samples/matmul/td_matmul "${1:-384}")

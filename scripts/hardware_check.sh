#!/usr/bin/env bash
# What td measures on a machine, for docs/hardware/: builds td (unless given
# a bundle), runs `td doctor` (text and JSON), `td doctor --self-test`, the
# matmul and branches samples under `td run`, and, from a build, the tests
# that need a PMU; writes everything to OUT (default hardware-report/).
#
#   bash scripts/hardware_check.sh [OUT]            build here, then check
#   bash scripts/hardware_check.sh --bundle DIR     make DIR: td, its kernels,
#        two samples, libtd and the shared libraries they need (not glibc),
#        and this script, for a host that has no compiler or packages
#   bash DIR/hardware_check.sh [OUT]                check with that bundle
set -uo pipefail
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
here=$(cd "$(dirname "$0")" && pwd)

if [ "${1:-}" = "--bundle" ]; then
  dir=${2:?usage: hardware_check.sh --bundle DIR}
  cd "$here/.."
  bash scripts/install-deps.sh || exit 1
  cmake -S . -B build-hardware -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null || exit 1
  cmake --build build-hardware --target td_cli td_self_test td_samples || exit 1
  mkdir -p "$dir/bin" "$dir/lib"
  for f in build-hardware/tools/td/td build-hardware/tools/td/td-self-test build-hardware/samples/td_matmul \
           build-hardware/samples/td_branches; do
    strip -o "$dir/bin/$(basename "$f")" "$f"
  done
  strip -o "$dir/lib/libtd.so.0" "$(readlink -f build-hardware/runtime/libtd.so.0)"
  ldd "$dir"/bin/* | awk '/=> \//{print $3}' | sort -u |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so|libtd\.so' | xargs -r -I{} cp -L {} "$dir/lib/"
  cp "$here/hardware_check.sh" "$dir/"
  echo "bundle in $dir ($(du -sh "$dir" | cut -f1)); on the host: bash $dir/hardware_check.sh OUT"
  exit 0
fi

out=$(mkdir -p "${1:-hardware-report}" && cd "${1:-hardware-report}" && pwd)
if [ -x "$here/bin/td" ]; then  # a bundle
  bin=$here/bin
  export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  build=""
else
  cd "$here/.."
  bash scripts/install-deps.sh || exit 1
  cmake -S . -B build-hardware -G Ninja -DCMAKE_BUILD_TYPE=Release -DTD_BUILD_TESTS=ON "${launcher[@]}" >/dev/null || exit 1
  cmake --build build-hardware || exit 1
  build=$PWD/build-hardware
  bin=$out/bin
  mkdir -p "$bin"
  ln -sf "$build/tools/td/td" "$build/tools/td/td-self-test" "$build/samples/td_matmul" \
    "$build/samples/td_branches" "$bin/"
fi
td=$bin/td
[ -L "$td" ] && td=$(readlink -f "$td")

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "kernel: $(uname -srm)"
  [ -r /etc/os-release ] && grep -m1 PRETTY_NAME /etc/os-release
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
  echo "td: $("$td" --version 2>&1)"
  git -C "$here/.." rev-parse --short HEAD 2>/dev/null | sed 's/^/commit: /'
  echo "kernel messages about the PMU:"
  dmesg 2>/dev/null | grep -i -E 'Performance Events|PMU|perf' | head -8 | sed 's/^/  /'
} > "$out/machine.txt" 2>&1
"$td" doctor > "$out/doctor.txt" 2>&1
"$td" doctor --json > "$out/doctor.json" 2>"$out/doctor-json.err"
"$td" doctor --self-test > "$out/self-test.txt" 2>&1
echo "self-test exit status: $?" >> "$out/self-test.txt"
(cd "$out" && timeout 300 "$td" run -- "$bin/td_matmul" 1024 > samples.txt 2>&1 &&
   timeout 300 "$td" run -- "$bin/td_branches" >> samples.txt 2>&1)
rm -f "$out"/td-td_*.json
if [ -n "$build" ]; then
  (cd "$build" && ctest -j"$(nproc)" --output-on-failure > "$out/ctest.txt" 2>&1)
  grep -E "tests passed|Skipped|\*\*\*Skipped" "$out/ctest.txt" | head -40 > "$out/ctest-summary.txt"
fi
cat "$out/machine.txt" "$out/doctor.txt"
tail -n 3 "$out/self-test.txt"
echo "hardware check written to $out"

#!/usr/bin/env bash
# Regenerates runtime/uarch/definitions/intel_depth_*.json: the Top-Down
# nodes (Levels 3-6) that td's own Intel definitions lack, translated by
# `td import-metrics --extend` from Linux perf's metric and event files.
# Source: Debian's linux-source-6.12 (tools/perf/pmu-events/arch/x86).
#
#   scripts/regenerate_depth.sh [BUILD_DIR]     (default: build)
#
# Needs the package (apt-get install linux-source-6.12) and a built td.
# Run it after changing td's own Intel files or the importer, and commit the
# result; the differential test (tests/unit/perf_metrics_diff_test.cc) checks
# the nodes against perf's expressions.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
td="$repo/$build/tools/td/td"
tarball=/usr/src/linux-source-6.12.tar.xz
[[ -x $td ]] || { echo "regenerate_depth: no td at $td (build first)" >&2; exit 1; }
[[ -f $tarball ]] || { echo "regenerate_depth: $tarball missing (apt-get install linux-source-6.12)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xJf "$tarball" -C "$work" --wildcards '*/Makefile' '*/tools/perf/pmu-events/arch/x86/*' 2>/dev/null ||
  tar -xJf "$tarball" -C "$work" --wildcards '*/tools/perf/pmu-events/arch/x86/*'
arch=$(echo "$work"/*/tools/perf/pmu-events/arch/x86)
# td key : perf's directory [: PMU of a hybrid part]
for entry in snb:sandybridge ivb:ivybridge hsw:haswell bdw:broadwell skl:skylake skx:skylakex \
             clx:cascadelakex icl:icelake icx:icelakex tgl:tigerlake spr:sapphirerapids \
             emr:emeraldrapids adl_glc:alderlake:cpu_core; do
  IFS=: read -r key dir pmu <<<"$entry"
  out="$repo/runtime/uarch/definitions/intel_depth_$key.json"
  # The importer reads td's embedded files: an older output of this key is left out there.
  "$td" import-metrics --extend --uarch "$key" ${pmu:+--pmu "$pmu"} --out "$out" "$arch/$dir" 2> "$work/$key.log" || {
    cat "$work/$key.log" >&2
    exit 1
  }
  tail -n 1 "$work/$key.log"
done

#!/usr/bin/env bash
# Regenerates runtime/uarch/definitions/arm_neoverse_v3.json: Neoverse V3's
# Level 1, translated by `td import-metrics` from Linux perf's arm64 metric
# files in tests/data/perf-metrics (the V3 file, newer than 6.12, whose
# ArchStdEvent entries override 6.12's sbsa.json; see that folder's README).
#
#   scripts/regenerate_arm.sh [BUILD_DIR]     (default: build)
#
# The output depends on those files and td only: run it after changing the
# importer and commit the result; tests/unit/perf_metrics_arm_amd_test.cc
# checks that the shipped file is current and agrees with the V3 file's
# formulas. N1, N2, V1 and V2 keep their hand-written definitions
# (arm_neoverse.json): perf's N2/V2 file tells N2's erratum revisions apart
# with strcmp_cpuid_str, which the import does not translate, and the
# hand-written keys carry thresholds and nodes perf's files lack.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
td="$repo/$build/tools/td/td"
[[ -x $td ]] || { echo "regenerate_arm: no td at $td (build first)" >&2; exit 1; }
# Relative inputs, so the file names its sources the same way on every machine.
cd "$repo"
data=tests/data/perf-metrics/arm64
# Part 0xd84 (MIDR 0x410fd84x); perf's #slots is the PMU's caps/slots, 10 on V3
# (the V3 file's own formulas divide by 10 * CPU_CYCLES).
"$td" import-metrics --uarch neoverse_v3 --cpu 0x41:0xd84 --slots 10 \
  --origin "Linux perf's arm64 pmu-events: arm/neoverse-v3/metrics.json from a kernel tree after 6.12, sbsa.json from 6.12.117 (GPL-2.0)" \
  --out runtime/uarch/definitions/arm_neoverse_v3.json "$data/arm/neoverse-v3/metrics.json" "$data/sbsa.json"

#!/usr/bin/env bash
# Regenerates td's Intel Top-Down trees from Intel's perfmon data in perf's
# format, translated by `td import-metrics`:
# - runtime/uarch/definitions/intel_<key>.json for the CPUs td's own
#   definitions do not cover (Granite Rapids, Sierra Forest, Grand Ridge, Rocket
#   Lake, and the P- and E-cores of Meteor, Lunar and Arrow Lake);
# - runtime/uarch/definitions/intel_vendor_<key>.json, the current TMA tree of
#   each key td defines itself (Skylake to Emerald Rapids and Alder Lake), laid
#   over td's perf 6.12 formulas, which stay as the older version's fallback.
#
#   scripts/regenerate_vendor.sh VENDOR_DIR [BUILD_DIR]     (default: build)
#
# VENDOR_DIR holds intel-perfmon/ (mapfile.csv, <P>/metrics/*.json with their
# TmaVersion, E-core_TMA_Metrics.csv) and intel-perfmon-perf-format/ (perfmon's
# create_perf_json.py output per platform), e.g. the vendor-metrics-2026 folder
# of the shared reference data. The output depends on those files and td only:
# run it after changing the importer and commit the result; the differential
# test (tests/unit/perf_metrics_vendor_test.cc) checks the nodes against the
# vendor's expressions.
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: regenerate_vendor.sh VENDOR_DIR [BUILD_DIR]" >&2; exit 2; }
vendor=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-build}
td="$repo/$build/tools/td/td"
perfmon="$vendor/intel-perfmon"
[[ -x $td ]] || { echo "regenerate_vendor: no td at $td (build first)" >&2; exit 1; }
[[ -f $perfmon/mapfile.csv ]] || { echo "regenerate_vendor: $perfmon/mapfile.csv missing" >&2; exit 1; }
commit=$(grep -o 'at commit [0-9a-f]\{7,\}' "$vendor/README.md" | head -n 1 | cut -d' ' -f3)
[[ -n $commit ]] || { echo "regenerate_vendor: no perfmon commit in $vendor/README.md" >&2; exit 1; }
origin="Intel perfmon $commit (github.com/intel/perfmon, BSD-3-Clause), converted to perf's format by its create_perf_json.py"
ecore_version=$(head -n 1 "$perfmon/E-core_TMA_Metrics.csv" | tr -d '\r\357\273\277' | cut -d, -f3)

# The CPUIDs whose metrics perfmon's mapfile gives for platform P, as td's --cpu list.
cpus_of() {
  awk -F, -v p="/$1/metrics/" '$3 ~ p && $4 == "metrics" { split($1, id, "-"); print id[1] ":" id[2] ":0x" id[3] }' \
    "$perfmon/mapfile.csv" | sort -u | paste -sd, -
}
tma_version_of() {
  grep -ho '"TmaVersion": "[^"]*"' "$perfmon/$1"/metrics/*_metrics*.json | head -n 1 | cut -d'"' -f4
}

# td key : perf-format directory : perfmon platform : PMU : whole-part key : mode
# Mode "new": a key of its own, its CPUs from the mapfile. Mode "over": one of
# td's own keys (td import-metrics --supersede): the vendor's tree laid over
# td's, whose formulas stay as the older version's fallback.
entries=(
  gnr:graniterapids:GNR:::new srf:sierraforest:SRF:::new grr:grandridge:GRR:::new
  rkl:rocketlake:RKL:::new
  mtl_rwc:meteorlake:MTL:cpu_core:mtl:new mtl_cmt:meteorlake:MTL:cpu_atom:mtl:new
  lnl_lnc:lunarlake:LNL:cpu_core:lnl:new lnl_skt:lunarlake:LNL:cpu_atom:lnl:new
  arl_lnc:arrowlake:ARL:cpu_core:arl:new arl_skt:arrowlake:ARL:cpu_atom:arl:new
  skl:skylake:SKL:::over skx:skylakex:SKX:::over clx:cascadelakex:CLX:::over
  icl:icelake:ICL:::over tgl:tigerlake:TGL:::over icx:icelakex:ICX:::over
  spr:sapphirerapids:SPR:::over emr:emeraldrapids:EMR:::over
  adl_glc:alderlake:ADL:cpu_core::over adl_grt:alderlake:ADL:cpu_atom::over
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Relative inputs, so the files name their sources the same way on every machine.
cd "$vendor/intel-perfmon-perf-format"
for entry in "${entries[@]}"; do
  IFS=: read -r key dir platform pmu part mode <<<"$entry"
  # E-cores follow the E-core TMA: its spreadsheet's version for the hybrids' cpu_atom, the platform
  # file's for the all-E-core servers.
  case $pmu:$platform in
    cpu_atom:*) version="E-core $ecore_version" ;;
    :SRF | :GRR) version="E-core $(tma_version_of "$platform")" ;;
    *) version=$(tma_version_of "$platform") ;;
  esac
  args=(--uarch "$key" --tma-version "$version" --origin "$origin")
  if [[ $mode == over ]]; then
    args+=(--supersede)
    out="$repo/runtime/uarch/definitions/intel_vendor_$key.json"
  else
    args+=(--cpu "$(cpus_of "$platform")")
    out="$repo/runtime/uarch/definitions/intel_$key.json"
  fi
  [[ -n $pmu ]] && args+=(--pmu "$pmu")
  [[ -n $part ]] && args+=(--hybrid "$part")
  # Only Granite Rapids' event files carry retire latencies; Redwood Cove is
  # its core, and the Lion Cove parts get them as a labelled estimate too.
  [[ $pmu:$mode == cpu_core:new ]] && args+=(--retire-latencies graniterapids)
  "$td" import-metrics "${args[@]}" --out "$out" "$dir" 2> "$work/$key.log" || {
    cat "$work/$key.log" >&2
    exit 1
  }
  tail -n 1 "$work/$key.log"
done

# The differential test's copy (tests/unit/perf_metrics_vendor_test.cc): of
# each metrics file only the tma_* metrics and the fields a formula needs, and
# of Granite Rapids' events only their mean retire latencies; with the licence.
data="$repo/tests/data/vendor-metrics"
mkdir -p "$data"
cp "$perfmon/LICENSE" "$data/LICENSE"
python3 - "$data" graniterapids/gnr-metrics.json sierraforest/srf-metrics.json grandridge/grr-metrics.json \
  meteorlake/mtl-metrics.json lunarlake/lnl-metrics.json arrowlake/arl-metrics.json rocketlake/rkl-metrics.json \
  skylake/skl-metrics.json skylakex/skx-metrics.json cascadelakex/clx-metrics.json icelake/icl-metrics.json \
  tigerlake/tgl-metrics.json icelakex/icx-metrics.json sapphirerapids/spr-metrics.json \
  emeraldrapids/emr-metrics.json alderlake/adl-metrics.json <<'PY'
import glob, json, os, sys
data, files = sys.argv[1], sys.argv[2:]
keep = ("MetricName", "MetricExpr", "MetricThreshold", "MetricGroup", "ScaleUnit", "Unit")
def write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        json.dump(value, out, indent=1, sort_keys=True)
        out.write("\n")
for f in files:
    metrics = [{k: m[k] for k in keep if k in m} for m in json.load(open(f)) if m.get("MetricName", "").startswith("tma_")]
    write(os.path.join(data, f), metrics)
latencies = {}
for f in sorted(glob.glob("graniterapids/*.json")):
    for e in json.load(open(f)):
        if isinstance(e, dict) and "RetirementLatencyMean" in e:
            latencies[e["EventName"]] = e["RetirementLatencyMean"]
write(os.path.join(data, "graniterapids/retire-latencies.json"), latencies)
PY

#!/usr/bin/env bash
# The job view at scale (docs/hpc.md, "Scale"), end to end: RANKS rank files
# of one job, then `td report DIR` and its --csv, --json and --html timed
# three times each with /usr/bin/time: the median seconds and peak resident
# memory.
#
# Usage: job_view_scale.sh BUILD_DIR [RANKS (1024)] [WORK_DIR] [THREADS (8)] [real|derived]
# real (the default): td_job_rank_program (200 regions on THREADS threads)
#   run once per rank as rank r of a RANKS-rank job, two at a time per CPU:
#   every file is one td wrote, with the rank's summary in it
#   (runtime/job/rank_summary_file.h), which is what `td report DIR` reads.
# derived: one such file, and RANKS files derived from it by
#   job_rank_files.py (every part's numbers scaled; no summary, which the
#   script could not keep true): the job view then reads every part.
# THREADS: in td's layout 16 make files of about 0.6 MB, 27 of about 1 MB
# (docs/performance.md, "The job view"). WORK_DIR keeps the files for the
# next run (1,024 of 27 threads are 1 GB); without it a scratch folder is used.
# Also: `ninja -C BUILD_DIR td_job_view_scale`.
set -euo pipefail
build=$(cd "${1:?usage: job_view_scale.sh BUILD_DIR [RANKS] [WORK_DIR] [THREADS] [real|derived]}" && pwd)
ranks=${2:-1024}
threads=${4:-8}
kind=${5:-real}
case $kind in real | derived) ;; *) echo "job_view_scale: the fifth argument is real or derived, not $kind" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${3:-}" ]; then
  work=$3
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
td=$build/tools/td/td
program=$build/benchmarks/td_job_rank_program
time_tool=/usr/bin/time
[ -x "$time_tool" ] || { echo "job_view_scale: /usr/bin/time is missing (Debian: apt-get install time)" >&2; exit 1; }

# One rank's run: its file in $1, as rank $2 of the job.
run_rank() {
  (cd "$1" && env TD_OUTPUT=none OMPI_COMM_WORLD_RANK="$2" OMPI_COMM_WORLD_SIZE="$ranks" \
     PMIX_NAMESPACE=bench "$program" "$threads")
}

dir=$work/ranks-$ranks-t$threads-$kind
if [ "$(find "$dir" -name 'td-*.json' 2>/dev/null | wc -l)" != "$ranks" ]; then
  rm -rf "$work/template" "$dir"
  mkdir -p "$dir"
  if [ "$kind" = real ]; then
    echo "job_view_scale: running $ranks ranks of $threads threads…"
    export -f run_rank
    export program ranks threads
    seq 0 $((ranks - 1)) | xargs -P "$(( $(nproc) * 2 ))" -I{} bash -c 'run_rank "$0" {}' "$dir"
  else
    mkdir -p "$work/template"
    run_rank "$work/template" 0
    template=$(find "$work/template" -name 'td-*.json')
    echo "job_view_scale: one real rank file, $(stat -c %s "$template") bytes; deriving $ranks ranks' files…"
    python3 "$here/job_rank_files.py" "$template" "$dir" "$ranks"
  fi
fi
echo "job_view_scale: $ranks files ($kind), $(du -sh "$dir" | cut -f1) in $dir; $(nproc) CPUs"

for output in text --csv --json --html; do
  flags=()
  case $output in
    text) ;;
    --html) flags=(--html "$work/job.html") ;;
    *) flags=("$output") ;;
  esac
  results=()
  for run in 1 2 3; do
    "$time_tool" -f '%e %M' -o "$work/time" "$td" report "$dir" "${flags[@]}" > /dev/null 2> "$work/stderr" || {
      cat "$work/stderr" >&2
      exit 1
    }
    results+=("$(tail -n 1 "$work/time")")
  done
  printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
runs = [line.split() for line in sys.stdin if line.strip()]
seconds = [float(r[0]) for r in runs]
mb = [int(r[1]) / 1024 for r in runs]
each_s = " ".join("%.2f" % s for s in seconds)
each_mb = " ".join("%.0f" % m for m in mb)
print("td report DIR %6s: %.2f s median (%s), peak RSS %.0f MiB median (%s)"
      % (sys.argv[1], statistics.median(seconds), each_s, statistics.median(mb), each_mb))' "$output"
done

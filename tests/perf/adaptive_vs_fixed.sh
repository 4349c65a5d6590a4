#!/usr/bin/env bash
# Adaptive run length against a fixed one (a measurement): the ringbuf sample-rate
# sweep with `-w3s -d10s`, then `--precision PCT` (one run per point), then `--precision PCT
# --rounds 3` (CI over round means), then `-w3s -d10s` again; wall time of each, and
# `bpfbench compare` of each pair. The second fixed run is the control: its disagreements
# with the first are the machine's run-to-run drift, which no single run's CI contains
# (the other runs' disagreements are only meaningful next to it). Needs root; run it on a quiet machine — other load makes every point noisy
# and the adaptive run hit its max.
#
#   sudo tests/perf/adaptive_vs_fixed.sh [bpfbench] [precision] [outdir]
set -euo pipefail
bin=${1:-build/bpfbench}
pct=${2:-1%}
out=${3:-$(mktemp -d /tmp/bpfbench-adaptive-XXXXXX)}
src=$(cd "$(dirname "$0")/../.." && pwd)/examples/ringbufs.bdsl
mkdir -p "$out"

timed() {  # name, args...
  local name=$1; shift
  local s e
  s=$(date +%s.%N)
  "$bin" run "$src" --only 'rb-sampled-*' -q --json "$out/$name.json" "$@" >"$out/$name.out" 2>&1 || true
  e=$(date +%s.%N)
  printf '%-10s %8.1f s\n' "$name" "$(echo "$e - $s" | bc)"
}

verdicts() {  # a, b: "N of M differ" by compare's default threshold and alpha
  local n m
  "$bin" compare "$out/$1.json" "$out/$2.json" >"$out/$1-vs-$2.txt" || true
  n=$(grep -cE ' (faster|slower)$' "$out/$1-vs-$2.txt" || true)
  m=$(grep -cE ' (faster|slower|no change)$' "$out/$1-vs-$2.txt" || true)
  printf '%-20s %s of %s points differ (table: %s)\n' "$1 vs $2" "$n" "$m" "$out/$1-vs-$2.txt"
}

timed fixed -w3s -d10s
timed adaptive --precision "$pct"
timed rounds --precision "$pct" --rounds 3
timed fixed2 -w3s -d10s
verdicts fixed adaptive
verdicts fixed2 adaptive
verdicts fixed rounds
verdicts fixed2 rounds
verdicts fixed fixed2
"$bin" compare "$out/fixed.json" "$out/adaptive.json" --threshold 0 || true
echo "results in $out"

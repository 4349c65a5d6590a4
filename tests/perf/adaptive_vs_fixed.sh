#!/usr/bin/env bash
# Adaptive run length against a fixed one (issue 6's measurement): the ringbuf sample-rate
# sweep with `--precision PCT` and with `-w3 -d10`, wall time of each, then `bpfbench
# compare` of the two (no change everywhere = the numbers agree). Needs root; run it on a
# quiet machine — other load makes every point noisy and the adaptive run hit its max.
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
  "$bin" run "$src" --only rb-sampled- -q --json "$out/$name.json" "$@" >"$out/$name.out" 2>&1 || true
  e=$(date +%s.%N)
  printf '%-10s %8.1f s\n' "$name" "$(echo "$e - $s" | bc)"
}

timed fixed -w3 -d10
timed adaptive --precision "$pct"
"$bin" compare "$out/fixed.json" "$out/adaptive.json" --threshold 0 || true
echo "results in $out"

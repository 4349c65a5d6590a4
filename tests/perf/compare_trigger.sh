#!/bin/bash
# Fidelity check: runs bpfbench and the hand-written libbpf baseline (tests/perf/baseline.*)
# in alternating pairs on the same variants and prints, per variant, the median of the
# per-pair ratios bpfbench/baseline of the hits rate (1.00 = identical).
#
#   sudo tests/perf/compare_trigger.sh [BPFBENCH] [PAIRS] [DURATION_S]
# defaults: build/bpfbench, 5 pairs, 3 s (+1 s warmup) per run.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bpfbench=${1:-$root/build/bpfbench}
pairs=${2:-5}
dur=${3:-3}
source "$root/tests/perf/fidelity_lib.sh"
build_baseline baseline

header
# name:family:prog (the baseline takes the name as its variant)
for v in base:trigger:base tp:trigger:tp rawtp:trigger:rawtp uprobe-nop:uprobes:uprobe-nop; do
  IFS=: read -r name family prog <<<"$v"
  pair_runs "$name" "bench $family as \"$name\" < prog $prog; warmup 1s; duration ${dur}s; affinity; >" "$name"
done

#!/bin/bash
# Fidelity check of the ringbuf family's own consumers: bpfbench rb-custom / pb-custom in
# back-to-back mode against a minimal hand-written consumer of the same ring
# (tests/perf/ringbuf_baseline.*), run in alternating pairs; prints per variant the median
# of the per-pair ratios bpfbench/baseline of the hits rate (1.00 = identical).
#
#   sudo tests/perf/compare_ringbufs.sh [BPFBENCH] [PAIRS] [DURATION_S]
# defaults: build/bpfbench, 5 pairs, 3 s (+1 s warmup) per run.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bpfbench=${1:-$root/build/bpfbench}
pairs=${2:-5}
dur=${3:-3}
source "$root/tests/perf/fidelity_lib.sh"
build_baseline ringbuf_baseline

header
# name:prog:baseline mode
for v in rb-custom-b2b:reserve_commit:rb pb-custom-b2b:perfbuf:pb; do
  IFS=: read -r name prog mode <<<"$v"
  pair_runs "$name" "bench ringbuf as \"$name\" < prog $prog; consumer custom; back2back; warmup 1s; duration ${dur}s; affinity; >" "$mode"
done

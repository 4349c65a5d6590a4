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
work=$(mktemp -d /tmp/bpfbench-perf.XXXXXX)
trap 'rm -rf "$work"' EXIT

clang-19 -target bpf -O2 -g -D__TARGET_ARCH_x86 -I/usr/include/x86_64-linux-gnu \
  -c "$root/tests/perf/ringbuf_baseline.bpf.c" -o "$work/baseline.bpf.o"
cc -O2 -g -o "$work/baseline" "$root/tests/perf/ringbuf_baseline.c" -lbpf -lpthread -lm

# name:bpfbench settings:baseline mode
variants="rb-custom-b2b:prog_reserve_commit:rb pb-custom-b2b:prog_perfbuf:pb"

hits_of() { grep -o 'Summary: hits *[0-9.]*' | awk '{print $3}' | tail -n1; }
median() { printf "%s\n" "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

printf "%-14s %10s %10s %8s   (medians over %d pairs, %ds each)\n" variant bpfbench baseline ratio "$pairs" "$dur"
for v in $variants; do
  name=${v%%:*}; rest=${v#*:}; prog=${rest%%:*}; prog=${prog#prog_}; mode=${rest#*:}
  cat > "$work/one.bdsl" <<BDSL
bench ringbuf as "$name" < prog $prog; consumer custom; back2back; warmup 1s; duration ${dur}s; affinity; >
BDSL
  ours=(); theirs=(); ratios=()
  for ((i = 0; i < pairs; i++)); do
    a=$("$bpfbench" run "$work/one.bdsl" -q 2>/dev/null | hits_of)
    b=$("$work/baseline" "$work/baseline.bpf.o" "$mode" 1 "$dur" | hits_of)
    ours+=("$a"); theirs+=("$b")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')")
  done
  printf "%-14s %10.3f %10.3f %8.3f\n" "$name" "$(median "${ours[@]}")" "$(median "${theirs[@]}")" "$(median "${ratios[@]}")"
done

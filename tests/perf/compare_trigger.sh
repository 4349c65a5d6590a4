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
work=$(mktemp -d /tmp/bpfbench-perf.XXXXXX)
trap 'rm -rf "$work"' EXIT

clang-19 -target bpf -O2 -g -D__TARGET_ARCH_x86 -I/usr/include/x86_64-linux-gnu \
  -c "$root/tests/perf/baseline.bpf.c" -o "$work/baseline.bpf.o"
cc -O2 -g -o "$work/baseline" "$root/tests/perf/baseline.c" -lbpf -lpthread -lm

# variant: bpfbench family:prog  /  baseline variant name
variants="base:trigger:base tp:trigger:tp rawtp:trigger:rawtp uprobe-nop:uprobes:uprobe-nop"

hits_of() { grep -o 'Summary: hits *[0-9.]*' | awk '{print $3}' | tail -n1; }

printf "%-12s %10s %10s %8s   (medians over %d pairs, %ds each)\n" variant bpfbench baseline ratio "$pairs" "$dur"
for v in $variants; do
  name=${v%%:*}; rest=${v#*:}; family=${rest%%:*}; prog=${rest#*:}
  cat > "$work/one.bdsl" <<BDSL
bench $family as "$name" < prog $prog; warmup 1s; duration ${dur}s; affinity; >
BDSL
  ours=(); theirs=(); ratios=()
  for ((i = 0; i < pairs; i++)); do
    a=$("$bpfbench" run "$work/one.bdsl" -q 2>/dev/null | hits_of)
    b=$("$work/baseline" "$work/baseline.bpf.o" "$name" 1 "$dur" | hits_of)
    ours+=("$a"); theirs+=("$b")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')")
  done
  median() { printf "%s\n" "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
  printf "%-12s %10.3f %10.3f %8.3f\n" "$name" "$(median "${ours[@]}")" "$(median "${theirs[@]}")" "$(median "${ratios[@]}")"
done

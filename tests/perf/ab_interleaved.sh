#!/bin/bash
# How interleaved `bpfbench ab` does on this machine (docs/measurements/2026-12-07-interleaved-ab.md):
# A/A, the 2.5 % yardstick, the same with one load a side, the strncmp 512 vs 528 pair and a
# 2x change, each RUNS times (4 points a run), writing each run's JSON into OUT_DIR. With
# HOG=1 a busy loop runs on CPU 1 (the producer is on CPU 0) for the whole script.
#
#   sudo tests/perf/ab_interleaved.sh OUT_DIR [RUNS] [BPFBENCH]
#   python3 tests/perf/ab_interleaved_table.py OUT_DIR...
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: ab_interleaved.sh OUT_DIR [RUNS] [BPFBENCH]}
runs=${2:-5}
bpfbench=${3:-$root/build/bpfbench}
mkdir -p "$out"
yard=$(mktemp -d)
hog_pid=
cleanup() { [ -z "$hog_pid" ] || kill "$hog_pid" 2>/dev/null || true; rm -rf "$yard"; }
trap cleanup EXIT

# The yardstick: rawtp-kfunc, N calls of bpf_get_prandom_u32() per counted run, the loop not
# unrolled; four identical points r1-r4 per file.
loop_file() {  # N FILE
  {
    echo "defaults < affinity; >"
    for r in r1 r2 r3 r4; do
      cat <<B
bench trigger as "$r" < prog rawtp-kfunc; batch_iters 100; report hits;
  code globals { __u64 bb_acc_sink; }
  code body {
    __u64 acc = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < $1; i++)
      acc += bpf_get_prandom_u32();
    bb_acc_sink = acc;
  }
>
B
    done
  } >"$2"
}
loop_file 200 "$yard/k200.bdsl"
loop_file 206 "$yard/k206.bdsl"
loop_file 400 "$yard/k400.bdsl"
{
  echo "defaults < affinity; >"
  for r in r1 r2 r3 r4; do echo "bench strncmp as \"$r\" < prog no-helper; report hits; >"; done
} >"$yard/strncmp.bdsl"

if [ "${HOG:-0}" = 1 ]; then
  taskset -c 1 sh -c 'while :; do :; done' &
  hog_pid=$!
fi
tag=$([ "${HOG:-0}" = 1 ] && echo hog || echo quiet)
one() {  # NAME ARGS...
  local name=$1
  shift
  local f="$out/$name-$tag-$i.json" t0 t1
  t0=$(date +%s.%N)
  "$bpfbench" ab "$@" --format json >"$f" 2>"$out/$name-$tag-$i.err" || true
  t1=$(date +%s.%N)
  echo "$name $tag $i $(echo "$t1 - $t0" | bc) s $(uptime | sed 's/.*load average: //')" | tee -a "$out/times.txt"
}
# CONFIGS: which of them (default all), in this order each run.
configs=${CONFIGS:-aa yard copies1 strncmp double}
for i in $(seq 1 "$runs"); do
  for c in $configs; do
    case $c in
    aa) one aa "$yard/k200.bdsl" "$yard/k200.bdsl" ;;
    yard) one yard "$yard/k200.bdsl" "$yard/k206.bdsl" ;;
    copies1) one copies1 "$yard/k200.bdsl" "$yard/k206.bdsl" --copies 1 --block 0 ;;
    copies1aa) one copies1aa "$yard/k200.bdsl" "$yard/k200.bdsl" --copies 1 --block 0 ;;
    # The two halves of the default apart: K loads at once never reloaded, and one load a
    # side reloaded every block (only A and B attached).
    atonce) one atonce "$yard/k200.bdsl" "$yard/k206.bdsl" --block 0 ;;
    reload) one reload "$yard/k200.bdsl" "$yard/k206.bdsl" --copies 1 ;;
    strncmp) one strncmp "$yard/strncmp.bdsl" --a cmp_str_len=512 --b cmp_str_len=528 ;;
    double) one double "$yard/k200.bdsl" "$yard/k400.bdsl" ;;
    *) echo "unknown config $c" >&2; exit 2 ;;
    esac
  done
done

#!/bin/bash
# Side by side with the kernel's own selftests `bench`: every scenario both tools run here,
# in alternating pairs (ABBA: the order flips every pair, so drift divides out), printing per
# scenario the medians of both and the median of the per-pair ratios bpfbench / kernel bench.
# Not part of CI (CI has no kernel bench); the table goes into docs/measurements/ with its date.
#
#   sudo tests/perf/vs_kernel_bench.sh [-p PAIRS] [-d SECONDS] [-b BPFBENCH] [-v mean|fast] [-o FILE] [NAME ...]
#        tests/perf/vs_kernel_bench.sh -r FILE [-r FILE ...] [NAME ...]
#   defaults: 5 pairs, 3 s measured (+1 s warmup) per run, build/bpfbench, every scenario.
#   Per row: both tools' medians, the median of the per-pair ratios, its 95 % CI (order
#   statistics: no assumption about the spread; from 6 pairs, 11 give [2nd, 10th]) and
#   whether the CI shows the row within 2 % ("within"), outside ("outside": the whole CI
#   beyond 2 %) or neither ("open"); the pair range (min, max) as before.
#   -o FILE: also append every pair (scenario, pair, bpfbench, kernel, ratio; tab-separated),
#   after a "# settings: -dD -vV" line for this invocation.
#   -r FILE: run nothing; the table of the pairs recorded with -o in FILE (all -r files
#   together: pairs of the same scenario from several tables pool into one row, so its CI
#   narrows). Refused (exit 2) when the files' settings lines differ: a mean and a fastest
#   second, or fast values of different -d, are different numbers. Files from before the
#   settings line have none and are taken as they are.
#   -v mean (default): a run's number is its Summary, the mean over the measured seconds;
#   -v fast: the fastest measured second of its "Iter N (...): hits X" lines in either tool
#   (a VM that slows for seconds at a time then compares the two tools at the same speed
#   of the machine; use -d 5 or more). Rows without per-second lines (the per-CPU and
#   timed benches) keep their Summary; the header says which value was used. Both tools
#   measure -d + 1 seconds (the kernel bench's count, which `bpfbench bench` copies since
#   2026-12-06); an older bpfbench measured one fewer, so its fastest second was the
#   largest of fewer and read low (docs/measurements/2026-12-01-runtime-vs-kernel-bench.md).
#
# The kernel bench is GPL kernel code and never enters this repository. It is built outside
# it, in /tmp, from public kernel sources:
#   KBENCH=/tmp/kbench/bench        the v6.12 bench as the selftests Makefile builds it
#   KBENCH_TP=/tmp/kbench/bench-tp  the same with the fentry/sys_getpgid programs of the
#                                   ringbuf, perfbuf, local-storage, bpf-loop and hashmap
#                                   benches attached at tp/syscalls/sys_enter_getpgid (fentry
#                                   is refused by kernels without BPF trampolines)
#   KBENCH_RENAME=/tmp/kbench-rename/bench  the v6.12 bench with test_overhead's kprobe,
#                                   kretprobe, fentry and fexit programs not autoloaded
#                                   (SEC("?...")): v6.12 loads all five for every rename-*
#                                   bench, so where the kernel refuses one, rename-base and
#                                   rename-rawtp print nothing either (rows marked RN; built
#                                   here from KBENCH_SRC=/tmp/kbench-src/linux-v6.12 with
#                                   KBENCH_BUILD when missing, else skipped with a note)
#   KBENCH_XDP=/tmp/kbench-xdp/bench the v6.12 bench with bpf-next's xdp-lb and bpf-nop added
#                                   (rows marked XDP, built by /tmp/kbench-xdp/build.sh;
#                                   skipped with a note when it is missing). Their number is
#                                   the median ns per operation ("NAME: median X ns/op"): the
#                                   ratio is bpfbench's time over the kernel bench's, so there
#                                   above 1 means bpfbench measured slower.
# When they are missing and KBENCH_BUILD names a build script (one that extracts a v6.12 tree
# fetched with the search tool's `fetch github:aida0710/linux-kernel-explorer` and builds both;
# MIRROR= the fetched git directory), it is run first.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
pairs=5 dur=3 bpfbench=$root/build/bpfbench value=mean raw="" replay=()
while getopts "p:d:b:v:o:r:h" o; do
  case $o in
  p) pairs=$OPTARG ;;
  d) dur=$OPTARG ;;
  b) bpfbench=$OPTARG ;;
  v) value=$OPTARG ;;
  o) raw=$OPTARG ;;
  r) replay+=("$OPTARG") ;;
  *) sed -n '2,29p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
case $value in mean | fast) ;; *) echo "-v takes mean or fast, not '$value'" >&2; exit 2 ;; esac
KBENCH=${KBENCH:-/tmp/kbench/bench}
KBENCH_TP=${KBENCH_TP:-/tmp/kbench/bench-tp}
KBENCH_XDP=${KBENCH_XDP:-/tmp/kbench-xdp/bench}
KBENCH_RENAME=${KBENCH_RENAME:-/tmp/kbench-rename/bench}
KBENCH_SRC=${KBENCH_SRC:-/tmp/kbench-src/linux-v6.12}

if [ ${#replay[@]} -eq 0 ]; then # a replay runs nothing
  if [ ! -x "$KBENCH" ] || [ ! -x "$KBENCH_TP" ]; then
    if [ -n "${KBENCH_BUILD:-}" ]; then
      bash "$KBENCH_BUILD" extract && bash "$KBENCH_BUILD"
    else
      echo "no kernel bench at $KBENCH / $KBENCH_TP; set KBENCH_BUILD (see the header)" >&2
      exit 2
    fi
  fi
  [ -x "$bpfbench" ] || { echo "no bpfbench at $bpfbench" >&2; exit 2; }
  mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
fi

# The RN bench: a copy of the v6.12 tree whose test_overhead.c marks its kprobe, kretprobe,
# fentry and fexit programs not to autoload, built by KBENCH_BUILD (its SRC and OUT).
build_rename_bench() {
  local copy=/tmp/kbench-rename-src progs=tools/testing/selftests/bpf/progs
  [ -n "${KBENCH_BUILD:-}" ] && [ -f "$KBENCH_SRC/$progs/test_overhead.c" ] || return 1
  rm -rf "$copy" && cp -a "$KBENCH_SRC" "$copy" || return 1
  sed -i -E 's/SEC\("(kprobe|kretprobe|fentry|fexit)\//SEC("?\1\//' "$copy/$progs/test_overhead.c"
  [ "$(grep -c 'SEC("?' "$copy/$progs/test_overhead.c")" = 4 ] || { echo "test_overhead.c: not 4 programs marked" >&2; return 1; }
  SRC=$copy OUT=$(dirname "$KBENCH_RENAME") bash "$KBENCH_BUILD" >/dev/null
}


# name | kernel bench binary | the arguments both get (bpfbench as `bpfbench bench ARGS`,
# the kernel bench's command line: cli/kbench_cmd.cpp); both: -a -w1 -d$dur
scenarios=$(cat <<'EOF2'
trig-syscall-count|KB|trig-syscall-count
trig-kernel-count|KB|trig-kernel-count
trig-rawtp|KB|trig-rawtp
trig-tp|KB|trig-tp
trig-uprobe-nop|KB|trig-uprobe-nop
trig-uretprobe-nop|KB|trig-uretprobe-nop
trig-uprobe-push|KB|trig-uprobe-push
trig-uprobe-ret|KB|trig-uprobe-ret
rb-libbpf-b2b|TP|-c1 --rb-b2b rb-libbpf
rb-custom-b2b|TP|-c1 --rb-b2b rb-custom
pb-custom-b2b-sampled|TP|-c1 --rb-b2b --rb-sampled pb-custom
ls-seq-get-1|TP|--nr_maps 1 local-storage-cache-seq-get
ls-seq-get-100|TP|--nr_maps 100 local-storage-cache-seq-get
ls-int-get-100|TP|--nr_maps 100 local-storage-cache-int-get
strncmp-helper-32|KB|--cmp-str-len 32 strncmp-helper
bpf-loop-1000|TP|--nr_loops 1000 bpf-loop
count-global|KB|count-global
count-local|KB|count-local
rename-base|RN|rename-base
rename-rawtp|RN|rename-rawtp
trig-uprobe-multi-nop|KB|trig-uprobe-multi-nop
trig-uretprobe-multi-nop|KB|trig-uretprobe-multi-nop
htab-mem-overwrite|KB|-p8 htab-mem
htab-mem-batch-add-del|KB|-p8 --use-case batch_add_batch_del htab-mem
htab-mem-add-del-diff-cpu|KB|-p8 --use-case add_del_on_diff_cpu htab-mem
htab-mem-prealloc-overwrite|KB|-p8 --preallocated htab-mem
trig-usermode-count|KB|trig-usermode-count
trig-uretprobe-push|KB|trig-uretprobe-push
trig-uretprobe-ret|KB|trig-uretprobe-ret
trig-uprobe-multi-push|KB|trig-uprobe-multi-push
trig-uprobe-multi-ret|KB|trig-uprobe-multi-ret
trig-uretprobe-multi-push|KB|trig-uretprobe-multi-push
trig-uretprobe-multi-ret|KB|trig-uretprobe-multi-ret
ls-hashmap-control-1|TP|--nr_maps 1 local-storage-cache-hashmap-control
ls-hashmap-control-100|TP|--nr_maps 100 local-storage-cache-hashmap-control
bloom-lookup|TP|bloom-lookup
bloom-update|TP|bloom-update
hashmap-without-bloom|TP|hashmap-without-bloom
hashmap-with-bloom|TP|hashmap-with-bloom
bpf-hashmap-lookup|TP|bpf-hashmap-lookup
bpf-hashmap-full-update|TP|bpf-hashmap-full-update
crypto-encrypt|KB|crypto-encrypt
crypto-decrypt|KB|crypto-decrypt
bpf-nop|XDP|bpf-nop
xdp-lb-tcp-v4-lru-hit|XDP|xdp-lb --scenario tcp-v4-lru-hit
xdp-lb-tcp-v4-ch|XDP|xdp-lb --scenario tcp-v4-ch
xdp-lb-tcp-v6-lru-hit|XDP|xdp-lb --scenario tcp-v6-lru-hit
xdp-lb-tcp-v6-ch|XDP|xdp-lb --scenario tcp-v6-ch
xdp-lb-udp-v4-lru-hit|XDP|xdp-lb --scenario udp-v4-lru-hit
xdp-lb-udp-v6-lru-hit|XDP|xdp-lb --scenario udp-v6-lru-hit
xdp-lb-tcp-v4v6-lru-hit|XDP|xdp-lb --scenario tcp-v4v6-lru-hit
xdp-lb-tcp-v4-lru-diverse|XDP|xdp-lb --scenario tcp-v4-lru-diverse
xdp-lb-tcp-v4-ch-diverse|XDP|xdp-lb --scenario tcp-v4-ch-diverse
xdp-lb-tcp-v6-lru-diverse|XDP|xdp-lb --scenario tcp-v6-lru-diverse
xdp-lb-tcp-v6-ch-diverse|XDP|xdp-lb --scenario tcp-v6-ch-diverse
xdp-lb-udp-v4-lru-diverse|XDP|xdp-lb --scenario udp-v4-lru-diverse
xdp-lb-tcp-v4-lru-miss|XDP|xdp-lb --scenario tcp-v4-lru-miss
xdp-lb-udp-v4-lru-miss|XDP|xdp-lb --scenario udp-v4-lru-miss
xdp-lb-tcp-v4-lru-warmup|XDP|xdp-lb --scenario tcp-v4-lru-warmup
xdp-lb-tcp-v4-syn|XDP|xdp-lb --scenario tcp-v4-syn
xdp-lb-tcp-v4-rst-miss|XDP|xdp-lb --scenario tcp-v4-rst-miss
xdp-lb-pass-v4-no-vip|XDP|xdp-lb --scenario pass-v4-no-vip
xdp-lb-pass-v6-no-vip|XDP|xdp-lb --scenario pass-v6-no-vip
xdp-lb-pass-v4-icmp|XDP|xdp-lb --scenario pass-v4-icmp
xdp-lb-pass-non-ip|XDP|xdp-lb --scenario pass-non-ip
xdp-lb-drop-v4-frag|XDP|xdp-lb --scenario drop-v4-frag
xdp-lb-drop-v4-options|XDP|xdp-lb --scenario drop-v4-options
xdp-lb-drop-v6-frag|XDP|xdp-lb --scenario drop-v6-frag
EOF2
)

# The hits rate of a run, in M/s, either tool's format: its Summary line,
# "Summary: hits 19.855 ± 0.134M/s ...", "Summary: hits throughput 52.190 ± 0.113 M ops/s ..." or
# "Summary: throughput 45.748 ± 0.000 M ops/s ..." or (htab-mem, k/s per producer)
# "Summary: per-prod-op   21.34 ±    0.75k/s, ..."; without one (the two per-CPU benches) the
# sum of the per-CPU lines: "cpu00: lookup 12.345M ± ..." (bpf-hashmap-lookup) or
# "0:hash_map_full_perf 1234567 events per sec" (bpf-hashmap-full-update, events/s); for
# bpf-nop and xdp-lb (bench_bpf_timing) the median ns/op of
# "tcp-v4-lru-hit: median 55.57 ns/op, stddev 0.85, p99 57.91 (206 samples)".
# With field=total, the Summary's "total operations" instead of its first number
# (hashmap-without-bloom: every lookup misses and both tools count it a drop, so hits is 0).
# With value=fast, the largest rate of the "Iter N (...): hits X..." (or "per-prod-op X", or
# with field=total "... total operations X") lines after the 1 s warmup (both tools print
# the warmup's second as Iter 0), when the run printed such lines.
hits_of() {
  awk -v field="${field:-hits}" -v value="$value" '
    /^Iter +[0-9]+ \(/ { s = $0; if ($2 + 0 < 1) next
                   if (field == "total") { if (!sub(/^.*total operations +/, "", s)) next }
                   else if (!sub(/^Iter +[0-9]+ \([^)]*\): +(hits|per-prod-op) +/, "", s)) next
                   sub(/[^0-9.].*$/, "", s); if (ni == 0 || s + 0 > fastest) fastest = s + 0; ni++; next }
    /^Summary: / && field == "total" { s = $0; if (!sub(/^.*total operations +/, "", s)) next
                   sub(/[^0-9.].*$/, "", s); summary = s; have = 1; next }
    /^Summary: / { s = $0; sub(/^Summary: (hits |per-prod-op )?(throughput )?[ ]*/, "", s)
                   sub(/[^0-9.].*$/, "", s); summary = s; have = 1 }
    /^cpu[0-9]+: lookup / { v = $3; sub(/M$/, "", v); lookups += v; nl++ }
    /^[0-9]+:hash_map_full_perf / { updates += $2 / 1e6; nu++ }
    /^[a-z0-9-]+: median [0-9.]+ ns\/op, / { median = $3; nm++ }
    END { if (value == "fast" && ni) print fastest; else if (have) print summary; else if (nl) print lookups; else if (nu) printf "%.6f\n", updates
          else if (nm) print median }'
}
median() { printf "%s\n" "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }'; }
# From the pair ratios, one sort: "median<TAB>CI<TAB>verdict<TAB>range". CI: the median's
# 95 % CI [r(k), r(n+1-k)] for the largest k with P(Binomial(n, 1/2) < k) <= 2.5 %, "n/a"
# below 6 pairs; verdict: whether it shows the row within 2 %; range: [min, max].
ratio_summary() {
  printf "%s\n" "$@" | sort -g | awk '{ v[NR] = $1 }
    END { n = NR; c = 1; cum = 0; k = 0
          for (j = 0; j < n; j++) { if (j > 0) c = c * (n - j + 1) / j; cum += c / 2 ^ n; if (cum > 0.025) break; k = j + 1 }
          med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
          ci = "n/a"; verdict = "open"
          if (k >= 1) {
            lo = v[k]; hi = v[n + 1 - k]; ci = sprintf("[%.3f, %.3f]", lo, hi)
            verdict = (lo >= 0.98 && hi <= 1.02) ? "within" : (hi < 0.98 || lo > 1.02) ? "outside" : "open"
          }
          printf "%s\t%s\t%s\t[%s, %s]\n", med, ci, verdict, v[1], v[n] }'
}

run_one() { # BIN ARGS: the hits rate, "" when it printed none
  # shellcheck disable=SC2086
  "$@" </dev/null 2>/dev/null | hits_of || true
}

# One row of the table from the arrays ours, theirs and ratios; with a fourth argument (the
# replay's pair count), that as a last column.
print_row() { # NAME [N]
  local med ci verdict range
  IFS=$'\t' read -r med ci verdict range <<<"$(ratio_summary "${ratios[@]}")"
  printf "%-24s %12.3f %12.3f %8.3f %16s %8s %18s%s\n" "$1" "$(median "${ours[@]}")" "$(median "${theirs[@]}")" \
    "$med" "$ci" "$verdict" "$range" "${2:+ $(printf '%6s' "$2")}"
}

# -r: the table of recorded pairs. Each file a regular file under 16 MiB; a pair line is
# "name<TAB>pair<TAB>bpfbench<TAB>kernel<TAB>ratio" with numbers, the ratio as -o wrote it
# (ratio()'s expression, checked: a line that disagrees is refused).
replay_table() { # [NAME ...]
  local f settings lines
  for f in "${replay[@]}"; do
    if [ ! -f "$f" ] || [ -L "$f" ] || [ "$(stat -c %s "$f")" -gt 16777216 ]; then
      echo "-r $f: not a regular file under 16 MiB" >&2; return 2
    fi
  done
  settings=$(grep -h '^# settings: ' "${replay[@]}" | sort -u || true)
  if [ "$(printf '%s' "$settings" | grep -c .)" -gt 1 ]; then
    printf -- "-r: the files were recorded with different settings; not pooled:\n%s\n" "$settings" >&2; return 2
  fi
  lines=$(awk -F'\t' -v num='^[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$' '/^#/ || NF == 0 { next }
    NF != 5 || $1 !~ /^[a-z0-9-]+$/ || $2 !~ /^[0-9]+$/ || $3 !~ num || $4 !~ num || $5 !~ num ||
    sprintf("%.4f", ($4 > 0 ? $3 / $4 : 0)) != $5 {
      printf "%s:%d: not a pair line of -o, or its ratio is not bpfbench / kernel\n", FILENAME, FNR > "/dev/stderr"; bad = 1; exit }
    { print } END { exit bad }' "${replay[@]}") || return 2
  [ -n "$settings" ] && settings="settings ${settings#\# settings: }" || settings="no settings recorded"
  printf "# replay of %s (%s); medians over every recorded pair\n" "${replay[*]}" "$settings"
  printf "%-24s %12s %12s %8s %16s %8s %18s %6s\n" scenario "bpfbench" "kernel" ratio "median 95% CI" "2 %" "pair range" pairs
  while IFS='|' read -r name _; do
    [ -n "$name" ] || continue
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$name"; then continue; fi
    ours=() theirs=() ratios=()
    while IFS=$'\t' read -r _ _ a b q; do ours+=("$a"); theirs+=("$b"); ratios+=("$q"); done \
      < <(printf '%s\n' "$lines" | awk -F'\t' -v n="$name" '$1 == n')
    [ ${#ratios[@]} -eq 0 ] || print_row "$name" "${#ratios[@]}"
  done <<<"$scenarios"
}

if [ ${#replay[@]} -gt 0 ]; then replay_table "$@"; exit; fi

[ -z "$raw" ] || printf "# settings: -d%s -v%s\n" "$dur" "$value" >>"$raw"
printf "# %s, kernel %s, %d CPUs; medians over %d pairs, -w1 -d%s, affinity on; value %s\n" \
  "$(date -u +%Y-%m-%d)" "$(uname -r)" "$(nproc)" "$pairs" "$dur" \
  "$([ "$value" = fast ] && echo "fast (the fastest measured second; Summary where a run has no per-second lines)" || echo "mean (Summary)")"
printf "%-24s %12s %12s %8s %16s %8s %18s\n" scenario "bpfbench" "kernel" ratio "median 95% CI" "2 %" "pair range"
while IFS='|' read -r name which args; do
  [ -n "$name" ] || continue
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$name"; then continue; fi
  kbin=$KBENCH
  [ "$which" = TP ] && kbin=$KBENCH_TP
  [ "$which" = XDP ] && kbin=$KBENCH_XDP
  [ "$which" = RN ] && kbin=$KBENCH_RENAME
  if [ "$which" = RN ] && [ ! -x "$kbin" ]; then build_rename_bench || true; fi
  field=hits
  [ "$name" = hashmap-without-bloom ] && field=total
  if [ ! -x "$kbin" ]; then
    echo "$name: skipped: no kernel bench at $kbin (see the header)" >&2
    continue
  fi
  ours=() theirs=() ratios=()
  for ((i = 0; i < pairs; i++)); do
    # shellcheck disable=SC2086
    if ((i % 2 == 0)); then
      a=$(run_one "$bpfbench" bench -a -w1 -d"$dur" $args)
      # A point bpfbench refuses (ls-hashmap-control-100: 25 GiB of hash maps) is not worth
      # the kernel bench's run, which then allocates as much and ran for over 9 minutes.
      if [ -z "$a" ] && ((i == 0)); then
        echo "$name: no Summary line from bpfbench; the kernel bench not run" >&2
        continue 2
      fi
      b=$(run_one "$kbin" -a -w1 -d"$dur" $args)
    else
      b=$(run_one "$kbin" -a -w1 -d"$dur" $args); a=$(run_one "$bpfbench" bench -a -w1 -d"$dur" $args)
    fi
    if [ -z "$a" ] || [ -z "$b" ]; then
      echo "$name: no Summary line from $([ -z "$a" ] && echo bpfbench || echo 'the kernel bench')" >&2
      continue 2
    fi
    ours+=("$a"); theirs+=("$b"); ratios+=("$(ratio "$a" "$b")")
    [ -z "$raw" ] || printf "%s\t%d\t%s\t%s\t%s\n" "$name" "$i" "$a" "$b" "${ratios[-1]}" >>"$raw"
  done
  print_row "$name"
done <<<"$scenarios"

#!/bin/bash
# Shaped like the kernel's run_bench_*.sh scripts (tools/testing/selftests/bpf/benchs/): loops
# over benchmark names and options through a `bench` symlink to bpfbench and reads the
# Summary lines, as those scripts' summarize() helpers do. Fails when a line is missing or
# not in the kernel bench's format.
#   tests/kbench/bench_scripts.sh BPFBENCH
set -euo pipefail
if [ "$(id -u)" != 0 ]; then echo "skipped: runs BPF programs, needs root"; exit 77; fi
bin=$(readlink -f "$1")
dir=$(mktemp -d /tmp/bpfbench-kbench.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ln -s "$bin" "$dir/bench"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
RUN_BENCH="$dir/bench -w0 -d1 -a"
fails=0
num='[0-9]+\.[0-9]{3}'

# summarize NAME REGEX OUTPUT: the run_bench_*.sh helpers grep the Summary line the same way.
summarize() {
  local line
  line=$(grep '^Summary:' <<<"$3" || true)
  if [[ "$line" =~ $2 ]]; then
    printf "%-40s %s\n" "$1" "$line"
  else
    printf "%-40s BAD: %s\n" "$1" "${3//$'\n'/ | }"
    fails=$((fails + 1))
  fi
}

hits_drops="^Summary: hits +$num ± +$num""M/s \( *$num""M/prod\), drops +$num ± +$num""M/s, total operations +$num ± +$num""M/s$"
for b in syscall-count kernel-count tp rawtp uprobe-nop uretprobe-nop; do
  summarize "trig-$b" "$hits_drops" "$($RUN_BENCH trig-$b 2>&1)"
done
# The names of run_bench_rename.sh and run_bench_uprobes.sh, run_bench_uprobes.sh) that run on the 6.18 CI machine.
for b in count-local rename-base rename-rawtp trig-uprobe-multi-nop trig-usdt-nop5; do
  summarize "$b" "$hits_drops" "$($RUN_BENCH $b 2>&1)"
done
summarize "trig-rawtp --trig-batch-iters 10" "$hits_drops" "$($RUN_BENCH --trig-batch-iters 10 trig-rawtp 2>&1)"
for b in rb-libbpf rb-custom pb-libbpf pb-custom; do
  summarize "$b --rb-b2b" "$hits_drops" "$($RUN_BENCH -c1 --rb-b2b $b 2>&1)"
done
summarize "rb-custom --rb-sampled --rb-sample-rate 50" "$hits_drops" \
  "$($RUN_BENCH -c1 --rb-b2b --rb-sampled --rb-sample-rate 50 rb-custom 2>&1)"
for len in 1 32; do
  summarize "strncmp-helper --cmp-str-len $len" "$hits_drops" "$($RUN_BENCH --cmp-str-len $len strncmp-helper 2>&1)"
done
summarize "bpf-loop --nr_loops 100" \
  "^Summary: throughput +$num ± +$num M ops/s \( *$num""M ops/prod\), latency +$num ns/op$" \
  "$($RUN_BENCH --nr_loops 100 bpf-loop 2>&1)"
summarize "local-storage-cache-seq-get --nr_maps 10" \
  "^Summary: hits throughput +$num ± +$num M ops/s, hits latency +$num ns/op, important_hits throughput +$num ± +$num M ops/s$" \
  "$($RUN_BENCH --nr_maps 10 local-storage-cache-seq-get 2>&1)"
# Bloom filter, hash map lookup and LPM trie, as run_bench_bloom_filter_map.sh
# and the lpm-trie benches call them (small maps: the machine is shared).
for b in bloom-lookup hashmap-with-bloom; do
  summarize "$b --nr_entries 10000" "$hits_drops" \
    "$($RUN_BENCH --nr_hash_funcs 3 --nr_entries 10000 --value_size 8 $b 2>&1)"
done
summarize "bloom-false-positive --value_size 2" \
  "^Summary: [0-9]+ false hits of [0-9]+ total operations\. Percentage =  +[0-9]+\.[0-9]{2} %$" \
  "$($RUN_BENCH --nr_entries 10000 --value_size 2 bloom-false-positive 2>&1)"
per_cpu=$($RUN_BENCH --key_size 16 --nr_entries 500 --nr_loops 100000 bpf-hashmap-lookup 2>&1)
# The kernel bench's line, and no total line (it prints none).
grep -Eq "^cpu[0-9]{2}: lookup $num""M ± $num""M events/sec \(approximated from [0-9]+ samples of ~[0-9]+ms\)$" <<<"$per_cpu" &&
  ! grep -q '^total' <<<"$per_cpu" || { echo "BAD bpf-hashmap-lookup: $per_cpu"; fails=$((fails + 1)); }
ops="^Summary: throughput +$num ± +$num M ops/s \( *$num""M ops/prod\), latency +$num ns/op$"
for b in lookup insert delete; do
  summarize "lpm-trie-$b --nr_entries 1000" "$ops" "$($RUN_BENCH --nr_entries 1000 lpm-trie-$b 2>&1)"
done
# lpm-trie-free needs BPF trampolines: where they are missing it prints the skip instead.
out=$($RUN_BENCH --nr_entries 1000 lpm-trie-free 2>&1)
if grep -q '^lpm-trie-free: skipped: .*not supported by this kernel (' <<<"$out"; then
  echo "lpm-trie-free --nr_entries 1000: $out"
else
  summarize "lpm-trie-free --nr_entries 1000" \
    "^Summary: throughput +$num ± +$num K ops/s \( *$num""K ops/prod\), latency +$num ms/op$" "$out"
fi
# Crypto kfuncs (6.10+): a kernel without them prints the skip and its reason instead.
out=$($RUN_BENCH --crypto-len 64 crypto-decrypt 2>&1)
if grep -q '^crypto-decrypt: skipped: .*not supported by this kernel (' <<<"$out"; then
  echo "crypto-decrypt --crypto-len 64: $out"
else
  summarize "crypto-decrypt --crypto-len 64" "$hits_drops" "$out"
fi
summarize "sk-storage-get" \
  "^Summary: throughput +$num ± +$num M ops/s \( *$num""M ops/prod\), latency +$num ns/op$" \
  "$($RUN_BENCH sk-storage-get 2>&1)"
for t in socket task; do
  summarize "local-storage-create --storage-type $t" \
    "^Summary: creates +$num ± +$num""k/s \( *$num""k/prod\), +[0-9]+\.[0-9]{2} kmallocs/create$" \
    "$($RUN_BENCH --batch-size 16 --storage-type $t local-storage-create 2>&1)"
done
# htab-mem as run_bench_htab_mem.sh calls it (its sed reads the three numbers).
mem2='[0-9]+\.[0-9]{2}'
for uc in overwrite add_del_on_diff_cpu; do
  summarize "htab-mem --use-case $uc" \
    "^Summary: per-prod-op +$mem2 ± +$mem2""k/s, memory usage +$mem2 ± +$mem2""MiB, peak memory usage +$mem2""MiB$" \
    "$($RUN_BENCH -p4 --use-case $uc htab-mem 2>&1)"
done
# sockmap as its bench wants it (-c 2 -p 1 -a), two modes; the last mode flag wins, as argp's.
for mode in --rx-verdict-egress --rx-pass; do
  summarize "sockmap $mode" "^Summary: total trans +[0-9]*[1-9][0-9]* MB ± +$num MB/s$" \
    "$($RUN_BENCH -c2 -p1 $mode sockmap 2>&1)"
done
# No program in tx-normal: its Summary (BPF bytes) is 0, printed as the kernel's %8.3lu does.
summarize "sockmap --tx-normal" "^Summary: total trans +000 MB ± 0\.000 MB/s$" \
  "$($RUN_BENCH -c2 -p1 --tx-normal sockmap 2>&1)"

# xdp-lb as run_bench_xdp_lb.sh calls it (-q -a --machine-readable; its rval() reads the
# RESULT line's median, stddev and p99), a scenario of each group; it runs until 200 timed
# batches, whatever -d says.
result2='[0-9]+\.[0-9]{2}'
for sc in tcp-v4-lru-hit tcp-v6-ch-diverse tcp-v4-syn udp-v4-lru-miss pass-non-ip drop-v6-frag; do
  out=$("$dir/bench" -q -w0 -a xdp-lb --machine-readable --scenario "$sc" 2>&1)
  line=$(grep '^RESULT ' <<<"$out" || true)  # as the script: calibration warnings may precede it
  if [[ "$line" =~ ^RESULT\ scenario=$sc\ samples=[0-9]+\ median=$result2\ stddev=$result2\ cv=$result2\ min=$result2\ p99=$result2\ max=$result2$ ]]; then
    printf "%-40s %s\n" "xdp-lb --scenario $sc" "$line"
  else
    printf "%-40s BAD: %s\n" "xdp-lb --scenario $sc" "${out//$'\n'/ | }"
    fails=$((fails + 1))
  fi
done
out=$("$dir/bench" -w0 xdp-lb --scenario pass-v4-icmp 2>&1)
grep -Eq "^pass-v4-icmp: median $result2 ns/op, stddev $result2, p99 $result2 \([0-9]+ samples\)$" <<<"$out" ||
  { echo "BAD xdp-lb report line: $out"; fails=$((fails + 1)); }
out=$("$dir/bench" -w0 bpf-nop 2>&1)
grep -Eq "^bpf-nop: median $result2 ns/op, stddev $result2, p99 $result2 \([0-9]+ samples\)$" <<<"$out" ||
  { echo "BAD bpf-nop report line: $out"; fails=$((fails + 1)); }
# local-storage-tasks-trace as run_bench_local_storage_rcu_tasks_trace.sh calls it (with
# fewer tasks and seconds): the kernel bench's two SUMMARY lines where fentry works; without
# fentry its grace-period part is skipped with the reason and the churn part runs and prints
# its own two SUMMARY lines in the same shape.
kthread_pid=$(pgrep -x rcu_tasks_trace_kthread || true)
tt_args=(--nr_procs 20)
[ -n "$kthread_pid" ] && tt_args+=(--kthread_pid "$kthread_pid")
tab=$'\t'
check_tasks_trace() {  # LABEL OUTPUT
  local gp="^SUMMARY tasks_trace grace period latency${tab}avg $num us${tab}stddev $num us$"
  local tpg="^SUMMARY ticks per tasks_trace grace period${tab}avg $num${tab}stddev $num$"
  local churn="^SUMMARY task local storage creates\+deletes${tab}avg $num M/s${tab}stddev $num M/s$"
  local ticks="^SUMMARY tasks_trace kthread ticks per second${tab}avg $num${tab}stddev $num$"
  if grep -q '^local-storage-tasks-trace grace periods: skipped: fentry not supported by this kernel (' <<<"$2"; then
    grep -Eq "$churn" <<<"$2" && grep -Eq "$ticks" <<<"$2" && ! grep -Eq "$gp" <<<"$2"
  else
    grep -Eq "$gp" <<<"$2" && grep -Eq "$tpg" <<<"$2"
  fi || { printf "%-40s BAD: %s\n" "$1" "${2//$'\n'/ | }"; fails=$((fails + 1)); return; }
  printf "%-40s %s\n" "$1" "$(grep '^SUMMARY\|skipped' <<<"$2" | tr '\n\t' '| ')"
}
out=$($RUN_BENCH "${tt_args[@]}" local-storage-tasks-trace 2>&1)
check_tasks_trace "local-storage-tasks-trace --nr_procs 20" "$out"
grep -q "^Iter 1${tab} " <<<"$out" || { echo "BAD: local-storage-tasks-trace without Iter lines: $out"; fails=$((fails + 1)); }
# --quiet (the kernel bench's -q): no set-up and no Iter lines, the SUMMARY lines stay.
out=$($RUN_BENCH --quiet "${tt_args[@]}" local-storage-tasks-trace 2>&1)
check_tasks_trace "local-storage-tasks-trace --quiet" "$out"
! grep -q '^Iter\|^Setting up' <<<"$out" || { echo "BAD: local-storage-tasks-trace --quiet: $out"; fails=$((fails + 1)); }

scenarios=$("$dir/bench" xdp-lb --list-scenarios)
[ "$(grep -c '^  [a-z0-9-]*  ' <<<"$scenarios")" = 24 ] || { echo "BAD --list-scenarios: $scenarios"; fails=$((fails + 1)); }

# The kernel bench's argument errors: exit 2 (it exits 1), with its message's meaning.
expect_refusal() {
  local out rc=0
  out=$("$dir/bench" "${@:2}" 2>&1) || rc=$?
  if [ "$rc" != 2 ] || ! grep -qF -- "$1" <<<"$out"; then
    echo "BAD refusal (exit $rc, want 2 and '$1'): bench ${*:2}: $out"
    fails=$((fails + 1))
  fi
}
expect_refusal "needs one consumer" rb-libbpf
expect_refusal "doesn't support consumer" -c1 trig-tp
expect_refusal "single-producer" -c1 -p2 --rb-b2b rb-custom
expect_refusal "not found" trig-nosuch
expect_refusal "doesn't support multi-producer" -p2 rename-base
expect_refusal "does not apply" --nr_maps 3 trig-tp
expect_refusal "Missing --nr_entries parameter" lpm-trie-lookup
expect_refusal "does not apply" --nr_hash_funcs 3 lpm-trie-lookup
expect_refusal "does not apply" --crypto-len 32 trig-tp
expect_refusal "storage-type" --storage-type sockets local-storage-create
expect_refusal "needs an even number of producers" -p3 --use-case add_del_on_diff_cpu htab-mem
expect_refusal "argument '-c 2 -p 1 -a' is necessary" -c1 -a sockmap
expect_refusal "argument '-c 2 -p 1 -a' is necessary" -c2 -p1 sockmap
expect_refusal "error: 'prog' is set twice in this bench" -c2 -p1 -a --tx-pass --rx-pass sockmap
expect_refusal "--scenario is required. Use --list-scenarios to see options." xdp-lb
expect_refusal "unknown scenario: 'tcp-v9'" --scenario tcp-v9 xdp-lb
expect_refusal "benchmark doesn't support consumers" -c1 --scenario tcp-v4-ch xdp-lb
expect_refusal "does not apply" --scenario tcp-v4-ch trig-tp
expect_refusal "benchmark doesn't support multi-producer!" -p2 local-storage-tasks-trace
expect_refusal "benchmark doesn't support consumer!" -c1 local-storage-tasks-trace
expect_refusal "invalid nr_procs" --nr_procs 0 local-storage-tasks-trace
expect_refusal "benchmark supports up to 150000 sleeper procs!" --nr_procs 150001 local-storage-tasks-trace
expect_refusal "--nr_procs" --nr_procs many local-storage-tasks-trace
expect_refusal "invalid kthread_pid" --kthread_pid 0 local-storage-tasks-trace
expect_refusal "--kthread_pid 4194304: couldn't open /proc/4194304/stat" --kthread_pid 4194304 local-storage-tasks-trace
expect_refusal "does not apply" --nr_procs 10 trig-tp
listed=$("$dir/bench" --list)  # whole: an early-exiting grep -q would fail the pipe
grep -qx -- "- trig-syscall-count" <<<"$listed" || { echo "BAD: --list"; fails=$((fails + 1)); }
[ "$(grep -c '^- ' <<<"$listed")" = 73 ] || { echo "BAD: --list has not the kernel bench's 73 names"; fails=$((fails + 1)); }

echo "bench scripts: $fails failure(s)"
[ "$fails" = 0 ]

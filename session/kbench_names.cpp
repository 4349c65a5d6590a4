#include "session/kbench_names.hpp"

namespace bpfbench {
namespace {

using O = KbenchOptions;
using R = KernelReport;

// The kernel bench's programs count every process's events: its names run ours with
// pid_filter off (the family default counts only bpfbench's own). Its ring and perf buffer
// consumers count each record with atomic_inc (record_count atomic), and so do its two
// user-space-counted trigger loops, syscall-count and usermode-count (op_count atomic).
constexpr KbenchName kNames[] = {
    {"trig-syscall-count", "trigger", "prog base; op_count atomic", O::Trigger, R::HitsDrops, 0},
    {"trig-kernel-count", "trigger", "prog kernel-count", O::Trigger, R::HitsDrops, 0},
    {"trig-kprobe", "trigger", "prog kprobe", O::Trigger, R::HitsDrops, 0},
    {"trig-kretprobe", "trigger", "prog kretprobe", O::Trigger, R::HitsDrops, 0},
    {"trig-kprobe-multi", "trigger", "prog kprobe-multi", O::Trigger, R::HitsDrops, 0},
    {"trig-kretprobe-multi", "trigger", "prog kretprobe-multi", O::Trigger, R::HitsDrops, 0},
    {"trig-fentry", "trigger", "prog fentry", O::Trigger, R::HitsDrops, 0},
    {"trig-fexit", "trigger", "prog fexit", O::Trigger, R::HitsDrops, 0},
    {"trig-fmodret", "trigger", "prog fmodret", O::Trigger, R::HitsDrops, 0},
    {"trig-tp", "trigger", "prog tp-kfunc", O::Trigger, R::HitsDrops, 0},
    {"trig-rawtp", "trigger", "prog rawtp-kfunc", O::Trigger, R::HitsDrops, 0},
    {"trig-usermode-count", "uprobes", "prog uprobe-base; op_count atomic", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-nop", "uprobes", "prog uprobe-nop; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-nop", "uprobes", "prog uretprobe-nop; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-push", "uprobes", "prog uprobe-push; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-push", "uprobes", "prog uretprobe-push; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-ret", "uprobes", "prog uprobe-ret; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-ret", "uprobes", "prog uretprobe-ret; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"rb-libbpf", "ringbuf", "consumer libbpf; record_count atomic", O::Ringbuf, R::HitsDrops, 1},
    {"rb-custom", "ringbuf", "consumer custom; record_count atomic", O::Ringbuf, R::HitsDrops, 1},
    {"pb-libbpf", "ringbuf", "prog perfbuf; consumer libbpf; record_count atomic", O::Ringbuf, R::HitsDrops, 1},
    {"pb-custom", "ringbuf", "prog perfbuf; consumer custom; record_count atomic", O::Ringbuf, R::HitsDrops, 1},
    {"strncmp-no-helper", "strncmp", "prog no-helper; pid_filter false", O::Strncmp, R::HitsDrops, 0},
    {"strncmp-helper", "strncmp", "prog helper; pid_filter false", O::Strncmp, R::HitsDrops, 0},
    {"bpf-loop", "bpf_loop", "prog bpf_loop", O::BpfLoop, R::Ops, 0},
    {"local-storage-cache-seq-get", "local_storage", "prog seq_get; kernel_loop true", O::LocalStorage, R::LocalStorage, 0},
    {"local-storage-cache-int-get", "local_storage", "prog int_get", O::LocalStorage, R::LocalStorage, 0},
    {"local-storage-cache-hashmap-control", "local_storage", "prog hashmap; kernel_loop true", O::LocalStorage, R::LocalStorage, 0},
    {"bpf-hashmap-full-update", "hashmap_full_update", "prog full_update", O::HashmapFullUpdate, R::PerCpu, 0},
    // Bloom filter, hash map lookup and LPM trie benches.
    {"bloom-lookup", "bloom_filter", "prog lookup", O::Bloom, R::HitsDrops, 0},
    {"bloom-update", "bloom_filter", "prog update", O::Bloom, R::HitsDrops, 0},
    {"bloom-false-positive", "bloom_filter", "prog hashmap-with-bloom; count_per_lookup true", O::Bloom, R::FalseHits, 0},
    {"hashmap-without-bloom", "bloom_filter", "prog hashmap-without-bloom; count_per_lookup true", O::Bloom, R::HitsDrops, 0},
    {"hashmap-with-bloom", "bloom_filter", "prog hashmap-with-bloom; count_per_lookup true", O::Bloom, R::HitsDrops, 0},
    {"bpf-hashmap-lookup", "hashmap_lookup", "prog lookup", O::HashmapLookup, R::PerCpu, 0},
    {"lpm-trie-noop", "lpm_trie", "prog noop", O::LpmTrie, R::Ops, 0},
    {"lpm-trie-baseline", "lpm_trie", "prog baseline", O::LpmTrie, R::Ops, 0},
    {"lpm-trie-lookup", "lpm_trie", "prog lookup", O::LpmTrie, R::Ops, 0},
    {"lpm-trie-insert", "lpm_trie", "prog insert", O::LpmTrie, R::BpfTime, 0},
    {"lpm-trie-update", "lpm_trie", "prog update", O::LpmTrie, R::Ops, 0},
    {"lpm-trie-delete", "lpm_trie", "prog delete", O::LpmTrie, R::BpfTime, 0},
    {"lpm-trie-free", "lpm_trie", "prog free", O::LpmTrie, R::FreeTime, 0},
    // Counting in user space, renames, uprobe.multi, nop5, USDT, kprobe.multi-all.
    {"htab-mem", "htab_mem", "", O::HtabMem, R::HtabMem, 0},
    {"count-global", "count", "prog global", O::Count, R::HitsDrops, 0},
    {"count-local", "count", "prog local", O::Count, R::HitsDrops, 0},
    {"rename-base", "rename", "prog base; op_count atomic", O::Rename, R::HitsDrops, 0},
    {"rename-kprobe", "rename", "prog kprobe; pid_filter false; count_runs false; op_count atomic", O::Rename, R::HitsDrops, 0},
    {"rename-kretprobe", "rename", "prog kretprobe; pid_filter false; count_runs false; op_count atomic", O::Rename, R::HitsDrops, 0},
    {"rename-rawtp", "rename", "prog rawtp; pid_filter false; count_runs false; op_count atomic", O::Rename, R::HitsDrops, 0},
    {"rename-fentry", "rename", "prog fentry; pid_filter false; count_runs false; op_count atomic", O::Rename, R::HitsDrops, 0},
    {"rename-fexit", "rename", "prog fexit; pid_filter false; count_runs false; op_count atomic", O::Rename, R::HitsDrops, 0},
    {"trig-kprobe-multi-all", "trigger", "prog kprobe-multi-all", O::Trigger, R::HitsDrops, 0},
    {"trig-kretprobe-multi-all", "trigger", "prog kretprobe-multi-all", O::Trigger, R::HitsDrops, 0},
    {"trig-uprobe-multi-nop", "uprobes", "prog uprobe-multi-nop; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-multi-push", "uprobes", "prog uprobe-multi-push; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-multi-ret", "uprobes", "prog uprobe-multi-ret; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-multi-nop", "uprobes", "prog uretprobe-multi-nop; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-multi-push", "uprobes", "prog uretprobe-multi-push; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-multi-ret", "uprobes", "prog uretprobe-multi-ret; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-nop5", "uprobes", "prog uprobe-nop5; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-nop5", "uprobes", "prog uretprobe-nop5; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-multi-nop5", "uprobes", "prog uprobe-multi-nop5; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-multi-nop5", "uprobes", "prog uretprobe-multi-nop5; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-usdt-nop", "uprobes", "prog usdt-nop; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-usdt-nop5", "uprobes", "prog usdt-nop5; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    // The crypto kfuncs through a tc program run by BPF_PROG_TEST_RUN.
    {"crypto-encrypt", "crypto", "prog encrypt", O::Crypto, R::HitsDrops, 0},
    {"crypto-decrypt", "crypto", "prog decrypt", O::Crypto, R::HitsDrops, 0},
    // Local storage owners made and used by the producers (sockets, threads).
    // No settings: the family's default program (socket) unless --storage-type task.
    {"local-storage-create", "local_storage_create", "", O::LocalStorageCreate, R::Creates, 0},
    {"sk-storage-get", "sk_storage_get", "prog get", O::NoOptions, R::Ops, 0},
    // An in-BPF timed loop with an empty body (bench_bpf_timing), until 200 timed batches.
    {"bpf-nop", "bpf_nop", "prog timed; timing_samples 200", O::NoOptions, R::BatchTiming, 0},
    // TCP loopback forwarding through a sockmap; the mode flags pick the program. The
    // kernel bench's producer never waits for the consumer (max_in_flight 0) and its
    // consumer checks a byte at a time (verify per_byte).
    {"sockmap", "sockmap", "max_in_flight 0; verify per_byte", O::Sockmap, R::Sockmap, 2},
    // A Katran-style XDP load balancer timed in BPF per batch (bench_bpf_timing): the
    // kernel bench stops at 200 timed batches per producer (600 s at most) and checks
    // every call's verdict and output where its scenario's output is fixed.
    {"xdp-lb", "xdp_lb", "timing_samples 200", O::XdpLb, R::BatchTiming, 0, "scenario"},
    // RCU Tasks Trace grace periods under task storage churn from --nr_procs sleeping
    // tasks (fentry on the RCU functions; where fentry is missing, the churn alone runs).
    {"local-storage-tasks-trace", "rcu_tasks_trace", "prog gp-latency", O::TasksTrace, R::TasksTrace, 0},
};

}  // namespace

std::span<const KbenchName> kbench_names() { return kNames; }

const KbenchName *find_kbench_name(const std::string &name) {
  for (const auto &n : kNames)
    if (name == n.name) return &n;
  return nullptr;
}

}  // namespace bpfbench

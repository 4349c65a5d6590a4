#include "cli/kbench_names.hpp"

namespace bpfbench::cli {
namespace {

using O = KbenchOptions;
using R = KernelReport;

// The kernel bench's programs count every process's events: its names run ours with
// pid_filter off (the family default counts only bpfbench's own).
constexpr KbenchName kNames[] = {
    {"trig-syscall-count", "trigger", "prog base", O::Trigger, R::HitsDrops, 0},
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
    {"trig-usermode-count", "uprobes", "prog uprobe-base", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-nop", "uprobes", "prog uprobe-nop; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-nop", "uprobes", "prog uretprobe-nop; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-push", "uprobes", "prog uprobe-push; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-push", "uprobes", "prog uretprobe-push; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uprobe-ret", "uprobes", "prog uprobe-ret; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"trig-uretprobe-ret", "uprobes", "prog uretprobe-ret; pid_filter false", O::Uprobe, R::HitsDrops, 0},
    {"rb-libbpf", "ringbuf", "consumer libbpf", O::Ringbuf, R::HitsDrops, 1},
    {"rb-custom", "ringbuf", "consumer custom", O::Ringbuf, R::HitsDrops, 1},
    {"pb-libbpf", "ringbuf", "prog perfbuf; consumer libbpf", O::Ringbuf, R::HitsDrops, 1},
    {"pb-custom", "ringbuf", "prog perfbuf; consumer custom", O::Ringbuf, R::HitsDrops, 1},
    {"strncmp-no-helper", "strncmp", "prog no-helper; pid_filter false", O::Strncmp, R::HitsDrops, 0},
    {"strncmp-helper", "strncmp", "prog helper; pid_filter false", O::Strncmp, R::HitsDrops, 0},
    {"bpf-loop", "bpf_loop", "prog bpf_loop", O::BpfLoop, R::Ops, 0},
    {"local-storage-cache-seq-get", "local_storage", "prog seq_get", O::LocalStorage, R::LocalStorage, 0},
    {"local-storage-cache-int-get", "local_storage", "prog int_get", O::LocalStorage, R::LocalStorage, 0},
    {"local-storage-cache-hashmap-control", "local_storage", "prog hashmap", O::LocalStorage, R::LocalStorage, 0},
    {"bpf-hashmap-full-update", "hashmap_full_update", "prog full_update", O::HashmapFullUpdate, R::PerCpu, 0},
    // Issue 16: the crypto kfuncs through a tc program run by BPF_PROG_TEST_RUN.
    {"crypto-encrypt", "crypto", "prog encrypt", O::Crypto, R::HitsDrops, 0},
    {"crypto-decrypt", "crypto", "prog decrypt", O::Crypto, R::HitsDrops, 0},
    // Local storage owners made and used by the producers (sockets, threads).
    // No settings: the family's default program (socket) unless --storage-type task.
    {"local-storage-create", "local_storage_create", "", O::LocalStorageCreate, R::Creates, 0},
    {"sk-storage-get", "sk_storage_get", "prog get", O::NoOptions, R::Ops, 0},
};

}  // namespace

std::span<const KbenchName> kbench_names() { return kNames; }

const KbenchName *find_kbench_name(const std::string &name) {
  for (const auto &n : kNames)
    if (name == n.name) return &n;
  return nullptr;
}

}  // namespace bpfbench::cli

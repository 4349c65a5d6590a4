// The kernel bench's own output lines (tools/testing/selftests/bpf/bench.c), for
// `bpfbench bench`: what its `Iter` and `Summary` lines print, per report style.
#pragma once

#include <cstdint>
#include <string>

#include "results/point_result.hpp"
#include "results/sample.hpp"

namespace bpfbench {

enum class KernelReport {
  HitsDrops,     // trigger, ringbuf, strncmp: "hits … (…/prod), drops …, total operations …"
  Ops,           // bpf-loop: "throughput … M ops/s (… M ops/prod), latency … ns/op"
  LocalStorage,  // local-storage-*: "hits throughput …, hits latency …, important_hits throughput …"
  PerCpu,        // bpf-hashmap-full-update: no Iter lines; the per-CPU lines are the summary
  FalseHits,     // bloom-false-positive: "… false hits of … total operations. Percentage = … %"
  BpfTime,       // lpm-trie-insert/delete: ops per second of BPF time (bpf_ns), "throughput … latency …"
  FreeTime,      // lpm-trie-free: the same in K ops/s and ms/op
  Creates,       // local-storage-create: "creates …k/s (…k/prod), … kmallocs/create"
  HtabMem,       // htab-mem: "per-prod-op …k/s, memory usage …MiB, peak memory usage …MiB"
  Sockmap,       // sockmap: "Send Speed … MB/s, BPF Speed … MB/s, Rcv Speed … MB/s"; "total trans … MB"
  BatchTiming,   // bpf-nop, xdp-lb: no Iter lines; bench_bpf_timing's report (format_kernel_batch_timing)
  // local-storage-tasks-trace: "Iter N\t avg tasks_trace grace period latency\t… ns" and
  // "… ticks per tasks_trace grace period" per interval, two "SUMMARY …\tavg …\tstddev …" lines.
  TasksTrace,
  // Its part that needs no fentry (task storage churn): creates+deletes per second and the
  // rcu_tasks_trace kthread's ticks per second, in the same line shapes.
  TasksTraceChurn,
};

std::string format_kernel_progress(KernelReport style, int iter, const Sample &s, int producers, int64_t interval_ns);
std::string format_kernel_summary(KernelReport style, const PointResult &r);

// KernelReport::BatchTiming: bench_bpf_timing's report line of scenario `name` (or,
// machine_readable, its RESULT line); `err` is what the kernel bench writes to stderr
// (its calibration's warnings).
struct KernelText {
  std::string out, err;
};
KernelText format_kernel_batch_timing(const PointResult &r, const std::string &name, bool machine_readable);

}  // namespace bpfbench

// The kind tables: the one place a kind's name, doc and serving component are written.
#include "compiler/family/kinds.hpp"

#include <utility>

namespace bpfbench {

namespace {

namespace kp = kind_params;
constexpr KindParam kCountParams[] = {kp::op_count};
constexpr KindParam kSyscallParams[] = {kp::getpgid_arg, kp::op_count};
constexpr KindParam kRenameParams[] = {kp::comm, kp::op_count};
constexpr KindParam kOwnerParams[] = {kp::batch_size};
constexpr KindParam kSendfileParams[] = {kp::max_in_flight};
constexpr KindParam kMapChurnParams[] = {kp::nr_entries, kp::prefix_len};
constexpr KindParam kTestRunParams[] = {
    kp::batch_iters,      kp::test_run_repeat,  kp::packet,           kp::packet_len,
    kp::packet_sport,     kp::packet_dport,     kp::packet_tcp_flags, kp::packet_ip_options,
    kp::packet_ip_frag,   kp::packet_eth_src,   kp::packet_eth_dst,   kp::packet_src,
    kp::packet_dst,       kp::check_output,     kp::expect_retval,    kp::expect_packet,
    kp::expect_outer_src, kp::expect_outer_dst, kp::expect_eth_src,   kp::expect_eth_dst};
constexpr KindParam kRingbufParams[] = {kp::consumer, kp::sampled, kp::record_count, kp::sample_rate};
constexpr KindParam kPerfbufParams[] = {kp::consumer, kp::sampled, kp::record_count, kp::sample_rate,
                                        kp::perfbuf_pages};
constexpr KindParam kSocketParams[] = {kp::verify};
constexpr KindParam kKthreadParams[] = {kp::kthread_pid};
constexpr KindParam kBatchTimingParams[] = {kp::timing_samples, kp::batch_iters};

constexpr KindInfo<ProducerKind> kProducers[] = {
    {ProducerKind::Syscall, "syscall", "a getpgid() loop per producer thread",
     "SyscallProducer (runtime/components.cpp)", kSyscallParams},
    {ProducerKind::TestRun, "test_run", "BPF_PROG_TEST_RUN of a driver program that loops in the kernel",
     "TestRunProducer (runtime/components.cpp)", kTestRunParams},
    {ProducerKind::UprobeNop, "uprobe_nop", "calls of bpfbench_uprobe_target_nop()",
     "UprobeProducer (runtime/components.cpp, runtime/uprobe_targets.cpp)", kCountParams},
    {ProducerKind::UprobePush, "uprobe_push", "calls of bpfbench_uprobe_target_push()",
     "UprobeProducer (runtime/components.cpp, runtime/uprobe_targets.cpp)", kCountParams},
    {ProducerKind::UprobeRet, "uprobe_ret", "calls of bpfbench_uprobe_target_ret()",
     "UprobeProducer (runtime/components.cpp, runtime/uprobe_targets.cpp)", kCountParams},
    {ProducerKind::UprobeNop5, "uprobe_nop5", "calls of bpfbench_uprobe_target_nop5() (x86-64: a 5-byte nop first)",
     "UprobeProducer (runtime/components.cpp, runtime/uprobe_targets.cpp)", kCountParams},
    {ProducerKind::UsdtNop, "usdt_nop", "calls of a function holding the USDT probe bpfbench:usdt_nop (a 1-byte nop)",
     "UprobeProducer (runtime/components.cpp, runtime/usdt_targets.cpp)", kCountParams},
    {ProducerKind::UsdtNop5, "usdt_nop5",
     "calls of a function holding the USDT probe bpfbench:usdt_nop5 (a 5-byte nop)",
     "UprobeProducer (runtime/components.cpp, runtime/usdt_targets.cpp)", kCountParams},
    {ProducerKind::CountGlobal, "count_global", "user space only: every thread increments one shared atomic counter",
     "CountGlobalProducer (runtime/user_producers.cpp)"},
    {ProducerKind::CountLocal, "count_local", "user space only: every thread increments its own atomic counter",
     "CountLocalProducer (runtime/user_producers.cpp)"},
    {ProducerKind::Rename, "rename", "writes the thread's own name to /proc/thread-self/comm (task_rename)",
     "RenameProducer (runtime/user_producers.cpp)", kRenameParams},
    {ProducerKind::SocketCreate, "socket_create",
     "creates `batch_size` AF_INET6 UDP sockets, then closes them, round and round",
     "SocketCreateProducer (runtime/owner_producers.cpp)", kOwnerParams},
    {ProducerKind::ThreadCreate, "thread_create", "creates `batch_size` threads, then joins them, round and round",
     "ThreadCreateProducer (runtime/owner_producers.cpp)", kOwnerParams},
    {ProducerKind::Getsockopt, "getsockopt", "getsockopt(0xdead, 0xbeef) on one TCP socket per producer thread",
     "GetsockoptProducer (runtime/owner_producers.cpp)"},
    {ProducerKind::SyscallPair, "syscall_pair",
     "threads in pairs taking turns: getpgid(0) on the even one, then getppid() on the odd one",
     "SyscallPairProducer (runtime/pair_producer.cpp)"},
    {ProducerKind::Sendfile, "sendfile",
     "sendfile() of a 128 KiB pattern file to the `send` socket of socket_pairs, non-blocking, round and round; an "
     "operation is a byte",
     "SendfileProducer (runtime/socket_traffic.cpp)", kSendfileParams},
    {ProducerKind::MapChurn, "map_churn",
     "creates a map like the object's `churn_map`, fills it with keys 0..nr_entries-1 (LPM trie keys of `prefix_len` "
     "bits) and closes it, round and round; an operation is a map",
     "MapChurnProducer (runtime/map_churn.cpp)", kMapChurnParams},
    {ProducerKind::Getppid, "getppid", "a getppid() loop per producer thread",
     "GetppidProducer (runtime/getppid_producer.cpp)", kCountParams},
    {ProducerKind::None, "none", "no producer: the threads wait for the end of the run",
     "IdleProducer (runtime/components.cpp)"},
};

constexpr KindInfo<ConsumerKind> kConsumers[] = {
    {ConsumerKind::None, "none", "no consumer threads", ""},
    {ConsumerKind::Ringbuf, "ringbuf", "reads the program's BPF_MAP_TYPE_RINGBUF map",
     "runtime/consumers/ringbuf_consumers.cpp", kRingbufParams},
    {ConsumerKind::Perfbuf, "perfbuf", "reads the program's BPF_MAP_TYPE_PERF_EVENT_ARRAY map",
     "runtime/consumers/perfbuf_consumers.cpp", kPerfbufParams},
    {ConsumerKind::Socket, "socket",
     "reads the `receive` socket of socket_pairs and checks every byte against the sendfile pattern; a record is a "
     "byte",
     "SocketConsumer (runtime/socket_traffic.cpp)", kSocketParams},
};

constexpr KindInfo<AttachKind> kAttach[] = {
    {AttachKind::Auto, "auto", "bpf_program__attach(), from the SEC name",
     "BpfObject::attach (runtime/bpf_object.cpp)"},
    {AttachKind::Uprobe, "uprobe", "a uprobe on `target` in the bpfbench binary",
     "BpfObject::attach (runtime/bpf_object.cpp)"},
    {AttachKind::Uretprobe, "uretprobe", "a uretprobe on `target` in the bpfbench binary",
     "BpfObject::attach (runtime/bpf_object.cpp)"},
    {AttachKind::UprobeMulti, "uprobe_multi", "a uprobe.multi link (BPF_TRACE_UPROBE_MULTI) on `target`",
     "attach_uprobe_multi (runtime/uprobe_multi.cpp)"},
    {AttachKind::UretprobeMulti, "uretprobe_multi", "a uretprobe.multi link (BPF_TRACE_UPROBE_MULTI) on `target`",
     "attach_uprobe_multi (runtime/uprobe_multi.cpp)"},
    {AttachKind::Usdt, "usdt", "libbpf's USDT attach on `target` = provider:name in the bpfbench binary",
     "BpfObject::attach (runtime/bpf_object.cpp)"},
    {AttachKind::Cgroup, "cgroup", "bpf_program__attach_cgroup() on the cgroup v2 root (`target`: another cgroup)",
     "BpfObject::attach (runtime/bpf_object.cpp)"},
    {AttachKind::TestRun, "test_run", "not attached: run by the test_run producer", ""},
    {AttachKind::None, "none", "not attached (no program, or nothing to hook)", ""},
};

// Alphabetical: did_you_mean breaks ties by the first candidate.
constexpr KindInfo<SetupActionKind> kSetupActions[] = {
    {SetupActionKind::CalibrateBatch, "calibrate_batch",
     "size the timed batches now, on the maps as setup has left them so far (else after setup)",
     "PointComponents::calibrate_batch() (runtime/point_components.cpp)"},
    {SetupActionKind::Fork, "fork", "fork `count` idle children that live until the run ends",
     "ChildSet (runtime/setup_actions.cpp)"},
    {SetupActionKind::InnerMaps, "inner_maps", "create `count` inner maps into the array-of-maps `outer`",
     "inner_maps() (runtime/setup_actions.cpp)"},
    {SetupActionKind::Prefill, "prefill", "insert keys 0..keys-1 into map `map`",
     "prefill() (runtime/setup_actions.cpp)"},
    {SetupActionKind::RunProgram, "run_program",
     "BPF_PROG_TEST_RUN of `program` once (it fills maps with any keys); its return value must be `expect`",
     "run_setup_program() (runtime/setup_program.cpp)"},
    {SetupActionKind::SocketPairs, "socket_pairs",
     "`count` TCP loopback pairs c<k> <-> p<k>; `send` / `receive` name the sockets the sendfile producer and socket consumer use",
     "SocketPairs (runtime/socket_pairs.cpp)"},
    {SetupActionKind::Sockmap, "sockmap",
     "attach `program` (its SEC gives the attach type) to sockmap `map`, then store `sockets` at keys 0, 1, ...",
     "wire_sockmap() (runtime/socket_pairs.cpp)"},
};

constexpr KindInfo<MetricSourceKind> kMetricSources[] = {
    {MetricSourceKind::Counter, "counter", "a per-CPU `struct bb_counter` array in .bss",
     "BssCounters (runtime/counters.cpp)"},
    {MetricSourceKind::Producer, "producer", "operations the producer threads counted",
     "ProducerCounters (runtime/counters.cpp)"},
    {MetricSourceKind::Consumer, "consumer", "records the consumer threads read",
     "ProducerCounters (runtime/counters.cpp)"},
    {MetricSourceKind::Ratio, "ratio", "one metric's count over another's, per interval", ""},
    {MetricSourceKind::Sum, "sum", "the counts of two or more other metrics added, per interval",
     "add_sum_counts (results/stats.cpp)"},
    {MetricSourceKind::KthreadStime, "kthread_stime", "a kernel thread's CPU ticks (/proc/<pid>/stat)",
     "KthreadStime (runtime/kthread_stat.cpp)", kKthreadParams},
    {MetricSourceKind::CgroupMemory, "cgroup_memory",
     "bytes the point's own memory cgroup holds (`current`) or held at most (`peak`), read at each interval's end",
     "MemoryCgroup (runtime/memory_cgroup.cpp)"},
    {MetricSourceKind::BatchTiming, "batch_timing",
     "a statistic (p50, p99, stddev, ...) of the in-BPF batch timing samples of the measured part so far, in ns per "
     "operation",
     "BatchTimingRun (runtime/batch_timing.cpp)", kBatchTimingParams},
};

constexpr const char *kBatchTimingStats[] = {"samples", "outliers", "min", "max", "mean", "stddev", "cv", "p1",
                                             "p5",      "p25",      "p50", "p75", "p90",  "p95",    "p99"};

// `rest` of `sum:<rest>`: metric names joined by '+', at least two, none twice.
Result<MetricSource> parse_sum_terms(const std::string &text, const std::string &rest, MetricSource s) {
  for (size_t start = 0;;) {
    size_t plus = rest.find('+', start);
    s.terms.push_back(rest.substr(start, plus == std::string::npos ? std::string::npos : plus - start));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  for (size_t i = 0; i < s.terms.size(); ++i) {
    if (!is_identifier(s.terms[i])) {
      return Error("bad metric source '" + text + "': sum term '" + s.terms[i] + "' is not a metric name");
    }
    for (size_t j = 0; j < i; ++j)
      if (s.terms[j] == s.terms[i]) {
        return Error("bad metric source '" + text + "': metric '" + s.terms[i] + "' is added twice");
      }
  }
  if (s.terms.size() < 2) {
    return Error("bad metric source '" + text + "': a sum adds two or more metrics (sum:<a>+<b>[+...])");
  }
  return s;
}

}  // namespace

bool is_socket_name(const std::string &s) {
  if (s.size() < 2 || s.size() > 3 || (s[0] != 'c' && s[0] != 'p') || s[1] < '1' || s[1] > '9') return false;
  return s.size() == 2 || (s[2] >= '0' && s[2] <= '9');
}

template <>
std::span<const KindInfo<ProducerKind>> kind_table<ProducerKind>() {
  return kProducers;
}
template <>
std::span<const KindInfo<ConsumerKind>> kind_table<ConsumerKind>() {
  return kConsumers;
}
template <>
std::span<const KindInfo<AttachKind>> kind_table<AttachKind>() {
  return kAttach;
}
template <>
std::span<const KindInfo<SetupActionKind>> kind_table<SetupActionKind>() {
  return kSetupActions;
}
template <>
std::span<const KindInfo<MetricSourceKind>> kind_table<MetricSourceKind>() {
  return kMetricSources;
}

bool attach_needs_target(AttachKind k) {
  switch (k) {
  case AttachKind::Uprobe:
  case AttachKind::Uretprobe:
  case AttachKind::UprobeMulti:
  case AttachKind::UretprobeMulti:
  case AttachKind::Usdt: return true;
  case AttachKind::Auto:
  case AttachKind::Cgroup:
  case AttachKind::TestRun:
  case AttachKind::None: return false;
  }
  return false;
}

std::string MetricSource::text() const {
  std::string out = kind_name(kind);
  switch (kind) {
  case MetricSourceKind::Counter:
  case MetricSourceKind::KthreadStime:
  case MetricSourceKind::CgroupMemory:
  case MetricSourceKind::BatchTiming: return out + ":" + operand;
  case MetricSourceKind::Ratio: return out + ":" + operand + "/" + denominator;
  case MetricSourceKind::Sum: {
    std::string sep = ":";
    for (const auto &t : terms) out += std::exchange(sep, "+") + t;
    return out;
  }
  case MetricSourceKind::Producer:
  case MetricSourceKind::Consumer: return out;
  }
  return out;
}

Result<MetricSource> parse_metric_source(const std::string &text) {
  const Error bad("bad metric source '" + text +
                  "' (expected counter:<var>, producer, consumer, ratio:<a>/<b>, sum:<a>+<b>[+...], "
                  "kthread_stime:<comm>, cgroup_memory:current|peak or batch_timing:<stat>)");
  size_t colon = text.find(':');
  auto kind = parse_kind<MetricSourceKind>(std::string_view(text).substr(0, colon));
  if (!kind) return bad;
  MetricSource s;
  s.kind = *kind;
  const bool bare = *kind == MetricSourceKind::Producer || *kind == MetricSourceKind::Consumer;
  if (bare != (colon == std::string::npos)) return bad;
  if (bare) return s;
  std::string rest = text.substr(colon + 1);
  if (*kind == MetricSourceKind::Ratio) {
    size_t slash = rest.find('/');
    if (slash == std::string::npos) return bad;
    s.operand = rest.substr(0, slash);
    s.denominator = rest.substr(slash + 1);
    return s;
  }
  if (*kind == MetricSourceKind::Sum) return parse_sum_terms(text, rest, s);
  s.operand = rest;
  if (*kind == MetricSourceKind::CgroupMemory)
    return rest == "current" || rest == "peak" ? Result<MetricSource>(s) : bad;
  if (*kind == MetricSourceKind::BatchTiming) {
    for (const char *stat : kBatchTimingStats)
      if (rest == stat) return s;
    return Error("bad metric source '" + text +
                 "': batch_timing takes one of samples, outliers, min, max, mean, stddev, cv, "
                 "p1, p5, p25, p50, p75, p90, p95, p99");
  }
  if (*kind == MetricSourceKind::Counter ? !is_identifier(rest) : !is_name(rest)) return bad;
  return s;
}

MetricReport default_report_of(MetricSourceKind k) {
  return k == MetricSourceKind::Ratio || k == MetricSourceKind::KthreadStime || is_level_source(k) ? MetricReport::AsIs
                                                                                                  : MetricReport::Rate;
}

bool is_level_source(MetricSourceKind k) {
  return k == MetricSourceKind::CgroupMemory || k == MetricSourceKind::BatchTiming;
}

std::span<const char *const> batch_timing_stats() { return kBatchTimingStats; }

double level_unit_scale(MetricSourceKind k, const std::string &unit) {
  if (k == MetricSourceKind::BatchTiming) return 1000.0;
  if (unit == "B") return 1.0;
  if (unit == "KiB") return 1024.0;
  if (unit == "MiB") return 1024.0 * 1024.0;
  if (unit == "GiB") return 1024.0 * 1024.0 * 1024.0;
  return 0.0;
}

bool default_higher_is_better(const std::string &metric, const std::string &reported_unit) {
  return !(reported_unit == "ns/op" || metric.find("latency") != std::string::npos);
}

}  // namespace bpfbench

// The kinds family.json names (producer, consumer, attach, setup action, metric source):
// one enum and one table per kind, parsed once at manifest load, so later stages switch on
// a value instead of comparing strings (in the spirit of bpftrace's probe_types.h).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/bdsl/names.hpp"  // is_identifier, is_name: the name rules of manifests

#include "util/error.hpp"

namespace bpfbench {

// A socket of the `socket_pairs` setup action: c<k> (connecting side) or p<k> (accepted
// side), k = 1..99.
bool is_socket_name(const std::string &s);

// What generates the events a program counts (runtime/components.cpp).
enum class ProducerKind {
  Syscall,
  TestRun,
  UprobeNop,
  UprobePush,
  UprobeRet,
  // User-space-only counting, the rename workload, nop5 and USDT targets.
  UprobeNop5,
  UsdtNop,
  UsdtNop5,
  CountGlobal,
  CountLocal,
  Rename,
  SocketCreate,
  ThreadCreate,
  Getsockopt,
  SyscallPair,
  Sendfile,
  MapChurn,
  Getppid,
  None
};
// What drains the buffer a program writes (runtime/consumers/).
enum class ConsumerKind { None, Ringbuf, Perfbuf, Socket };
// How a program is attached (runtime/bpf_object.cpp).
enum class AttachKind { Auto, Uprobe, Uretprobe, UprobeMulti, UretprobeMulti, Usdt, Cgroup, TestRun, None };
// A step run on the loaded object before attach (runtime/setup_actions.cpp; its keys are
// checked by compiler/family/setup_spec.cpp).
enum class SetupActionKind { CalibrateBatch, Fork, InnerMaps, Prefill, RunProgram, SocketPairs, Sockmap };
// Where a metric's per-interval value comes from (the sampler in runtime/point_observers.cpp).
enum class MetricSourceKind { Counter, Producer, Consumer, Ratio, Sum, KthreadStime, CgroupMemory, BatchTiming };

// A point param a kind reads at run time (a family declares it with dest `runtime`). Its
// spelling lives here only: the kind's row lists it and the runtime reads it through these
// constants, so `bpfbench list --kinds` shows what each kind reads.
struct KindParam {
  const char *name;
  int64_t fallback;  // integers: the value the runtime takes when the point has none (enums: unused)
  const char *doc;
};

namespace kind_params {
// syscall, uprobe/USDT targets, rename
inline constexpr KindParam op_count{"op_count", 0,
                                    "`atomic`: count each operation with a locked add (the kernel bench's atomic_inc)"};
// syscall
inline constexpr KindParam getpgid_arg{"getpgid_arg", 0,
                                       "`self`: getpgid(own tid), a lookup that finds the task; else getpgid(-1)"};
// rename
inline constexpr KindParam comm{"comm", 0, "`main`: write /proc/self/comm instead of /proc/thread-self/comm"};
// socket_create, thread_create
inline constexpr KindParam batch_size{"batch_size", 32, "owners made per round"};
// sendfile
inline constexpr KindParam max_in_flight{"max_in_flight", 0,
                                         "wait at this many bytes sent but not yet read (0: never)"};
// map_churn
inline constexpr KindParam nr_entries{"nr_entries", 0, "keys per map"};
inline constexpr KindParam prefix_len{"prefix_len", 0, "an LPM trie key's prefix length (0: every data bit)"};
// test_run (runtime/producer_config.cpp, runtime/test_run_input.cpp)
inline constexpr KindParam batch_iters{"batch_iters", 1, "operations one program run stands for"};
inline constexpr KindParam test_run_repeat{"test_run_repeat", 0, "the kernel's repeat count per call (0: once)"};
inline constexpr KindParam packet{"packet", 0, "the packet every run gets (default `digits`)"};
inline constexpr KindParam packet_len{"packet_len", 0, "the packet's length (0: its kind's own)"};
inline constexpr KindParam packet_sport{"packet_sport", 4096, "the packet's L4 source port"};
inline constexpr KindParam packet_dport{"packet_dport", 9, "the packet's L4 destination port"};
inline constexpr KindParam packet_tcp_flags{"packet_tcp_flags", 0, "the packet's TCP flags"};
inline constexpr KindParam packet_ip_options{"packet_ip_options", 0, "bytes of IPv4 options"};
inline constexpr KindParam packet_ip_frag{"packet_ip_frag", 0, "1: the packet is an IP fragment"};
inline constexpr KindParam packet_eth_src{"packet_eth_src", 0, "the packet's source MAC"};
inline constexpr KindParam packet_eth_dst{"packet_eth_dst", 0, "the packet's destination MAC"};
inline constexpr KindParam packet_src{"packet_src", 0, "the packet's source address"};
inline constexpr KindParam packet_dst{"packet_dst", 0, "the packet's destination address"};
inline constexpr KindParam check_output{"check_output", 0, "1: every call's return value (and packet) is checked"};
inline constexpr KindParam expect_retval{"expect_retval", 0, "check_output: the return value every call must give"};
inline constexpr KindParam expect_packet{"expect_packet", 0, "check_output: `any`, `input` or `encap`"};
inline constexpr KindParam expect_outer_src{"expect_outer_src", 0, "expect_packet encap: the outer source address"};
inline constexpr KindParam expect_outer_dst{"expect_outer_dst", 0,
                                            "expect_packet encap: the outer destination address"};
inline constexpr KindParam expect_eth_src{"expect_eth_src", 0, "expect_packet encap: the source MAC"};
inline constexpr KindParam expect_eth_dst{"expect_eth_dst", 0, "expect_packet encap: the destination MAC"};
// ringbuf, perfbuf consumers
inline constexpr KindParam consumer{"consumer", 0, "`libbpf` or `custom`: which reader drains the buffer"};
inline constexpr KindParam sampled{"sampled", 0, "1: wake up every sample_rate records"};
inline constexpr KindParam record_count{"record_count", 0, "`atomic`: count each record with a locked add"};
inline constexpr KindParam sample_rate{"sample_rate", 1, "records per wakeup when sampled"};
inline constexpr KindParam perfbuf_pages{"perfbuf_pages", 128, "perf buffer data pages per CPU"};
// socket consumer
inline constexpr KindParam verify{"verify", 0, "`per_byte`: the kernel bench's byte-at-a-time check"};
// metric sources kthread_stime, batch_timing
inline constexpr KindParam kthread_pid{"kthread_pid", 0, "> 0: the kernel thread by pid instead of by comm"};
inline constexpr KindParam timing_samples{"timing_samples", 0, "stop at this many timed batches per producer (0: at the end)"};
// the harness, whatever the kinds (runtime/consumer_setup.cpp)
inline constexpr KindParam back2back{"back2back", 0, "1: the consumer thread triggers each batch after a drain"};
}  // namespace kind_params

// One row of a kind's table. `served_by` names the runtime code that implements the kind
// ("" for kinds only the compiler reads); `params` what it reads from the point.
template <typename Kind>
struct KindInfo {
  Kind kind;
  const char *name;  // the spelling in family.json
  const char *doc;   // one line, for docs and messages
  const char *served_by;
  std::span<const KindParam> params = {};
};

// Each kind's table, in the order messages list the names.
template <typename Kind>
std::span<const KindInfo<Kind>> kind_table();
template <>
std::span<const KindInfo<ProducerKind>> kind_table<ProducerKind>();
template <>
std::span<const KindInfo<ConsumerKind>> kind_table<ConsumerKind>();
template <>
std::span<const KindInfo<AttachKind>> kind_table<AttachKind>();
template <>
std::span<const KindInfo<SetupActionKind>> kind_table<SetupActionKind>();
template <>
std::span<const KindInfo<MetricSourceKind>> kind_table<MetricSourceKind>();

// Whether a program attached this way needs a `target` in its manifest (a function, or
// provider:name for usdt).
bool attach_needs_target(AttachKind k);

template <typename Kind>
const KindInfo<Kind> &kind_info(Kind k) {
  for (const auto &i : kind_table<Kind>())
    if (i.kind == k) return i;
  return kind_table<Kind>().front();  // unreachable: every enumerator has a row
}

template <typename Kind>
const char *kind_name(Kind k) {
  return kind_info(k).name;
}

template <typename Kind>
std::optional<Kind> parse_kind(std::string_view name) {
  for (const auto &i : kind_table<Kind>())
    if (name == i.name) return i.kind;
  return std::nullopt;
}

template <typename Kind>
std::vector<std::string> kind_names() {
  std::vector<std::string> out;
  for (const auto &i : kind_table<Kind>()) out.emplace_back(i.name);
  return out;
}

// A metric's `source`, parsed: `counter:<var>`, `producer`, `consumer`, `ratio:<a>/<b>`,
// `sum:<a>+<b>[+...]`, `kthread_stime:<comm>`, `cgroup_memory:current|peak`,
// `batch_timing:<stat>` (a statistic of the in-BPF batch timing samples: batch_timing_stats()).
struct MetricSource {
  MetricSourceKind kind = MetricSourceKind::Producer;
  std::string operand;             // counter: the .bss variable; kthread_stime: the comm; ratio: a;
                                   // cgroup_memory: current | peak; batch_timing: the statistic
  std::string denominator;         // ratio: b
  std::vector<std::string> terms;  // sum: the metrics added, two or more, each once
  std::string text() const;        // the manifest spelling
  bool operator==(const MetricSource &o) const = default;
};

// Parses `text`; an error when it is not one of the forms above (the names inside are
// checked for shape only; ratio operands and sum terms are checked against the family's
// metrics by the manifest reader).
Result<MetricSource> parse_metric_source(const std::string &text);

// How a metric's per-interval values are reported (family.json metric `reported`):
// Rate: a count per interval as millions per second ("M/s"); AsIs: the value in the
// metric's own unit (a ratio of two counts, or a count per second, e.g. CPU ticks).
enum class MetricReport { Rate, AsIs };
// The default of a source kind: ratios, kernel-thread ticks and cgroup memory as they
// are, counts (sums of counts too) as rates.
MetricReport default_report_of(MetricSourceKind k);

// A level rather than a count: the value each interval reads is the state at its end
// (bytes a memory cgroup holds; a statistic of the batch timing samples so far), reported
// in the metric's unit, never divided by time.
bool is_level_source(MetricSourceKind k);
// What one unit of a level metric is in the raw per-interval value: bytes per `unit` for
// cgroup memory ("B" 1, "KiB" 1024, "MiB", "GiB"; 0 for any other unit: the manifest
// reader refuses those); 1000 for batch_timing, whose values are kept in thousandths.
double level_unit_scale(MetricSourceKind k, const std::string &unit);
// The statistics a `batch_timing:<stat>` source may name (results/batch_timing.hpp).
std::span<const char *const> batch_timing_stats();

// Which way is better for `compare` (family.json metric `better`). The default, also used
// for results files that do not say: lower for a reported unit of ns/op or a name that
// contains "latency", higher otherwise.
bool default_higher_is_better(const std::string &metric, const std::string &reported_unit);

}  // namespace bpfbench

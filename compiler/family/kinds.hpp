// The kinds family.json names (producer, consumer, attach, setup action, metric source):
// one enum and one table per kind, parsed once at manifest load, so later stages switch on
// a value instead of comparing strings (in the spirit of bpftrace's probe_types.h).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/bdsl/names.hpp"  // is_identifier, is_name: the name rules of manifests

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
  // Issue 16 (families-a): user-space-only counting, the rename workload, nop5 and USDT targets.
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
  None
};
// What drains the buffer a program writes (runtime/consumers/).
enum class ConsumerKind { None, Ringbuf, Perfbuf, Socket };
// How a program is attached (runtime/bpf_object.cpp).
enum class AttachKind { Auto, Uprobe, Uretprobe, UprobeMulti, UretprobeMulti, Usdt, Cgroup, TestRun, None };
// A step run on the loaded object before attach (runtime/setup_actions.cpp; its keys are
// checked by compiler/family/setup_spec.cpp).
enum class SetupActionKind { CalibrateBatch, Fork, InnerMaps, Prefill, RunProgram, SocketPairs, Sockmap };
// Where a metric's per-interval value comes from (the sampler in runtime/run_point.cpp).
enum class MetricSourceKind { Counter, Producer, Consumer, Ratio, Sum, KthreadStime, CgroupMemory, BatchTiming };

// One row of a kind's table. `served_by` names the runtime code that implements the kind
// ("" for kinds only the compiler reads).
template <typename Kind>
struct KindInfo {
  Kind kind;
  const char *name;  // the spelling in family.json
  const char *doc;   // one line, for docs and messages
  const char *served_by;
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

// Parses `text`; nullopt + `why` when it is not one of the forms above (the names inside
// are checked for shape only; ratio operands and sum terms are checked against the
// family's metrics by the manifest reader).
std::optional<MetricSource> parse_metric_source(const std::string &text, std::string &why);

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

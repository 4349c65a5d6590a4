// The RunPlan: every sweep point fully resolved, in file order. Input of emit and the runtime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/source.hpp"

namespace bpfbench {

// `code <hook> { C }` of the point's bench (compiler/bpf/code_hooks.hpp inserts it).
struct PlanCode {
  std::string hook;
  std::string text;        // raw C, byte for byte
  SourceRange text_range;  // starts at the text's first byte
  SourceRange range;       // the whole block
};

// `expect <metric> <op> <value>;`: judged on the point's summary after it ran
// (runtime/expectations.hpp). `value` is in the unit the metric is reported in.
struct PlanExpectation {
  std::string metric;
  std::string op;  // < <= > >= == !=
  double value = 0;
  std::string unit;  // the metric's reported unit ("M/s", "ns/op", ...), for messages
  std::string text;  // as written, e.g. "hits > 0"
  SourceRange range;
};

struct PlanPoint {
  size_t index = 0;        // position in the plan
  // Its index in the file's whole plan, as `bpfbench plan FILE` numbers it: `index` until
  // --only keeps some points and renumbers them (session/point_select.hpp); this one stays.
  size_t file_index = 0;
  size_t bench_index = 0;  // which `bench` statement (file order)
  std::string suite;       // suite title, "" outside a suite
  std::string family;
  std::string label;    // interpolated label, unique within the plan
  std::string program;  // the selected ProgramSpec name
  // Every family param in manifest order, with the value for this point.
  std::vector<std::pair<std::string, ParamValue>> params;
  // Parallel to params: where each value was written in the .bdsl (invalid = default).
  std::vector<SourceRange> param_ranges;
  // Parallel to builtin_names(): where each builtin setting was written (invalid = default).
  std::vector<SourceRange> builtin_ranges;

  int64_t warmup_ns = 0;
  int64_t duration_ns = 0;
  int producers = 1;
  int consumers = 1;
  bool affinity = false;
  std::string prod_cpus;  // cpuset text ("0-3,8"), "" = any
  std::string cons_cpus;
  std::vector<std::string> report;  // metrics to print
  // Adaptive run length (`until ci < X%` or --precision): > 0 = sample until the 95% CI
  // half-width of the first reported metric is at most this percent of its mean, after at
  // least min_duration_ns and at most max_duration_ns of measuring (duration_ns unused).
  double precision_pct = 0;
  int64_t min_duration_ns = 1'500'000'000;
  int64_t max_duration_ns = 30'000'000'000;
  // Sampling interval: 1 s like the kernel bench; adaptive points sample every 250 ms
  // (kAdaptiveIntervalNs) so that a tight CI needs no more measuring time, only more
  // and shorter intervals. `run --interval` sets it for every point.
  int64_t interval_ns = 1'000'000'000;
  // `rounds N` / `run --rounds N`: measured N times, round-robin over the plan, a whole run
  // each; the CI is over the round means (runtime/rounds.hpp). With a precision target:
  // at least N rounds of min_duration each, more until the target is met.
  int rounds = 1;

  SourceRange bench_range;  // the bench statement, for runtime errors

  // `baseline < ... >`: a baseline point (label "<main label>-baseline") runs right
  // before its main point, which then reports `<metric>_adj` = main - baseline.
  bool is_baseline = false;
  std::optional<size_t> baseline;  // main point: index of its baseline point

  std::vector<PlanCode> code;                 // inline C (same for every point of a bench)
  std::vector<PlanExpectation> expectations;  // none on baseline points

  const ParamValue *param(const std::string &name) const;
  // An int param's value, or `fallback` when the point has none (or not an int).
  int64_t int_param(const std::string &name, int64_t fallback) const;
  // A param a kind reads (compiler/family/kinds.hpp), by its one spelling; an int one
  // falls back to the row's fallback.
  const ParamValue *param(const KindParam &k) const { return param(k.name); }
  int64_t int_param(const KindParam &k) const { return int_param(k.name, k.fallback); }
};

struct RunPlan {
  std::string file;  // the main .bdsl path
  std::vector<PlanPoint> points;
};

}  // namespace bpfbench

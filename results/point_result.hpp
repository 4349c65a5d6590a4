// What one point's run produced: status, samples, summary, per-CPU rates, expectations.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "results/batch_timing.hpp"
#include "util/error.hpp"
#include "results/expectations.hpp"
#include "results/prog_info.hpp"
#include "results/histogram.hpp"
#include "results/hw_counts.hpp"
#include "results/interference.hpp"
#include "results/profile.hpp"
#include "results/sample.hpp"
#include "results/stats.hpp"

namespace bpfbench {

struct PerCpuRate {
  int cpu = 0;
  uint64_t ops = 0, ns = 0;  // over the measured intervals
  double rate = 0;           // ops per second of BPF time: ops * 1e9 / ns
  // One rate per measured interval in which this CPU ran the program (ops * 1e9 / ns of
  // that interval), and the BPF time those intervals held together: the samples the
  // kernel bench's bpf-hashmap-lookup line averages (there: single program runs).
  std::vector<double> sample_rates{};
  uint64_t sample_ns = 0;
};

// One `spec.line` per CPU and, unless `spec.total` is false, a total line. Fields:
// {cpu} the CPU number ("total" on the total line), {cpu02} the same in two digits,
// {rate} ops per second of BPF time as an integer, {mean_m} the mean of the sample rates
// and {spread_m} twice their standard deviation, in millions with 3 decimals, {samples}
// their count and {sample_ms} the mean BPF time of one sample in whole ms. The total line
// sums the rates and the means; its spread is left 0.
std::string format_per_cpu(const PerCpuSpec &spec, const std::vector<PerCpuRate> &rates);

// A run-time self-check of the point: two counts of the same events (family.json
// `self_checks`, runtime/self_checks.hpp) or another invariant the runtime verifies.
// `ok` false fails the point, with both numbers in its reason.
struct SelfCheck {
  std::string name;
  double expected;
  double observed;
  bool ok;
  std::string detail;
};

struct PointResult {
  enum class Status { Ok, Skipped, Failed, Interrupted };
  Status status = Status::Ok;
  std::string reason;             // Skipped/Failed: why (one line)
  std::optional<BpfError> error;  // Failed in open/load/attach: the details
  std::vector<Sample> warmup, samples;
  Summary summary;  // over `samples` only
  int producers = 1;
  std::vector<std::string> report;  // metrics to print (the point's, else the family's)
  double precision_pct = 0;         // adaptive run: the CI target (0 = fixed duration)
  bool precision_reached = false;   // adaptive run: stopped because the target was met
  std::string precision_note;       // adaptive run: why the target is undefined (precision_undefined())
  double setup_s = 0;               // wall time of the family's setup actions
  // `run --rounds`: the measured samples per round, in order (`samples` holds them one
  // round after another); empty for a point measured in one run.
  std::vector<size_t> round_sizes;
  std::vector<PerCpuRate> per_cpu;  // families with `per_cpu`: each CPU's rate (measured part)
  // `expect` results, filled by the caller once the summary is final (after a baseline
  // adjustment): one failed makes the point FAILED in reports and the run exit 1, while
  // `status` stays Ok (its numbers are real). Empty when the point has none or did not run.
  std::vector<ExpectationResult> expectations;
  // The self-checks that ran (none when the point did not get to the end of its run).
  std::vector<SelfCheck> self_checks;
  // BPF run-time stats of the point's programs (results/prog_info.hpp) and the verifier's
  // and JIT's facts of every loaded program.
  ProgStatsInfo prog_stats;
  std::vector<ProgFacts> prog_facts;
  // The measured part's latency histogram, for templates that keep one (`bb_lat_hist`,
  // a family's `latency_hist` param); rounds add theirs up.
  std::optional<LatencyHistogram> latency_hist;
  // Templates with in-BPF batch timing (BB_BATCH_LOOP): the batch size and every sample.
  std::optional<BatchTimingResult> batch_timing;
  // `run --profile`: perf's top symbols of the measured part, or why there are none.
  std::optional<ProfileSummary> profile;
  // `run --hw-counters` where the machine has a PMU: cycles, instructions, cache misses.
  std::optional<HwCounts> hw_counters;
  // What ran beside the point (results/interference.hpp): other bpfbench processes, busy
  // measured CPUs, foreign BPF programs on its hooks. Absent when the point did not get to
  // its measured part; `interference->found()` marks it (run warns, compare calls it noisy,
  // ab keeps a note per turn: AbPointReport::note_interference).
  std::optional<Interference> interference;
};
const char *to_string(PointResult::Status s);

}  // namespace bpfbench

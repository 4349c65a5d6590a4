// In-BPF batch timing results (bpfbench_shared.h's BB_BATCH_LOOP; runtime/batch_timing.hpp
// reads them): the time per operation of each timed batch, its statistics, and the
// kernel bench's report of them (bench_bpf_timing.c: bpf-nop, xdp-lb). Pure: no kernel.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

// What a point's batches measured: every sample (a batch's ns / batch_iters), sorted.
struct BatchTimingResult {
  uint32_t batch_iters = 0;            // timed operations per batch (one more runs untimed)
  bool calibrated = false;             // batch_iters from the calibration, not from the point
  uint64_t calibration_ns_per_op = 0;  // calibrated: the seed batches' ns per operation (0: none)
  double ratio_2n_n = 0;               // calibrated: time of 2N over N operations (0: no samples)
  std::vector<double> per_op_ns;       // sorted
};

// The statistics bench_bpf_timing reports, with its rules: with 8 samples or more, those
// outside Tukey's fences (more than 1.5 interquartile ranges below the first quartile,
// sorted[n/4], or above the third, sorted[3n/4]) are dropped first; then percentile p of
// the n kept is the value at min(floor(n * p / 100), n - 1), the median the one at n / 2,
// stddev the sample standard deviation (n - 1). All 0 without samples.
struct BatchTimingStats {
  int count = 0;     // samples kept
  int outliers = 0;  // samples dropped
  double min = 0, max = 0, p1 = 0, p5 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0, p95 = 0, p99 = 0, mean = 0, stddev = 0;
  double cv() const { return mean > 0 ? stddev / mean * 100.0 : 0.0; }  // percent
};
BatchTimingStats batch_timing_stats(const std::vector<double> &sorted);

// A statistic by its name in a `batch_timing:<stat>` metric source (compiler/family/kinds.hpp:
// samples, outliers, min, max, mean, stddev, cv, p1 ... p99); nullopt for another name.
std::optional<double> batch_timing_stat(const BatchTimingStats &s, const std::string &name);

// What the kernel bench's calibration writes to stderr: "calibration: no timing samples,
// using default" when the seed batches took none, its warning when 2N/N is more than 5 %
// off 2; "" otherwise and when batch_iters was fixed.
std::string format_batch_calibration_warning(const BatchTimingResult &r);

// Its report line: "NAME: median 35.91 ns/op, stddev 0.71, p99 38.02 (200 samples)", or
// "No timing samples collected.".
std::string format_batch_timing_report(const BatchTimingResult &r, const std::string &name);

// Its --machine-readable line: "RESULT scenario=NAME samples=N median=... max=...".
std::string format_batch_timing_result_line(const BatchTimingResult &r, const std::string &name);

// The results file's `batch_timing` (docs/json-schema.md): the batch size, how it was
// chosen, and the statistics of the samples (not the samples themselves).
nlohmann::json batch_timing_to_json(const BatchTimingResult &r);

// bpfbench's own line for `run`: "batch timing: 212 batches of 277777 ops (calibrated,
// 2N/N 2.001; 3 outliers dropped): p50 35.9 p90 36.4 p99 38.0 ns/op, stddev 0.7".
std::string format_batch_timing_summary(const BatchTimingResult &r);

}  // namespace bpfbench

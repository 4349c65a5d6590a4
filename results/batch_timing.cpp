#include "results/batch_timing.hpp"

#include <fmt/format.h>
#include <fmt/printf.h>

#include <algorithm>
#include <cmath>

namespace bpfbench {
namespace {

double at_percentile(const double *v, size_t n, double pct) {
  const size_t i = static_cast<size_t>(double(n) * pct / 100.0);
  return v[std::min(i, n - 1)];
}

}  // namespace

BatchTimingStats batch_timing_stats(const std::vector<double> &sorted) {
  BatchTimingStats s;
  size_t from = 0, to = sorted.size();
  if (sorted.size() >= 8) {  // Tukey's fences
    const size_t n = sorted.size();
    const double q1 = sorted[n / 4], q3 = sorted[3 * n / 4], iqr = q3 - q1;
    while (from < to && sorted[from] < q1 - 1.5 * iqr) ++from;
    while (to > from && sorted[to - 1] > q3 + 1.5 * iqr) --to;
  }
  const double *v = sorted.data() + from;
  const size_t n = to - from;
  s.count = static_cast<int>(n);
  s.outliers = static_cast<int>(sorted.size() - n);
  if (n == 0) return s;
  s.min = v[0];
  s.max = v[n - 1];
  s.p1 = at_percentile(v, n, 1);
  s.p5 = at_percentile(v, n, 5);
  s.p25 = at_percentile(v, n, 25);
  s.p50 = v[n / 2];
  s.p75 = at_percentile(v, n, 75);
  s.p90 = at_percentile(v, n, 90);
  s.p95 = at_percentile(v, n, 95);
  s.p99 = at_percentile(v, n, 99);
  double sum = 0, squares = 0;
  for (size_t i = 0; i < n; ++i) sum += v[i];
  s.mean = sum / double(n);
  for (size_t i = 0; i < n; ++i) squares += (v[i] - s.mean) * (v[i] - s.mean);
  s.stddev = n > 1 ? std::sqrt(squares / double(n - 1)) : 0.0;
  return s;
}

std::optional<double> batch_timing_stat(const BatchTimingStats &s, const std::string &name) {
  const std::pair<const char *, double> all[] = {
      {"samples", s.count}, {"outliers", s.outliers}, {"min", s.min}, {"max", s.max}, {"mean", s.mean},
      {"stddev", s.stddev}, {"cv", s.cv()},           {"p1", s.p1},   {"p5", s.p5},   {"p25", s.p25},
      {"p50", s.p50},       {"p75", s.p75},           {"p90", s.p90}, {"p95", s.p95}, {"p99", s.p99}};
  for (const auto &[n, x] : all)
    if (name == n) return x;
  return std::nullopt;
}

std::string format_batch_calibration_warning(const BatchTimingResult &r) {
  if (!r.calibrated) return "";
  if (r.calibration_ns_per_op == 0 && r.ratio_2n_n <= 0) return "calibration: no timing samples, using default\n";
  const double error = std::fabs(r.ratio_2n_n - 2.0) / 2.0;
  if (r.ratio_2n_n <= 0 || error <= 0.05) return "";
  return fmt::sprintf("WARNING: proportionality check failed (2N/N ratio=%.3f, expected=2.000, error=%.1f%%)\n"
                      "  System noise may be affecting results.\n",
                      r.ratio_2n_n, error * 100.0);
}

std::string format_batch_timing_report(const BatchTimingResult &r, const std::string &name) {
  const BatchTimingStats s = batch_timing_stats(r.per_op_ns);
  if (s.count == 0) return "No timing samples collected.";
  return fmt::sprintf("%s: median %.2f ns/op, stddev %.2f, p99 %.2f (%d samples)", name, s.p50, s.stddev, s.p99,
                      s.count);
}

std::string format_batch_timing_result_line(const BatchTimingResult &r, const std::string &name) {
  const BatchTimingStats s = batch_timing_stats(r.per_op_ns);
  if (s.count == 0) return "No timing samples collected.";
  return fmt::sprintf("RESULT scenario=%s samples=%d median=%.2f stddev=%.2f cv=%.2f min=%.2f p99=%.2f max=%.2f", name,
                      s.count, s.p50, s.stddev, s.cv(), s.min, s.p99, s.max);
}

nlohmann::json batch_timing_to_json(const BatchTimingResult &r) {
  const BatchTimingStats s = batch_timing_stats(r.per_op_ns);
  nlohmann::json j = {
      {"batch_iters", r.batch_iters}, {"calibrated", r.calibrated}, {"samples", s.count}, {"outliers", s.outliers}};
  if (r.calibrated) {
    j["calibration_ns_per_op"] = r.calibration_ns_per_op;
    j["ratio_2n_n"] = r.ratio_2n_n;
  }
  if (s.count == 0) return j;
  nlohmann::json ns = nlohmann::json::object();
  for (const char *stat : {"min", "p1", "p5", "p25", "p50", "p75", "p90", "p95", "p99", "max", "mean", "stddev"})
    ns[stat] = *batch_timing_stat(s, stat);
  j["ns_per_op"] = ns;
  return j;
}

std::string format_batch_timing_summary(const BatchTimingResult &r) {
  const BatchTimingStats s = batch_timing_stats(r.per_op_ns);
  std::string how = r.calibrated ? fmt::format("calibrated, 2N/N {:.3f}", r.ratio_2n_n) : "fixed";
  if (s.outliers) how += fmt::format("; {} outlier{} dropped", s.outliers, s.outliers == 1 ? "" : "s");
  if (s.count == 0) return fmt::format("batch timing: no samples ({} ops a batch, {})", r.batch_iters, how);
  return fmt::format("batch timing: {} batches of {} ops ({}): p50 {:.1f} p90 {:.1f} p99 {:.1f} ns/op, stddev {:.1f}",
                     s.count, r.batch_iters, how, s.p50, s.p90, s.p99, s.stddev);
}

}  // namespace bpfbench

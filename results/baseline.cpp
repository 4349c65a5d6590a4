#include "results/baseline.hpp"

#include <cmath>

#include "results/stat_math.hpp"

namespace bpfbench {

namespace {

// The 95% CI half-width of main - baseline, two independent means: Welch (se² = se_m² +
// se_b², t with Welch–Satterthwaite df), each side on its mean_basis() like `compare`.
// 0 when a side has fewer than two values, as ci_half_width() (no spread to judge by).
double difference_ci95(const MetricSummary &m, const MetricSummary &b) {
  auto [sd_m, n_m] = mean_basis(m);
  auto [sd_b, n_b] = mean_basis(b);
  if (n_m < 2 || n_b < 2) return 0;
  WelchResult w = welch_t_test(b.mean, sd_b, n_b, m.mean, sd_m, n_m);
  return (w.ci_high - w.ci_low) / 2;
}

}  // namespace

bool baseline_subtracts(const std::string &unit) { return unit == "ns/op" || unit == "ns/run"; }

void apply_baseline(PointResult &main, const PointResult &baseline) {
  using S = PointResult::Status;
  if (baseline.status != S::Ok || (main.status != S::Ok && main.status != S::Interrupted)) return;
  std::vector<std::string> report;
  std::vector<MetricSummary> added;
  for (const auto &name : main.report) {
    report.push_back(name);
    const MetricSummary *m = main.summary.find(name);
    const MetricSummary *b = baseline.summary.find(name);
    // Only costs subtract: a rate minus a rate is not the rate of the difference.
    if (!m || !b || m->unit != b->unit || !baseline_subtracts(m->unit)) continue;
    MetricSummary adj = *m;
    adj.name = name + "_adj";
    adj.mean = m->mean - b->mean;
    adj.median = m->median - b->median;
    adj.min = m->min - b->max;
    adj.max = m->max - b->min;
    adj.stddev = std::sqrt(m->stddev * m->stddev + b->stddev * b->stddev);
    adj.cv = adj.mean != 0 ? adj.stddev / std::fabs(adj.mean) : 0.0;
    adj.ci95 = difference_ci95(*m, *b);
    // The difference has no round means of its own: main's would make `compare` test
    // main's spread alone.
    adj.round_means.clear();
    adj.per_prod = adj.mean;
    // Each interval of main less the baseline's mean: the values the adjusted numbers
    // describe (their spread is main's; the baseline's is in stddev and ci95 above), so a
    // reader of `values` sees the cost of the difference, not main's raw cost. The
    // outliers do not move with a constant shift.
    for (double &v : adj.values) v -= b->mean;
    if (!m->has_value() || !b->has_value())
      mark_no_value(adj, m->has_value() ? "the baseline's " + name + " has no value: " + b->no_value : m->no_value);
    added.push_back(adj);
    report.push_back(adj.name);
  }
  for (auto &a : added) main.summary.metrics.push_back(std::move(a));
  main.report = std::move(report);
}

}  // namespace bpfbench

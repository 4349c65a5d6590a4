// Summary statistics of a point's measured samples (warmup excluded), per metric.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "results/sample.hpp"

namespace bpfbench {

// Rates are in millions of events per second of each interval's real length; `per_prod`
// divides the mean by the number of producers. `stddev` is the sample standard deviation
// (n-1), 0 with fewer than two samples. `cv` = stddev / |mean|; `ci95` is the half-width
// of the 95% confidence interval of the mean (Student t, n-1 df); `outliers` are indices
// into the samples whose modified z-score (MAD based) exceeds 3.5.
struct MetricSummary {
  std::string name;
  std::string unit;              // "M/s" for counts, "ns/op" for latency, manifest unit for ratios
  bool higher_is_better = true;  // for `compare`: the metric's `better`
  double mean = 0, stddev = 0, min = 0, max = 0, median = 0, per_prod = 0;
  size_t n = 0;
  double cv = 0, ci95 = 0;
  std::vector<size_t> outliers;
  std::vector<double> values;  // the per-sample values the numbers above come from
  // A point measured in several rounds (`run --rounds`): each round's mean. Then `mean`
  // is their mean and `ci95` the CI over them (t with rounds-1 df), which holds the
  // run-to-run variation; stddev, cv, median, min, max and outliers stay per interval.
  std::vector<double> round_means;
  // A derived metric whose denominator is zero has no value (latency of a program that
  // never counted, a ratio over nothing): then this says why, the numbers are NaN, JSON
  // holds null, reports print "n/a" and an expectation on it fails.
  std::string no_value;
  bool has_value() const { return no_value.empty(); }
  double rel_ci() const;  // ci95 / |mean| (0 when the mean is 0)
};

// `m` turned into a metric with no value, for `reason`.
void mark_no_value(MetricSummary &m, std::string reason);

struct Summary {
  std::vector<MetricSummary> metrics;
  std::string primary;                // the metric precision and warnings refer to
  std::vector<std::string> warnings;  // noisy point, first interval far off the rest
  const MetricSummary *find(const std::string &name) const;
};

// Thresholds of the warnings.
constexpr double kNoisyCv = 0.05;           // CV above 5%
constexpr double kFirstOffRelative = 0.05;  // first interval >5% and >3 sd off the rest

// Adds to one interval's counts (metric name -> count) those of the `sum:a+b` metrics:
// the sum of their terms' counts. The sampler calls it on each interval
// (runtime/point_observers.cpp), so a sum is a count like any other afterwards: in the samples
// of the results file, in rates, `total_ops`, a derived `latency` and ratios.
void add_sum_counts(const std::vector<MetricSpec> &metrics, std::map<std::string, uint64_t> &counts);

// Per-sample values of a metric: `ratio:a/b` sources become a/b of the same interval;
// counts reported as they are (report_of(), compiler/family/manifest.hpp) become counts per
// second, in the spec's unit; every other count becomes a rate in M/s.
std::vector<double> metric_values(const std::vector<Sample> &samples, const MetricSpec &m);

// Summaries of every family metric, plus "total_ops" (the sum of the metrics that count
// in it, counts_in_total_ops()) and, when `report` asks for it and the family declares
// none, "latency" = 1000 / (the throughput metric's M/s per producer) in ns/op (what the
// kernel bench prints for hits; a family whose operations are hits + misses makes a
// `sum:hits+misses` metric the throughput one, and latency is per operation). `primary`
// is the report's first metric, else the throughput one.
Summary summarize(const std::vector<Sample> &samples, const std::vector<MetricSpec> &metrics, int producers,
                  const std::vector<std::string> &report);

// One metric's statistics over per-sample values.
MetricSummary summarize_metric(const std::string &name, const std::string &unit, const std::vector<double> &values,
                               int producers);

// Indices of values with |x - median| / (1.4826 * MAD) > threshold (Iglewicz–Hoaglin);
// none when MAD is 0 (no scale to judge by).
std::vector<size_t> mad_outliers(const std::vector<double> &v, double threshold = 3.5);

// Whether v[0] is far off the mean of the rest (needs >= 4 values): more than
// kFirstOffRelative of it and more than 3 standard deviations of the rest.
bool first_sample_off(const std::vector<double> &v);

// The warnings for a summary's primary metric ("noisy", "first interval off").
std::vector<std::string> summary_warnings(const MetricSummary &primary);

// Lag-1 autocorrelation of v (0 when there are fewer than 3 values or they are equal).
double lag1_autocorrelation(const std::vector<double> &v);

// The relative CI the stop rule judges: ci95/|mean| widened by sqrt((1 + r1) / (1 - r1)),
// the AR(1) variance factor, when consecutive intervals are positively correlated (r1 > 0,
// capped at 0.9) — short intervals under slowly drifting load are, and their plain CI
// would stop a run on a calm stretch.
double stop_rel_ci(const MetricSummary &m);

// Adaptive run length: stop once stop_rel_ci() is at most `target_pct` percent, after at
// least `min_samples`; `max_samples` always ends it. A CI relative to a mean of 0 (a
// metric that never counted, an all-zero one) is undefined and no number of samples
// reaches it: Undefined then stops the run at `min_samples` (precision_undefined() says why).
struct PrecisionRule {
  double target_pct = 0;
  size_t min_samples = 3;
  size_t max_samples = 30;
};
enum class AdaptiveState { Continue, Reached, Limit, Undefined };
AdaptiveState adaptive_state(const MetricSummary &primary, const PrecisionRule &rule);

// Why a relative precision of `m` is undefined (its mean is 0, or it has no value); ""
// when it is defined. The note an adaptive point's output and JSON carry.
std::string precision_undefined(const MetricSummary &m);

// What the CI of a metric's mean is computed from: (standard deviation, count) of its
// round means when it has two or more (run-to-run variation included), else of its
// intervals. compare and the baseline's `_adj` columns test and combine means on this.
std::pair<double, size_t> mean_basis(const MetricSummary &m);

double mean_of(const std::vector<double> &v);
double stddev_of(const std::vector<double> &v);  // n-1
double median_of(std::vector<double> v);
// The q-quantile of `v` (0 <= q <= 1), linear between order statistics; 0 when `v` is empty.
double quantile_of(std::vector<double> v, double q);

}  // namespace bpfbench

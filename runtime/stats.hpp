// Summary statistics of a point's measured samples (warmup excluded), per metric.
#pragma once

#include <string>
#include <vector>

#include "compiler/manifest.hpp"
#include "runtime/harness.hpp"

namespace bpfbench {

// Rates are in millions of events per second of each interval's real length; `per_prod`
// divides the mean by the number of producers. `stddev` is the sample standard deviation
// (n-1), 0 with fewer than two samples.
struct MetricSummary {
  std::string name;
  std::string unit;  // "M/s" for counts, "ns/op" for latency, manifest unit for ratios
  double mean = 0, stddev = 0, min = 0, max = 0, median = 0, per_prod = 0;
  size_t n = 0;
};

struct Summary {
  std::vector<MetricSummary> metrics;
  const MetricSummary *find(const std::string &name) const;
};

// Per-sample values of a metric: counts become M/s; `ratio:a/b` sources become a/b of
// the same interval. "total_ops" is hits + drops. Empty when the metric is unknown.
std::vector<double> metric_values(const std::vector<Sample> &samples, const MetricSpec &m);

// Summaries of every family metric, plus "total_ops" (hits + drops) and, when `report`
// asks for it and the family declares none, "latency" = 1000 / (hits M/s per producer)
// in ns/op (what the kernel bench prints).
Summary summarize(const std::vector<Sample> &samples, const std::vector<MetricSpec> &metrics,
                  int producers, const std::vector<std::string> &report);

double mean_of(const std::vector<double> &v);
double stddev_of(const std::vector<double> &v);  // n-1
double median_of(std::vector<double> v);

}  // namespace bpfbench

#include "results/baseline.hpp"

#include <cmath>

namespace bpfbench {

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
    if (!m || !b || m->unit != "ns/op") continue;
    MetricSummary adj = *m;
    adj.name = name + "_adj";
    adj.mean = m->mean - b->mean;
    adj.median = m->median - b->median;
    adj.min = m->min - b->max;
    adj.max = m->max - b->min;
    adj.stddev = std::sqrt(m->stddev * m->stddev + b->stddev * b->stddev);
    adj.per_prod = adj.mean;
    if (!m->has_value() || !b->has_value())
      mark_no_value(adj, m->has_value() ? "the baseline's " + name + " has no value: " + b->no_value : m->no_value);
    added.push_back(adj);
    report.push_back(adj.name);
  }
  for (auto &a : added) main.summary.metrics.push_back(std::move(a));
  main.report = std::move(report);
}

}  // namespace bpfbench

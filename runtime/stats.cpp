#include "runtime/stats.hpp"

#include <algorithm>
#include <cmath>

namespace bpfbench {

const MetricSummary *Summary::find(const std::string &name) const {
  for (const auto &m : metrics)
    if (m.name == name) return &m;
  return nullptr;
}

double mean_of(const std::vector<double> &v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

double stddev_of(const std::vector<double> &v) {
  if (v.size() < 2) return 0;
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

namespace {

double count_of(const Sample &s, const std::string &name) {
  auto it = s.deltas.find(name);
  return it == s.deltas.end() ? 0.0 : double(it->second);
}

double rate(const Sample &s, const std::string &name) {
  return s.duration_s > 0 ? count_of(s, name) / 1e6 / s.duration_s : 0.0;
}

MetricSummary summarize_values(const std::string &name, const std::string &unit,
                               const std::vector<double> &v, int producers) {
  MetricSummary m;
  m.name = name;
  m.unit = unit;
  m.n = v.size();
  m.mean = mean_of(v);
  m.stddev = stddev_of(v);
  m.median = median_of(v);
  if (!v.empty()) {
    m.min = *std::min_element(v.begin(), v.end());
    m.max = *std::max_element(v.begin(), v.end());
  }
  m.per_prod = producers > 0 ? m.mean / producers : m.mean;
  return m;
}

}  // namespace

std::vector<double> metric_values(const std::vector<Sample> &samples, const MetricSpec &m) {
  std::vector<double> v;
  if (m.source.rfind("ratio:", 0) == 0) {
    std::string r = m.source.substr(6);
    size_t slash = r.find('/');
    if (slash == std::string::npos) return v;
    std::string a = r.substr(0, slash), b = r.substr(slash + 1);
    for (const auto &s : samples) {
      double den = count_of(s, b);
      v.push_back(den > 0 ? count_of(s, a) / den : 0.0);
    }
    return v;
  }
  for (const auto &s : samples) v.push_back(rate(s, m.name));
  return v;
}

Summary summarize(const std::vector<Sample> &samples, const std::vector<MetricSpec> &metrics,
                  int producers, const std::vector<std::string> &report) {
  Summary sum;
  bool has_latency = false;
  for (const auto &m : metrics) {
    bool ratio = m.source.rfind("ratio:", 0) == 0;
    std::string unit = ratio ? m.unit : "M/s";
    sum.metrics.push_back(summarize_values(m.name, unit, metric_values(samples, m), producers));
    has_latency |= m.name == "latency";
  }
  std::vector<double> total;
  for (const auto &s : samples) total.push_back(rate(s, "hits") + rate(s, "drops"));
  sum.metrics.push_back(summarize_values("total_ops", "M/s", total, producers));

  bool want_latency = std::find(report.begin(), report.end(), "latency") != report.end();
  if (want_latency && !has_latency && sum.find("hits")) {
    std::vector<double> lat;
    for (const auto &s : samples) {
      double per_prod = rate(s, "hits") / std::max(producers, 1);
      lat.push_back(per_prod > 0 ? 1000.0 / per_prod : 0.0);
    }
    MetricSummary l = summarize_values("latency", "ns/op", lat, producers);
    // The kernel bench prints 1000 / (mean hits per producer), not the mean latency.
    const MetricSummary *h = sum.find("hits");
    l.mean = h->mean > 0 ? 1000.0 / (h->mean / std::max(producers, 1)) : 0.0;
    l.per_prod = l.mean;
    sum.metrics.push_back(l);
  }
  return sum;
}

}  // namespace bpfbench

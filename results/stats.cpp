#include "results/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "results/stat_math.hpp"

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

double quantile_of(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double at = q * double(v.size() - 1);
  const size_t lo = static_cast<size_t>(at), hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - double(lo));
}

void mark_no_value(MetricSummary &m, std::string reason) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  m.no_value = std::move(reason);
  m.mean = m.stddev = m.min = m.max = m.median = m.per_prod = m.cv = m.ci95 = kNaN;
  m.values.clear();
  m.outliers.clear();
  m.round_means.clear();
}

std::pair<double, size_t> mean_basis(const MetricSummary &m) {
  if (m.round_means.size() >= 2) return {stddev_of(m.round_means), m.round_means.size()};
  return {m.stddev, m.n};
}

double MetricSummary::rel_ci() const { return mean != 0 ? ci95 / std::fabs(mean) : 0.0; }

std::vector<size_t> mad_outliers(const std::vector<double> &v, double threshold) {
  std::vector<size_t> out;
  if (v.size() < 3) return out;
  double med = median_of(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - med));
  double mad = median_of(dev);
  if (mad <= 0) return out;
  // 1.4826 * MAD estimates the standard deviation of normal data.
  for (size_t i = 0; i < v.size(); ++i)
    if (std::fabs(v[i] - med) / (1.4826 * mad) > threshold) out.push_back(i);
  return out;
}

bool first_sample_off(const std::vector<double> &v) {
  if (v.size() < 4) return false;
  std::vector<double> rest(v.begin() + 1, v.end());
  double m = mean_of(rest), sd = stddev_of(rest), off = std::fabs(v[0] - m);
  return off > kFirstOffRelative * std::fabs(m) && off > 3 * sd;
}

std::vector<std::string> summary_warnings(const MetricSummary &p) {
  std::vector<std::string> w;
  if (p.n >= 2 && p.mean != 0 && p.cv > kNoisyCv)
    w.push_back(fmt::format("noisy: {} varies by {:.1f}% (CV > {:.0f}%)", p.name, p.cv * 100, kNoisyCv * 100));
  if (first_sample_off(p.values)) {
    std::vector<double> rest(p.values.begin() + 1, p.values.end());
    double m = mean_of(rest);
    w.push_back(fmt::format("first interval of {} is {:+.1f}% off the rest (warmup too short?)", p.name,
                            m != 0 ? (p.values[0] - m) / std::fabs(m) * 100 : 0.0));
  }
  return w;
}

double lag1_autocorrelation(const std::vector<double> &v) {
  if (v.size() < 3) return 0.0;
  double m = mean_of(v), c0 = 0, c1 = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    c0 += (v[i] - m) * (v[i] - m);
    if (i + 1 < v.size()) c1 += (v[i] - m) * (v[i + 1] - m);
  }
  return c0 > 0 ? c1 / c0 : 0.0;
}

double stop_rel_ci(const MetricSummary &m) {
  double r1 = std::min(lag1_autocorrelation(m.values), 0.9);
  return r1 > 0 ? m.rel_ci() * std::sqrt((1 + r1) / (1 - r1)) : m.rel_ci();
}

AdaptiveState adaptive_state(const MetricSummary &p, const PrecisionRule &rule) {
  if (p.n >= rule.max_samples) return AdaptiveState::Limit;
  if (p.n < std::max<size_t>(rule.min_samples, 2)) return AdaptiveState::Continue;
  if (!precision_undefined(p).empty()) return AdaptiveState::Undefined;
  if (stop_rel_ci(p) * 100 <= rule.target_pct) return AdaptiveState::Reached;
  return AdaptiveState::Continue;
}

std::string precision_undefined(const MetricSummary &m) {
  if (!m.has_value() || std::isnan(m.mean))
    return fmt::format("{} has no value ({}): a relative precision is undefined", m.name,
                       m.no_value.empty() ? "not a number" : m.no_value);
  if (m.mean == 0) return fmt::format("{} has a mean of 0: a relative precision is undefined for a zero mean", m.name);
  return "";
}

MetricSummary summarize_metric(const std::string &name, const std::string &unit, const std::vector<double> &v,
                               int producers) {
  MetricSummary m;
  m.name = name;
  m.unit = unit;
  m.higher_is_better = default_higher_is_better(name, unit);
  m.n = v.size();
  m.mean = mean_of(v);
  m.stddev = stddev_of(v);
  m.median = median_of(v);
  if (!v.empty()) {
    m.min = *std::min_element(v.begin(), v.end());
    m.max = *std::max_element(v.begin(), v.end());
  }
  m.per_prod = producers > 0 ? m.mean / producers : m.mean;
  m.cv = m.mean != 0 ? m.stddev / std::fabs(m.mean) : 0.0;
  m.ci95 = ci_half_width(m.stddev, m.n);
  m.outliers = mad_outliers(v);
  m.values = v;
  return m;
}

namespace {

double count_of(const Sample &s, const std::string &name) {
  auto it = s.deltas.find(name);
  return it == s.deltas.end() ? 0.0 : double(it->second);
}

double rate(const Sample &s, const std::string &name) {
  return s.duration_s > 0 ? count_of(s, name) / 1e6 / s.duration_s : 0.0;
}

// Why a `ratio:a/b` metric has no value ("" when it has one): no interval counted any b.
std::string ratio_without_denominator(const std::vector<Sample> &samples, const MetricSpec &m) {
  if (m.source.kind != MetricSourceKind::Ratio) return "";
  const std::string &den = m.source.denominator;
  for (const auto &s : samples)
    if (count_of(s, den) > 0) return "";
  return samples.empty() ? "no measured interval"
                         : "no " + den + " counted (" + m.name + " = " + m.source.operand + "/" + den + ")";
}

// A high-water mark read at every interval's end (memory.peak: the most the cgroup held
// since it was made) rises or stays: its value is the last reading, the largest, with no
// spread. The per-interval readings stay in `values`.
void as_high_water_mark(MetricSummary &x) {
  if (x.values.empty()) return;
  const double per_prod_share = x.mean != 0 ? x.per_prod / x.mean : 1.0;
  x.mean = x.median = x.max = x.values.back();
  x.per_prod = x.mean * per_prod_share;
  x.stddev = x.cv = x.ci95 = 0;
  x.outliers.clear();
}

}  // namespace

void add_sum_counts(const std::vector<MetricSpec> &metrics, std::map<std::string, uint64_t> &counts) {
  for (const auto &m : metrics) {
    if (m.source.kind != MetricSourceKind::Sum) continue;
    uint64_t total = 0;
    for (const auto &t : m.source.terms)
      if (auto it = counts.find(t); it != counts.end()) total += it->second;
    counts[m.name] = total;
  }
}

std::vector<double> metric_values(const std::vector<Sample> &samples, const MetricSpec &m) {
  std::vector<double> v;
  if (m.source.kind == MetricSourceKind::Ratio) {
    for (const auto &s : samples) {
      double den = count_of(s, m.source.denominator);
      v.push_back(den > 0 ? count_of(s, m.source.operand) / den : 0.0);
    }
    return v;  // summarize() marks the ratio "no value" when no interval counted any `b`
  }
  // A level (bytes a memory cgroup holds at the interval's end) in its unit, not per second.
  if (is_level_source(m.source.kind)) {
    const double scale = level_unit_scale(m.source.kind, m.unit);
    for (const auto &s : samples) v.push_back(scale > 0 ? count_of(s, m.name) / scale : 0.0);
    return v;
  }
  // A count reported as it is (kernel-thread CPU ticks: a few per second): per second.
  if (report_of(m) == MetricReport::AsIs) {
    for (const auto &s : samples) v.push_back(s.duration_s > 0 ? count_of(s, m.name) / s.duration_s : 0.0);
    return v;
  }
  for (const auto &s : samples) v.push_back(rate(s, m.name));
  return v;
}

Summary summarize(const std::vector<Sample> &samples, const std::vector<MetricSpec> &metrics, int producers,
                  const std::vector<std::string> &report) {
  Summary sum;
  bool has_latency = false;
  const MetricSpec *throughput = nullptr;
  std::vector<std::string> in_total;
  for (const auto &m : metrics) {
    MetricSummary x = summarize_metric(m.name, reported_unit(m), metric_values(samples, m), producers);
    // A batch timing statistic is of every sample so far: the last reading is the point's.
    if ((m.source.kind == MetricSourceKind::CgroupMemory && m.source.operand == "peak") ||
        m.source.kind == MetricSourceKind::BatchTiming)
      as_high_water_mark(x);
    x.higher_is_better = higher_is_better(m);
    sum.metrics.push_back(std::move(x));
    if (std::string why = ratio_without_denominator(samples, m); !why.empty()) mark_no_value(sum.metrics.back(), why);
    has_latency |= m.name == "latency";
    if (is_throughput(m) && !throughput) throughput = &m;
    if (counts_in_total_ops(m)) in_total.push_back(m.name);
  }
  std::vector<double> total;
  for (const auto &s : samples) {
    double t = 0;
    for (const auto &n : in_total) t += rate(s, n);
    total.push_back(t);
  }
  sum.metrics.push_back(summarize_metric("total_ops", "M/s", total, producers));

  bool want_latency = std::find(report.begin(), report.end(), "latency") != report.end();
  if (want_latency && !has_latency && throughput) {
    std::vector<double> lat;
    for (const auto &s : samples) {
      double per_prod = rate(s, throughput->name) / std::max(producers, 1);
      lat.push_back(per_prod > 0 ? 1000.0 / per_prod : 0.0);
    }
    MetricSummary l = summarize_metric("latency", "ns/op", lat, producers);
    // The kernel bench prints 1000 / (mean hits per producer), not the mean latency.
    const MetricSummary *h = sum.find(throughput->name);
    l.mean = h->mean > 0 ? 1000.0 / (h->mean / std::max(producers, 1)) : 0.0;
    l.per_prod = l.mean;
    if (l.mean != 0) l.cv = l.stddev / l.mean;
    // Nothing counted: 1000 / 0 is no latency at all, not a latency of 0 that passes
    // `expect latency < 1us`.
    if (!(h->mean > 0))
      mark_no_value(l, samples.empty() ? "no measured interval"
                                       : "no " + throughput->name + " counted (latency = 1000 / " + throughput->name +
                                             " per producer)");
    sum.metrics.push_back(l);
  }
  // "hits" when no metric is the throughput: what results have always said then.
  const std::string fallback = throughput ? throughput->name : "hits";
  sum.primary = !report.empty() && sum.find(report.front()) ? report.front() : fallback;
  if (const MetricSummary *p = sum.find(sum.primary)) sum.warnings = summary_warnings(*p);
  return sum;
}

}  // namespace bpfbench

#include "results/paired.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "results/stat_math.hpp"
#include "results/stats.hpp"

namespace bpfbench {

const char *to_string(AbSide s) { return s == AbSide::A ? "A" : "B"; }

AbSide abba_side(size_t turn) {
  size_t k = turn % 4;
  return k == 0 || k == 3 ? AbSide::A : AbSide::B;
}

std::vector<AbSide> abba_order(size_t turns) {
  std::vector<AbSide> out;
  out.reserve(turns);
  for (size_t i = 0; i < turns; ++i) out.push_back(abba_side(i));
  return out;
}

namespace {

// The rules below leave pairs out only while they are at most a quarter of the pairs: past
// that the point is unsteady, not a few pairs.
bool beyond_a_quarter(size_t some, size_t pairs) { return some * 4 > pairs; }

}  // namespace

std::vector<size_t> straddling_pairs(const std::vector<double> &logs) {
  constexpr size_t kMinPairs = 5;
  const double min_distance = std::log(1.2);
  if (logs.size() < kMinPairs) return {};
  const double med = median_of(logs);
  std::vector<double> dev;
  for (double x : logs) dev.push_back(std::fabs(x - med));
  const double limit = std::max(min_distance, 5 * 1.4826 * median_of(dev));
  std::vector<size_t> out;
  for (size_t i = 0; i < logs.size(); ++i)
    if (dev[i] > limit) out.push_back(i);
  if (beyond_a_quarter(out.size(), logs.size())) return {};
  return out;
}

std::vector<size_t> turns_under_quartile(const std::vector<double> &a, const std::vector<double> &b,
                                         bool higher_is_better) {
  constexpr size_t kMinPairs = 5;
  constexpr double kSlower = 1.15;
  if (a.size() < kMinPairs || a.size() != b.size()) return {};
  auto speeds = [higher_is_better](const std::vector<double> &v) {
    std::vector<double> s;
    for (double x : v) s.push_back(higher_is_better ? x : 1 / x);
    return s;
  };
  const std::vector<double> sa = speeds(a), sb = speeds(b);
  const double ref_a = quantile_of(sa, 0.75), ref_b = quantile_of(sb, 0.75);
  std::vector<size_t> out;
  for (size_t i = 0; i < sa.size(); ++i)
    if (sa[i] * kSlower < ref_a || sb[i] * kSlower < ref_b) out.push_back(i);
  return out;
}

std::vector<size_t> slow_turn_pairs(const std::vector<double> &a, const std::vector<double> &b, bool higher_is_better) {
  std::vector<size_t> out = turns_under_quartile(a, b, higher_is_better);
  if (beyond_a_quarter(out.size(), a.size())) return {};
  return out;
}

PairedRatio paired_ratio(const std::vector<double> &a, const std::vector<double> &b, double confidence,
                         bool higher_is_better) {
  PairedRatio r;
  r.pairs = std::min(a.size(), b.size());
  if (a.size() != b.size()) {
    r.why = fmt::format("{} A values for {} B values", a.size(), b.size());
    return r;
  }
  if (a.empty()) {
    r.why = "no pairs";
    return r;
  }
  std::vector<double> all;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::isfinite(a[i]) && std::isfinite(b[i]) && a[i] > 0 && b[i] > 0)) {
      r.why = fmt::format("pair {} has a value that is not a positive number (A {}, B {})", i + 1, a[i], b[i]);
      return r;
    }
    all.push_back(std::log(b[i] / a[i]));
  }
  r.slow_pairs = turns_under_quartile(a, b, higher_is_better);
  if (beyond_a_quarter(r.slow_pairs.size(), a.size())) r.unsteady_pairs = std::exchange(r.slow_pairs, {});
  std::vector<size_t> rest;  // indices into `all` of the pairs the straddling rule sees
  std::vector<double> rest_logs;
  for (size_t i = 0; i < all.size(); ++i)
    if (std::find(r.slow_pairs.begin(), r.slow_pairs.end(), i) == r.slow_pairs.end()) {
      rest.push_back(i);
      rest_logs.push_back(all[i]);
    }
  r.left_out = r.slow_pairs;
  for (size_t k : straddling_pairs(rest_logs)) r.left_out.push_back(rest[k]);
  std::sort(r.left_out.begin(), r.left_out.end());
  if (!r.left_out.empty()) r.median_ratio = std::exp(median_of(all));
  std::vector<double> logs;
  for (size_t i = 0; i < all.size(); ++i) {
    if (std::find(r.left_out.begin(), r.left_out.end(), i) != r.left_out.end()) continue;
    logs.push_back(all[i]);
    r.max_abs_log = std::max(r.max_abs_log, std::fabs(all[i]));
  }
  r.ok = true;
  r.n = logs.size();
  r.mean_log = mean_of(logs);
  r.sd_log = stddev_of(logs);
  r.half_log = r.n < 2 ? std::numeric_limits<double>::infinity()
                       : student_t_quantile((1 + confidence) / 2, double(r.n - 1)) * r.sd_log / std::sqrt(double(r.n));
  r.ratio = std::exp(r.mean_log);
  r.ci_low = std::exp(r.mean_log - r.half_log);
  r.ci_high = std::exp(r.mean_log + r.half_log);
  r.half_width_pct = std::expm1(r.half_log) * 100;
  return r;
}

const char *to_string(AbStop s) {
  switch (s) {
  case AbStop::Continue: return "continue";
  case AbStop::Reached: return "precision reached";
  case AbStop::MaxPairs: return "max pairs";
  case AbStop::MaxTime: return "max time";
  case AbStop::NoRatio: return "no ratio";
  }
  return "?";
}

AbStop ab_stop_state(const PairedRatio &r, const AbStopRule &rule, double elapsed_s) {
  if (!r.ok && r.pairs > 0) return AbStop::NoRatio;
  size_t n = r.ok ? r.n : 0;
  if (n >= rule.min_pairs && r.half_width_pct < rule.precision_pct) return AbStop::Reached;
  if (n >= rule.max_pairs) return AbStop::MaxPairs;
  // The time limit never ends a point before it has the pairs a CI needs.
  if (rule.max_time_s > 0 && elapsed_s >= rule.max_time_s && n >= rule.min_pairs) return AbStop::MaxTime;
  return AbStop::Continue;
}

double speed_change_pct(const PairedRatio &r, bool higher_is_better) {
  if (!r.ok) return 0;
  return std::expm1(higher_is_better ? r.mean_log : -r.mean_log) * 100;
}

Verdict ab_verdict(const PairedRatio &r, bool higher_is_better, double floor_pct) {
  if (!r.ok || r.n < 2) return Verdict::NotComparable;
  if (r.unstable()) return Verdict::Noisy;
  bool excludes_one = std::fabs(r.mean_log) > r.half_log;
  if (!excludes_one || std::fabs(r.change_pct()) <= floor_pct) return Verdict::NoChange;
  return speed_change_pct(r, higher_is_better) > 0 ? Verdict::Faster : Verdict::Slower;
}

double control_floor_pct(const PairedRatio &control) {
  if (!control.ok || !std::isfinite(control.half_width_pct)) return std::numeric_limits<double>::infinity();
  return std::fabs(control.change_pct()) + control.half_width_pct;
}

}  // namespace bpfbench

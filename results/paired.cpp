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

PairedRatio log_ratio_ci(const std::vector<double> &logs, double confidence) {
  PairedRatio r;
  r.pairs = logs.size();
  r.confidence = confidence;
  if (logs.empty()) {
    r.why = "no pairs";
    return r;
  }
  for (double x : logs) r.max_abs_log = std::max(r.max_abs_log, std::fabs(x));
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

PairedRatio paired_ratio(const std::vector<double> &a, const std::vector<double> &b, double confidence) {
  PairedRatio r;
  r.pairs = std::min(a.size(), b.size());
  if (a.size() != b.size()) {
    r.why = fmt::format("{} A values for {} B values", a.size(), b.size());
    return r;
  }
  std::vector<double> logs;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::isfinite(a[i]) && std::isfinite(b[i]) && a[i] > 0 && b[i] > 0)) {
      r.why = fmt::format("pair {} has a value that is not a positive number (A {}, B {})", i + 1, a[i], b[i]);
      return r;
    }
    logs.push_back(std::log(b[i] / a[i]));
  }
  return log_ratio_ci(logs, confidence);
}

const char *to_string(AbStop s) {
  switch (s) {
  case AbStop::Continue: return "continue";
  case AbStop::Reached: return "precision reached";
  case AbStop::Decided: return "verdict reached";
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
  // The band of no change, in logs: a CI inside it, or across its edge, is no verdict.
  const double band = std::log1p(std::max(floor_pct, 0.0) / 100);
  if (std::fabs(r.mean_log) - r.half_log <= band) return Verdict::NoChange;
  return speed_change_pct(r, higher_is_better) > 0 ? Verdict::Faster : Verdict::Slower;
}

double control_floor_pct(const PairedRatio &control) {
  if (!control.ok || !std::isfinite(control.half_width_pct)) return std::numeric_limits<double>::infinity();
  return std::fabs(control.change_pct()) + control.half_width_pct;
}

}  // namespace bpfbench

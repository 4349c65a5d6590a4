#include "results/drift.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace bpfbench {

namespace {

std::string pct(double v) { return std::isfinite(v) ? fmt::format("{:.1f}%", v) : "n/a"; }

std::string summary_text(const char *side, const CalibrationSummary &s) {
  std::string out = fmt::format("{}: {:.4f} {} ±{:.2f}%", side, s.mean, s.unit, s.rel_pct);
  if (s.points > 1) out += fmt::format(" (end vs start {:+.2f}%)", s.start_end_pct);
  return out;
}

// Over the threshold: the larger of the other processes' and the steal share, named.
std::optional<std::string> busy_note(const NoiseFacts &n, const char *side, double threshold_pct) {
  if (std::isfinite(n.other_cpu_pct) && n.other_cpu_pct > threshold_pct)
    return fmt::format("other processes took {} of the CPUs during {}", pct(n.other_cpu_pct), side);
  if (std::isfinite(n.steal_pct) && n.steal_pct > threshold_pct)
    return fmt::format("the hypervisor stole {} of the CPUs during {}", pct(n.steal_pct), side);
  return std::nullopt;
}

}  // namespace

std::optional<CalibrationSummary> summarize_calibration(const std::optional<Calibration> &c) {
  if (!c || c->points.empty()) return std::nullopt;
  CalibrationSummary s;
  s.metric = c->points.front().metric;
  s.unit = c->points.front().unit;
  double sum = 0, var = 0;
  for (const auto &p : c->points) {
    if (p.metric != s.metric || !(p.mean > 0)) return std::nullopt;  // not one quantity
    sum += p.mean;
    var += p.ci95 * p.ci95;
  }
  double k = double(c->points.size());
  s.points = c->points.size();
  s.mean = sum / k;
  double ci = std::sqrt(var) / k;
  const CalibrationPoint &first = c->points.front(), &last = c->points.back();
  s.start_end_pct = s.points > 1 ? (last.mean / first.mean - 1) * 100 : 0;
  s.start_end_beyond_ci = s.points > 1 && std::fabs(last.mean - first.mean) > std::hypot(first.ci95, last.ci95);
  s.rel_pct = std::max(ci, std::fabs(last.mean - first.mean) / 2) / s.mean * 100;
  return s;
}

DriftCheck check_drift(const std::optional<Calibration> &a, const std::optional<Calibration> &b, double threshold_pct) {
  DriftCheck d;
  auto sa = summarize_calibration(a), sb = summarize_calibration(b);
  if (!sa || !sb) {
    if (sa || sb)
      d.lines.push_back(
          fmt::format("calibration only in {}: no drift check (run both with --calibration)", sa ? "A" : "B"));
    return d;
  }
  d.lines.push_back(fmt::format("calibration (trigger base, {}): {}; {}", sa->metric, summary_text("A", *sa),
                                summary_text("B", *sb)));
  if (sa->metric != sb->metric || sa->unit != sb->unit) {
    d.lines.push_back("calibration metrics differ between A and B: no drift check");
    return d;
  }
  d.known = true;
  for (const auto &[side, s] : {std::pair{"A", &*sa}, std::pair{"B", &*sb}})
    if (s->start_end_beyond_ci && std::fabs(s->start_end_pct) > threshold_pct && d.unstable.empty())
      d.unstable = fmt::format("{}'s calibration moved {:+.2f}% from the start of its run to the end: the machine "
                               "changed during that run",
                               side, s->start_end_pct);
  if (!d.unstable.empty()) d.lines.push_back(d.unstable + "; no point is judged (nor normalized)");
  d.ratio = sb->mean / sa->mean;
  d.ci_pct = std::hypot(sa->rel_pct, sb->rel_pct);
  d.move_pct = std::fabs(d.ratio - 1) * 100;
  d.drifted = d.move_pct > d.ci_pct || d.move_pct > threshold_pct;
  std::string line = fmt::format("calibration B/A {:.4f} ±{:.2f}%: ", d.ratio, d.ci_pct);
  if (d.drifted)
    line += fmt::format("the machine changed between the runs ({:+.2f}%); points whose CI is narrower are not judged",
                        (d.ratio - 1) * 100);
  else line += "no drift seen";
  d.lines.push_back(line);
  if (d.ci_pct > threshold_pct)
    d.lines.push_back(
        fmt::format("the calibration itself is noisy (±{:.2f}%): drift below that is not ruled out", d.ci_pct));
  return d;
}

std::optional<std::string> noise_note(const std::optional<NoiseFacts> &a, const std::optional<NoiseFacts> &b,
                                      double threshold_pct) {
  std::vector<std::string> notes;
  if (a)
    if (auto n = busy_note(*a, "A", threshold_pct)) notes.push_back(*n);
  if (b)
    if (auto n = busy_note(*b, "B", threshold_pct)) notes.push_back(*n);
  if (notes.empty()) return std::nullopt;
  return fmt::format("noisy: {} (limit {:g}%)", fmt::join(notes, ", "), threshold_pct);
}

std::optional<std::string> drift_note(const DriftCheck &d, double point_ci_half_pct, bool relative) {
  if (d.known && !d.unstable.empty()) return "drift: " + d.unstable;
  if (!d.known || !d.drifted) return std::nullopt;
  if (relative && d.move_pct <= point_ci_half_pct) return std::nullopt;
  return fmt::format("drift: the calibration moved {:+.2f}% (B/A {:.4f}), more than this point's ±{}; "
                     "--normalize divides it out",
                     (d.ratio - 1) * 100, d.ratio, relative ? fmt::format("{:.2f}%", point_ci_half_pct) : "CI");
}

double normalize_factor(const DriftCheck &d, bool higher_is_better) {
  if (!d.known || !(d.ratio > 0)) return 1;
  return higher_is_better ? 1 / d.ratio : d.ratio;
}

std::string normalize_note(const DriftCheck &d, double factor) {
  return fmt::format("normalized: B × {:.4f} (calibration B/A {:.4f}; its ±{:.2f}% is not in this CI)", factor, d.ratio,
                     d.ci_pct);
}

MetricSummary scale_metric(const MetricSummary &m, double factor) {
  MetricSummary s = m;
  for (double *v : {&s.mean, &s.stddev, &s.min, &s.max, &s.median, &s.per_prod, &s.ci95}) *v *= factor;
  for (auto &v : s.values) v *= factor;
  for (auto &v : s.round_means) v *= factor;
  return s;
}

}  // namespace bpfbench

#include "session/calibration.hpp"

#include <fmt/format.h>

#include "compiler/family/template_path.hpp"
#include "runtime/noise_facts.hpp"
#include "runtime/run_point.hpp"

namespace bpfbench {

namespace {

constexpr const char *kCalibrationText = "bench trigger as \"calibration\" < prog base; report hits; >\n";

}  // namespace

Calibrator::Calibrator(int64_t duration_ns) : duration_ns_(duration_ns) {
  FrontendOptions opts;
  opts.template_dirs = shipped_template_path();  // the shipped trigger family, never a user's copy
  opts.overrides.warmup_ns = 0;
  opts.overrides.duration_ns = duration_ns;
  opts.overrides.interval_ns = duration_ns / 10;
  opts.overrides.producers = 1;
  if (!run_frontend_text("<calibration>", kCalibrationText, opts, *fe_) || !fe_->plan || fe_->plan->points.empty() ||
      fe_->diags.has_errors()) {
    error_ = "the calibration plan (trigger base) did not build";
    for (const auto &d : fe_->diags.all())
      if (d.severity == Severity::Error) {
        error_ += ": " + d.message;
        break;
      }
  }
}

std::optional<CalibrationPoint> Calibrator::measure(const std::string &when, FeatureProber *prober, StopSource &stop) {
  if (!error_.empty()) return std::nullopt;
  const PlanPoint &p = fe_->plan->points.front();
  RunOptions opts;
  opts.prober = prober;
  NoiseSnapshot before = take_noise_snapshot();
  PointResult r = run_point(p, *fe_->families.find(p.family), no_object_, opts, stop);
  NoiseSnapshot after = take_noise_snapshot();
  const MetricSummary *m = r.summary.find("hits");
  if (r.status != PointResult::Status::Ok || !m || !m->has_value() || !(m->mean > 0)) {
    error_ = fmt::format("calibration ({}) did not measure: {}", when,
                         r.status != PointResult::Status::Ok ? (r.error ? r.error->to_string() : r.reason) : "no hits");
    return std::nullopt;
  }
  CalibrationPoint c;
  c.when = when;
  c.metric = m->name;
  c.unit = m->unit;
  c.mean = m->mean;
  c.ci95 = m->ci95;
  c.n = m->n;
  c.noise = noise_between(before, after);
  return c;
}

}  // namespace bpfbench

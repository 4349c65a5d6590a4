#include "session/run_session.hpp"

#include <algorithm>
#include <optional>

#include "results/baseline.hpp"
#include "results/expectations.hpp"
#include "results/rounds.hpp"
#include "runtime/noise_facts.hpp"
#include "session/exit_codes.hpp"

namespace bpfbench {

namespace {

// What one round of a point measures: the point itself, except that an adaptive point
// measured in rounds runs fixed slices of its min_duration (the rounds decide when to stop).
PlanPoint round_slice(const PlanPoint &p) {
  PlanPoint s = p;
  if (p.rounds > 1 && p.precision_pct > 0) {
    s.precision_pct = 0;
    s.duration_ns = p.min_duration_ns;
  }
  return s;
}

// Rounds of an adaptive point: at least p.rounds, then up to max_duration of measuring.
RoundsRule rounds_rule(const PlanPoint &p) {
  RoundsRule r{p.precision_pct, p.rounds, p.rounds};
  if (p.precision_pct > 0 && p.min_duration_ns > 0)
    r.max_rounds = std::max<int>(p.rounds, int((p.max_duration_ns + p.min_duration_ns - 1) / p.min_duration_ns));
  return r;
}

}  // namespace

std::vector<MetricSpec> point_metric_specs(const Frontend &fe, const PlanPoint &p) {
  const FamilyManifest *f = fe.families.find(p.family);
  const ProgramSpec *prog = f ? f->program(p.program.empty() ? f->default_program : p.program) : nullptr;
  return prog ? effective_metrics(*f, *prog) : std::vector<MetricSpec>{};
}

RunSession::RunSession(const RunArgs &a, const Frontend &fe, CompiledPrograms programs, StopSource &stop,
                       RunListener &listener, RunObservers observers, int64_t calibration_ns)
    : fe_(fe),
      stop_(stop),
      listener_(listener),
      objects_(std::move(programs.objects)),
      points_(all_points(*fe.plan)),
      files_({a.json_out, a.csv_out, a.markdown_out}, fe, std::move(programs.programs),
             [&listener](const std::string &why) { listener.file_error(why); }),
      observers_(std::move(observers)),
      opts_(make_options(a)) {
  if (calibration_ns > 0) {
    calibrator_.emplace(calibration_ns);
    calibration_.duration_s = calibrator_->duration_s();
  }
}

// The plan holds only the selected points already (--only: session/point_select.hpp).
std::vector<const PlanPoint *> RunSession::all_points(const RunPlan &plan) {
  std::vector<const PlanPoint *> points;
  for (const auto &p : plan.points) points.push_back(&p);
  return points;
}

RunOptions RunSession::make_options(const RunArgs &a) {
  RunOptions opts;
  opts.verbose = a.verbose;
  opts.prog_stats = a.prog_stats;
  opts.prober = &prober_;
  opts.profile = observers_.profile ? &*observers_.profile : nullptr;
  opts.hw_counters = observers_.hw_counters;
  opts.on_sample = [this](const PlanPoint &p, int iter, const Sample &s, bool warm) {
    listener_.sample(p, iter, s, warm);
  };
  opts.on_started = [this](const PlanPoint &p) { listener_.started(p); };
  return opts;
}

void RunSession::calibrate(const char *when) {
  if (!calibrator_ || stop_.stop_requested()) return;
  std::optional<CalibrationPoint> c = calibrator_->measure(when, &prober_, stop_);
  if (!c) {
    if (!stop_.stop_requested()) listener_.calibration_failed(calibrator_->error());
    return;
  }
  listener_.calibrated(*c);
  calibration_.points.push_back(std::move(*c));
  files_.calibration_done(calibration_);
}

void RunSession::measure() {
  listener_.run_started();
  calibrate("start");
  measure_points();
  calibrate("end");
}

void RunSession::measure_points() {
  for (int round = 1; !stop_.stop_requested(); ++round) {
    bool any = false;
    for (const PlanPoint *p : points_) {
      if (stop_.stop_requested()) break;
      if (finished_.count(p->index)) continue;
      any = true;
      if (std::optional<PointResult> final = run_round(*p, round)) {
        finished_.insert(p->index);
        finish_point(*p, *final);
      }
    }
    if (!any) break;
  }
}

std::optional<PointResult> RunSession::run_round(const PlanPoint &p, int round) {
  // "started" only once the programs are loaded and attached (RunOptions::on_started), as
  // the kernel bench says it after its setup: a point that fails to load never started.
  listener_.round_starting(p, round);
  files_.point_started();
  auto it = objects_.find(p.index);
  NoiseSnapshot before = take_noise_snapshot();
  PointResult r = run_point(round_slice(p), *fe_.families.find(p.family),
                            it == objects_.end() ? no_object_ : it->second, opts_, stop_);
  noise_[p.index].push_back(noise_between(before, take_noise_snapshot()));
  bool more = false;
  if (p.rounds > 1) {
    listener_.round_done(p, round, r);
    round_runs_[p.index].push_back(std::move(r));
    r = combine_rounds(round_runs_[p.index], point_metric_specs(fe_, p));
    more = needs_another_round(r, round, rounds_rule(p));
  }
  measured_[p.index] = std::move(r);
  PointResult shown = reported(p);
  listener_.point_recorded(p, shown);
  files_.point_done(p, shown, combine_noise(noise_[p.index]));
  if (more) return std::nullopt;
  return shown;
}

PointResult RunSession::reported(const PlanPoint &p) const {
  PointResult r = measured_.at(p.index);
  if (p.baseline)
    if (auto b = measured_.find(*p.baseline); b != measured_.end()) apply_baseline(r, b->second);
  if (r.status == PointResult::Status::Ok) r.expectations = evaluate_expectations(p.expectations, r.summary);
  return r;
}

void RunSession::count(const PointResult &r) {
  switch (r.status) {
  case PointResult::Status::Ok:
  case PointResult::Status::Interrupted:
    tally_.ran += r.status == PointResult::Status::Ok || !r.samples.empty();  // "N points measured"
    tally_.unmet += !all_passed(r.expectations);
    break;
  case PointResult::Status::Skipped: ++tally_.skipped; break;
  case PointResult::Status::Failed: ++tally_.failed; break;
  }
}

void RunSession::finish_point(const PlanPoint &p, const PointResult &r) {
  count(r);
  const bool profiling = opts_.profile != nullptr;
  listener_.point_final(p, r, profiling);
  // A profile that failed is said once (by the listener); the run goes on unprofiled.
  if (profiling && r.profile && !r.profile->error.empty()) opts_.profile = nullptr;
}

void RunSession::finish_unfinished() {
  for (const PlanPoint *p : points_)
    if (!finished_.count(p->index) && measured_.count(p->index)) {
      PointResult shown = reported(*p);
      if (shown.status == PointResult::Status::Ok) shown.status = PointResult::Status::Interrupted;
      finish_point(*p, shown);
    }
  listener_.points_done();
}

RunOutcome RunSession::conclude() {
  const int signal_code = exit_code_for(stop_);
  files_.finish(signal_code == 0, signal_code != 0);
  if (signal_code != 0) return {RunEnd::Interrupted, signal_code, tally_};
  if (tally_.failed > 0) return {RunEnd::Failed, kExitBadInput, tally_};
  if (tally_.unmet > 0) return {RunEnd::Unmet, kExitPartial, tally_};
  if (files_.write_failed()) return {RunEnd::FilesBehind, kExitPartial, tally_};
  return {RunEnd::Ok, kExitOk, tally_};
}

}  // namespace bpfbench

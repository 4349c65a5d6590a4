#include "cli/run_session.hpp"
#include "cli/front.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "compiler/escape.hpp"
#include "results/baseline.hpp"
#include "results/expectations.hpp"
#include "results/report_text.hpp"
#include "results/rounds.hpp"
#include "runtime/noise_facts.hpp"
#include "runtime/per_cpu.hpp"

namespace bpfbench::cli {

namespace {

// The metric specs of a point's program (family metrics with its overrides).
std::vector<MetricSpec> metric_specs(const Frontend &fe, const PlanPoint &p) {
  const FamilyManifest *f = fe.families.find(p.family);
  const ProgramSpec *prog = f ? f->program(p.program.empty() ? f->default_program : p.program) : nullptr;
  return prog ? effective_metrics(*f, *prog) : std::vector<MetricSpec>{};
}

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

const char *plural(int n) { return n == 1 ? "" : "s"; }

}  // namespace

RunSession::RunSession(const RunArgs &a, const Frontend &fe, CompiledPrograms programs, StopSource &stop,
                       RunObservers observers, int64_t calibration_ns)
    : args_(a),
      fe_(fe),
      stop_(stop),
      objects_(std::move(programs.objects)),
      points_(all_points(*fe.plan)),
      outputs_({a.json_out, a.csv_out, a.markdown_out}, a.quiet || a.kernel_report.has_value(), fe,
               std::move(programs.programs)),
      observers_(std::move(observers)),
      opts_(make_options(a)),
      tables_(points_) {
  for (const auto &p : fe.plan->points) producers_of_[p.bench_index].insert(p.producers);
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
  if (!a.quiet)
    // The point's metric specs, looked up when a new point starts sampling.
    opts.on_sample = [&fe = fe_, kernel = a.kernel_report, point = std::optional<size_t>(),
                      specs = std::vector<MetricSpec>()](const PlanPoint &p, int iter, const Sample &s, bool) mutable {
      if (point != p.index) {
        point = p.index;
        specs = metric_specs(fe, p);
      }
      if (kernel) {
        if (std::string line = format_kernel_progress(*kernel, iter, s, p.producers, p.interval_ns); !line.empty())
          fmt::print("{}\n", line);
      } else {
        fmt::print("{}\n", format_progress(iter, s, p.producers, p.interval_ns, p.report, &specs));
      }
      std::fflush(stdout);
    };
  opts.on_sample = outputs_.wrap(std::move(opts.on_sample));
  if (!a.quiet && a.setup_lines)
    opts.on_started = [](const PlanPoint &p) {
      fmt::print("Benchmark '{}' started.\n", p.label);
      std::fflush(stdout);
    };
  return opts;
}

void RunSession::calibrate(const char *when) {
  if (!calibrator_ || stop_.stop_requested()) return;
  std::optional<CalibrationPoint> c = calibrator_->measure(when, &prober_, stop_);
  if (!c) {
    if (!stop_.stop_requested()) fmt::print(stderr, "bpfbench: warning: {}\n", calibrator_->error());
    return;
  }
  if (!args_.quiet) fmt::print("{}\n", calibration_line(*c));
  std::fflush(stdout);
  calibration_.points.push_back(std::move(*c));
  outputs_.calibration_done(calibration_);
}

void RunSession::measure() {
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
  std::string which = p.rounds > 1 ? fmt::format(" (round {})", round) : "";
  // "started" only once the programs are loaded and attached (RunOptions::on_started), as
  // the kernel bench says it after its setup: a point that fails to load never started.
  if (!args_.quiet && args_.setup_lines) fmt::print("Setting up benchmark '{}'{}...\n", p.label, which);
  std::fflush(stdout);
  outputs_.point_started(p);
  auto it = objects_.find(p.index);
  NoiseSnapshot before = take_noise_snapshot();
  PointResult r = run_point(round_slice(p), *fe_.families.find(p.family),
                            it == objects_.end() ? no_object_ : it->second, opts_, stop_);
  noise_[p.index].push_back(noise_between(before, take_noise_snapshot()));
  bool more = false;
  if (p.rounds > 1) {
    if (!args_.quiet && r.status == PointResult::Status::Ok) fmt::print("Round {}: {}\n", round, format_summary(r));
    round_runs_[p.index].push_back(std::move(r));
    r = combine_rounds(round_runs_[p.index], metric_specs(fe_, p));
    more = needs_another_round(r, round, rounds_rule(p));
  }
  measured_[p.index] = std::move(r);
  PointResult shown = reported(p);
  outputs_.point_done(p, shown, combine_noise(noise_[p.index]));
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

void RunSession::finish_point(const PlanPoint &p, const PointResult &r) {
  print_final_lines(p, r);
  std::fflush(stdout);
  if (args_.kernel_report) return;  // bpfbench bench: the kernel bench prints no table
  // A baseline's numbers show up as its main row's `_adj` columns, not as a row.
  tables_.add(p, p.is_baseline ? std::string()
                               : format_table_row(p.label, r, r.report.empty() ? p.report : r.report,
                                                  producers_of_[p.bench_index].size() > 1) +
                                     (all_passed(r.expectations) ? "" : "  FAILED (expect)"));
}

void RunSession::print_final_lines(const PlanPoint &p, const PointResult &r) {
  const FamilyManifest &family = *fe_.families.find(p.family);
  switch (r.status) {
  case PointResult::Status::Ok:
  case PointResult::Status::Interrupted:
    tally_.ran += r.status == PointResult::Status::Ok || !r.samples.empty();  // "N points measured"
    if (args_.kernel_report == KernelReport::BatchTiming) {
      print_kernel_batch_timing(p, r);
    } else if (args_.kernel_report) {
      if (std::string line = format_kernel_summary(*args_.kernel_report, r); !line.empty()) fmt::print("{}\n", line);
    } else {
      fmt::print("{}\n", args_.quiet || p.rounds > 1 ? fmt::format("{:<20}: {}", p.label, format_summary(r))
                                                     : format_summary(r));
    }
    if (!r.per_cpu.empty()) fmt::print("{}", format_per_cpu(family.per_cpu, r.per_cpu));
    if (r.interference && r.interference->found()) {
      std::fflush(stdout);  // after the point's lines, when both go to one terminal
      fmt::print(stderr, "bpfbench: warning: {}: {}\n", printable_text(p.label), interference_note(*r.interference));
    }
    if (args_.verbose) print_prog_facts(r);
    print_observations(r);
    if (!all_passed(r.expectations)) {
      ++tally_.unmet;
      fmt::print(
          "{}", format_failed_expectations(p.label, r.expectations, [&](const SourceRange &x) { return location(x); }));
    }
    break;
  case PointResult::Status::Skipped:
    ++tally_.skipped;
    fmt::print("{}: skipped: {}\n", p.label, r.reason);
    break;
  case PointResult::Status::Failed:
    ++tally_.failed;
    fmt::print(stderr, "{}: error: bench '{}' failed: {}\n", location(p.bench_range), p.label,
               r.error ? r.error->to_string() : r.reason);
    break;
  }
}

// `run -v`: the verifier's and JIT's facts of each loaded program, and whether the kernel's
// run-time stats were on before bpfbench asked (then every BPF program paid for them).
void RunSession::print_prog_facts(const PointResult &r) const {
  for (const auto &f : r.prog_facts) fmt::print("  {}\n", format_prog_facts(f));
  if (r.prog_stats.sysctl_was_enabled) fmt::print("  kernel.bpf_stats_enabled was already 1\n");
  if (!r.prog_stats.enabled && !r.prog_stats.note.empty()) fmt::print("  prog stats: {}\n", r.prog_stats.note);
}

// bench bpf-nop / xdp-lb: the kernel bench's timing report, under the name of the point's
// scenario (the label when it has none), and its calibration's warnings on stderr.
void RunSession::print_kernel_batch_timing(const PlanPoint &p, const PointResult &r) {
  const ParamValue *v = args_.kernel_title_param.empty() ? nullptr : p.param(args_.kernel_title_param);
  KernelText t = format_kernel_batch_timing(r, v ? v->to_string() : p.label, args_.machine_readable);
  std::fflush(stdout);
  if (!t.err.empty()) fmt::print(stderr, "{}", t.err);
  fmt::print("{}\n", t.out);
}

void RunSession::print_observations(const PointResult &r) {
  if (r.latency_hist) fmt::print("{}\n", format_histogram(*r.latency_hist));
  if (r.batch_timing && !args_.kernel_report) fmt::print("{}\n", format_batch_timing_summary(*r.batch_timing));
  if (r.hw_counters) fmt::print("{}\n", format_hw(*r.hw_counters));
  if (!r.profile || !opts_.profile) return;
  if (r.profile->error.empty()) {
    fmt::print("{}\n", format_profile(*r.profile));
    return;
  }
  fmt::print(stderr, "bpfbench: warning: --profile: {}; the run goes on unprofiled\n", r.profile->error);
  opts_.profile = nullptr;
}

void RunSession::finish_unfinished() {
  for (const PlanPoint *p : points_)
    if (!finished_.count(p->index) && measured_.count(p->index)) {
      PointResult shown = reported(*p);
      if (shown.status == PointResult::Status::Ok) shown.status = PointResult::Status::Interrupted;
      finish_point(*p, shown);
    }
  tables_.flush();
}

int RunSession::conclude() {
  const int signal_code = exit_code_for(stop_);
  outputs_.finish(signal_code == 0, signal_code != 0);
  const Tally &t = tally_;
  if (signal_code != 0) {
    fmt::print(stderr, "bpfbench: interrupted ({} point{} measured)\n", t.ran, plural(t.ran));
    return signal_code;
  }
  if (t.failed > 0) {
    fmt::print(stderr, "bpfbench: {} point{} failed, {} ran, {} skipped\n", t.failed, plural(t.failed), t.ran,
               t.skipped);
    return kExitBadInput;
  }
  if (t.unmet > 0) {
    fmt::print(stderr, "bpfbench: {} point{} FAILED an expectation, {} ran, {} skipped\n", t.unmet, plural(t.unmet),
               t.ran, t.skipped);
    return kExitPartial;
  }
  if (outputs_.write_failed()) {
    fmt::print(stderr, "bpfbench: {} point{} measured, but the results files are not up to date (see above)\n", t.ran,
               plural(t.ran));
    return kExitPartial;
  }
  return kExitOk;
}

std::string RunSession::location(const SourceRange &r) const { return source_location(fe_, r); }

}  // namespace bpfbench::cli

#include "cli/run_printer.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

#include "util/escape.hpp"
#include "results/expectations.hpp"
#include "results/report_text.hpp"
#include "runtime/per_cpu.hpp"
#include "session/inputs.hpp"

namespace bpfbench::cli {

namespace {

const char *plural(int n) { return n == 1 ? "" : "s"; }

std::vector<const PlanPoint *> points_of(const RunPlan &plan) {
  std::vector<const PlanPoint *> points;
  for (const auto &p : plan.points) points.push_back(&p);
  return points;
}

}  // namespace

std::string calibration_line(const CalibrationPoint &c) {
  std::string out = fmt::format("calibration ({}): {:.4f} {} ±{:.2f}% ({} samples)", c.when, c.mean, c.unit,
                                c.mean > 0 ? c.ci95 / c.mean * 100 : 0.0, c.n);
  if (std::isfinite(c.noise.other_cpu_pct))
    out += fmt::format("; other processes {:.1f}% of the CPUs", c.noise.other_cpu_pct);
  if (std::isfinite(c.noise.load1)) out += fmt::format(", load {:.2f}", c.noise.load1);
  return out;
}

RunPrinter::RunPrinter(const RunArgs &a, const Frontend &fe)
    : args_(a),
      fe_(fe),
      status_(*fe.plan, a.quiet || a.kernel_report.has_value()),
      tables_(points_of(*fe.plan)) {
  for (const auto &p : fe.plan->points) producers_of_[p.bench_index].insert(p.producers);
}

void RunPrinter::run_started() { status_.restart(); }

void RunPrinter::calibrated(const CalibrationPoint &c) {
  if (!args_.quiet) fmt::print("{}\n", calibration_line(c));
  std::fflush(stdout);
}

void RunPrinter::calibration_failed(const std::string &why) { fmt::print(stderr, "bpfbench: warning: {}\n", why); }

void RunPrinter::round_starting(const PlanPoint &p, int round) {
  std::string which = p.rounds > 1 ? fmt::format(" (round {})", round) : "";
  if (!args_.quiet && args_.setup_lines) fmt::print("Setting up benchmark '{}'{}...\n", p.label, which);
  std::fflush(stdout);
  status_.point_started(p);
}

void RunPrinter::started(const PlanPoint &p) {
  if (args_.quiet || !args_.setup_lines) return;
  fmt::print("Benchmark '{}' started.\n", p.label);
  std::fflush(stdout);
}

void RunPrinter::sample(const PlanPoint &p, int iter, const Sample &s, bool warmup) {
  if (!args_.quiet) {
    status_.clear();
    if (specs_point_ != p.index) {
      specs_point_ = p.index;
      specs_ = point_metric_specs(fe_, p);
    }
    if (args_.kernel_report) {
      if (std::string line = format_kernel_progress(*args_.kernel_report, iter, s, p.producers, p.interval_ns);
          !line.empty())
        fmt::print("{}\n", line);
    } else {
      fmt::print("{}\n", format_progress(iter, s, p.producers, p.interval_ns, p.report, &specs_));
    }
    std::fflush(stdout);
  }
  status_.sampled(warmup);
}

void RunPrinter::round_done(const PlanPoint &, int round, const PointResult &r) {
  if (!args_.quiet && r.status == PointResult::Status::Ok) fmt::print("Round {}: {}\n", round, format_summary(r));
}

void RunPrinter::point_recorded(const PlanPoint &p, const PointResult &r) {
  status_.point_done(p, r);
  for (const auto &w : r.summary.warnings) fmt::print(stderr, "bpfbench: warning: {}: {}\n", p.label, w);
}

void RunPrinter::file_error(const std::string &why) {
  status_.clear();
  fmt::print(stderr, "bpfbench: error: {}\n", why);
}

void RunPrinter::point_final(const PlanPoint &p, const PointResult &r, bool profiling) {
  print_final_lines(p, r, profiling);
  std::fflush(stdout);
  if (args_.kernel_report) return;  // bpfbench bench: the kernel bench prints no table
  // A baseline's numbers show up as its main row's `_adj` columns, not as a row.
  tables_.add(p, p.is_baseline ? std::string()
                               : format_table_row(p.label, r, r.report.empty() ? p.report : r.report,
                                                  producers_of_[p.bench_index].size() > 1) +
                                     (all_passed(r.expectations) ? "" : "  FAILED (expect)"));
}

void RunPrinter::points_done() { tables_.flush(); }

void RunPrinter::print_final_lines(const PlanPoint &p, const PointResult &r, bool profiling) {
  const FamilyManifest &family = *fe_.families.find(p.family);
  switch (r.status) {
  case PointResult::Status::Ok:
  case PointResult::Status::Interrupted:
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
    print_observations(r, profiling);
    if (!all_passed(r.expectations))
      fmt::print(
          "{}", format_failed_expectations(p.label, r.expectations, [&](const SourceRange &x) { return location(x); }));
    break;
  case PointResult::Status::Skipped: fmt::print("{}: skipped: {}\n", p.label, r.reason); break;
  case PointResult::Status::Failed:
    fmt::print(stderr, "{}: error: bench '{}' failed: {}\n", location(p.bench_range), p.label,
               r.error ? r.error->to_string() : r.reason);
    break;
  }
}

// `run -v`: the verifier's and JIT's facts of each loaded program, and whether the kernel's
// run-time stats were on before bpfbench asked (then every BPF program paid for them).
void RunPrinter::print_prog_facts(const PointResult &r) const {
  for (const auto &f : r.prog_facts) fmt::print("  {}\n", format_prog_facts(f));
  if (r.prog_stats.sysctl_was_enabled) fmt::print("  kernel.bpf_stats_enabled was already 1\n");
  if (!r.prog_stats.enabled && !r.prog_stats.note.empty()) fmt::print("  prog stats: {}\n", r.prog_stats.note);
}

// bench bpf-nop / xdp-lb: the kernel bench's timing report, under the name of the point's
// scenario (the label when it has none), and its calibration's warnings on stderr.
void RunPrinter::print_kernel_batch_timing(const PlanPoint &p, const PointResult &r) {
  const ParamValue *v = args_.kernel_title_param.empty() ? nullptr : p.param(args_.kernel_title_param);
  KernelText t = format_kernel_batch_timing(r, v ? v->to_string() : p.label, args_.machine_readable);
  std::fflush(stdout);
  if (!t.err.empty()) fmt::print(stderr, "{}", t.err);
  fmt::print("{}\n", t.out);
}

void RunPrinter::print_observations(const PointResult &r, bool profiling) {
  if (r.latency_hist) fmt::print("{}\n", format_histogram(*r.latency_hist));
  if (r.batch_timing && !args_.kernel_report) fmt::print("{}\n", format_batch_timing_summary(*r.batch_timing));
  if (r.hw_counters) fmt::print("{}\n", format_hw(*r.hw_counters));
  if (!r.profile || !profiling) return;
  if (r.profile->error.empty()) {
    fmt::print("{}\n", format_profile(*r.profile));
    return;
  }
  fmt::print(stderr, "bpfbench: warning: --profile: {}; the run goes on unprofiled\n", r.profile->error);
}

int RunPrinter::conclude(const RunOutcome &o) {
  const RunTally &t = o.tally;
  switch (o.end) {
  case RunEnd::Interrupted:
    fmt::print(stderr, "bpfbench: interrupted ({} point{} measured)\n", t.ran, plural(t.ran));
    break;
  case RunEnd::Failed:
    fmt::print(stderr, "bpfbench: {} point{} failed, {} ran, {} skipped\n", t.failed, plural(t.failed), t.ran,
               t.skipped);
    break;
  case RunEnd::Unmet:
    fmt::print(stderr, "bpfbench: {} point{} FAILED an expectation, {} ran, {} skipped\n", t.unmet, plural(t.unmet),
               t.ran, t.skipped);
    break;
  case RunEnd::FilesBehind:
    fmt::print(stderr, "bpfbench: {} point{} measured, but the results files are not up to date (see above)\n", t.ran,
               plural(t.ran));
    break;
  case RunEnd::Ok: break;
  }
  return o.exit_code;
}

std::string RunPrinter::location(const SourceRange &r) const { return source_location(fe_, r); }

}  // namespace bpfbench::cli

// `bpfbench run`: the whole pipeline, from .bdsl to numbers.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "cli/front.hpp"
#include "compiler/escape.hpp"
#include "cli/run_commands.hpp"
#include "cli/run_outputs.hpp"
#include "compiler/clang_compile.hpp"
#include "compiler/compile_diags.hpp"
#include "compiler/emit_bpf.hpp"
#include "compiler/sha256.hpp"
#include "runtime/baseline.hpp"
#include "runtime/expectations.hpp"
#include "runtime/per_cpu.hpp"
#include "runtime/privileges.hpp"
#include "runtime/probe.hpp"
#include "runtime/report_text.hpp"
#include "runtime/rounds.hpp"
#include "runtime/run_point.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

namespace {

// Every distinct program compiled once; point index -> its object (cache-backed).
bool compile_units(Frontend &fe, const StopSource &stop, std::map<size_t, std::vector<uint8_t>> &objects,
                   std::vector<ProgramHash> &hashes) {
  auto units = emit_programs(*fe.plan, fe.families, fe.sources, fe.diags);
  if (fe.diags.has_errors()) return false;
  for (const auto &u : units) {
    if (stop.stop_requested()) return true;
    CompileOptions opts;
    opts.virtual_name = u.virtual_name;
    CompileResult r = compile_bpf(u.c_source, opts);
    hashes.push_back(ProgramHash{u.virtual_name, u.family, sha256_hex(u.c_source), r.cache_key, u.points});
    add_compile_diags(r, fe.plan->points.at(u.points.at(0)), fe.sources, fe.diags);
    if (!r.ok) continue;
    for (size_t idx : u.points) objects[idx] = r.object;
  }
  return !fe.diags.has_errors();
}

std::string location(const Frontend &fe, const SourceRange &r) {
  if (!r.valid()) return fe.plan->file;
  return fmt::format("{}:{}:{}", fe.sources.file(r.file).path, r.line, r.col);
}
std::string location(const Frontend &fe, const PlanPoint &p) { return location(fe, p.bench_range); }

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

// Each suite's table, printed once every point of the suite has its final row.
class SuiteTables {
 public:
  explicit SuiteTables(const std::vector<const PlanPoint *> &points) {
    for (const PlanPoint *p : points) {
      if (!members_.count(p->suite)) suites_.push_back(p->suite);
      members_[p->suite].push_back(p->index);
    }
  }
  // The point's final row ("" = none, e.g. a baseline).
  void add(const PlanPoint &p, std::string row) {
    rows_[p.index] = std::move(row);
    const auto &m = members_[p.suite];
    if (std::all_of(m.begin(), m.end(), [&](size_t i) { return rows_.count(i) > 0; })) print(p.suite);
  }
  // At the end: the suites a stop left unfinished, with the rows they have.
  void flush() {
    for (const auto &s : suites_) print(s);
  }

 private:
  void print(const std::string &suite) {
    if (suite.empty() || !printed_.insert(suite).second) return;
    std::vector<std::string> lines;
    for (size_t i : members_[suite])
      if (auto it = rows_.find(i); it != rows_.end() && !it->second.empty()) lines.push_back(it->second);
    if (lines.empty()) return;
    fmt::print("\n==== {} ====\n", suite);
    for (const auto &l : lines) fmt::print("{}\n", l);
    fmt::print("\n");
  }
  std::vector<std::string> suites_;  // in plan order
  std::map<std::string, std::vector<size_t>> members_;
  std::map<size_t, std::string> rows_;
  std::set<std::string> printed_;
};

struct Tally {
  int failed = 0, ran = 0, skipped = 0, unmet = 0;  // unmet: points with a failed `expect`
};

}  // namespace

int cmd_run(const RunArgs &a) {
  // First, before any thread exists: SIGINT/SIGTERM become a stop request, not a kill,
  // and stay blocked after the watcher is gone (a late signal must not kill a finished run).
  block_stop_signals();
  StopSource stop;
  SignalWatcher signals(stop);

  Frontend fe;
  if (!load_frontend(a.in, fe)) return kExitBadInput;
  if (std::string why = check_privileges(); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  std::map<size_t, std::vector<uint8_t>> objects;
  std::vector<ProgramHash> hashes;
  bool compiled = compile_units(fe, stop, objects, hashes);
  print_diagnostics(fe);
  if (!compiled) return kExitBadInput;

  FeatureProber prober;
  RunOptions opts;
  opts.verbose = a.verbose;
  opts.prober = &prober;
  if (!a.quiet)
    // The point's metric specs, looked up when a new point starts sampling.
    opts.on_sample = [&fe, point = std::optional<size_t>(), specs = std::vector<MetricSpec>()](
                         const PlanPoint &p, int iter, const Sample &s, bool) mutable {
      if (point != p.index) {
        point = p.index;
        specs = metric_specs(fe, p);
      }
      fmt::print("{}\n", format_progress(iter, s, p.producers, p.interval_ns, p.report, &specs));
      std::fflush(stdout);
    };
  RunOutputs outputs({a.json_out, a.csv_out, a.markdown_out}, a.quiet, fe, std::move(hashes), a.only);
  opts.on_sample = outputs.wrap(std::move(opts.on_sample));

  std::vector<const PlanPoint *> points;  // what this run measures, in plan order
  for (const auto &p : fe.plan->points)
    if (a.only.empty() || p.label.find(a.only) != std::string::npos) points.push_back(&p);
  // Benches that sweep producers: their rows add the per-producer rate (the seed's M/s/cpu).
  std::map<size_t, std::set<int>> producers_of;  // bench index -> producer counts
  for (const auto &p : fe.plan->points) producers_of[p.bench_index].insert(p.producers);

  const std::vector<uint8_t> no_object;  // programs that load nothing (trigger base)
  Tally tally;
  SuiteTables tables(points);
  std::map<size_t, std::vector<PointResult>> round_runs;  // point index -> its rounds so far
  std::map<size_t, PointResult> measured;  // point index -> its result (rounds combined)
  std::set<size_t> finished;

  // The result as reported: baseline columns and `expect` applied to the measured one.
  auto reported = [&](const PlanPoint &p) {
    PointResult r = measured.at(p.index);
    if (p.baseline)
      if (auto b = measured.find(*p.baseline); b != measured.end()) apply_baseline(r, b->second);
    if (r.status == PointResult::Status::Ok) r.expectations = evaluate_expectations(p.expectations, r.summary);
    return r;
  };
  // A point's final lines: its summary (rounds combined), the tally, its suite row.
  auto finish_point = [&](const PlanPoint &p, const PointResult &r) {
    const FamilyManifest &family = *fe.families.find(p.family);
    switch (r.status) {
      case PointResult::Status::Ok:
      case PointResult::Status::Interrupted:
        tally.ran += r.status == PointResult::Status::Ok || !r.samples.empty();  // "N points measured"
        fmt::print("{}\n", a.quiet || p.rounds > 1 ? fmt::format("{:<20}: {}", p.label, format_summary(r))
                                                 : format_summary(r));
        if (!r.per_cpu.empty()) fmt::print("{}", format_per_cpu(family.per_cpu, r.per_cpu));
        if (!all_passed(r.expectations)) {
          ++tally.unmet;
          fmt::print("{}", format_failed_expectations(p.label, r.expectations,
                                                      [&](const SourceRange &x) { return location(fe, x); }));
        }
        break;
      case PointResult::Status::Skipped:
        ++tally.skipped;
        fmt::print("{}: skipped: {}\n", p.label, r.reason);
        break;
      case PointResult::Status::Failed:
        ++tally.failed;
        fmt::print(stderr, "{}: error: bench '{}' failed: {}\n", location(fe, p), p.label,
                   r.error ? r.error->to_string() : r.reason);
        break;
    }
    std::fflush(stdout);
    // A baseline's numbers show up as its main row's `_adj` columns, not as a row.
    tables.add(p, p.is_baseline ? std::string()
                                : format_table_row(p.label, r, r.report.empty() ? p.report : r.report,
                                                   producers_of[p.bench_index].size() > 1) +
                                      (all_passed(r.expectations) ? "" : "  FAILED (expect)"));
  };

  // Round-robin over the points; one round unless `rounds`/--rounds. A point is final after its
  // last round (or its first skip/failure/interruption).
  for (int round = 1; !stop.stop_requested(); ++round) {
    bool any = false;
    for (const PlanPoint *pp : points) {
      const PlanPoint &p = *pp;
      if (stop.stop_requested()) break;
      if (finished.count(p.index)) continue;
      any = true;
      PlanPoint slice = round_slice(p);
      std::string which = p.rounds > 1 ? fmt::format(" (round {})", round) : "";
      if (!a.quiet) fmt::print("Setting up benchmark '{}'{}...\nBenchmark '{}' started.\n", p.label, which, p.label);
      std::fflush(stdout);
      outputs.point_started(p);
      auto it = objects.find(p.index);
      PointResult r = run_point(slice, *fe.families.find(p.family), it == objects.end() ? no_object : it->second,
                                opts, stop);
      bool more = false;
      if (p.rounds > 1) {
        if (!a.quiet && r.status == PointResult::Status::Ok) fmt::print("Round {}: {}\n", round, format_summary(r));
        round_runs[p.index].push_back(std::move(r));
        r = combine_rounds(round_runs[p.index], metric_specs(fe, p));
        more = needs_another_round(r, round, rounds_rule(p));
      }
      measured[p.index] = std::move(r);
      PointResult shown = reported(p);
      outputs.point_done(p, shown);
      if (!more) {
        finished.insert(p.index);
        finish_point(p, shown);
      }
    }
    if (!any) break;
  }
  // Stopped between rounds: the points with rounds behind them report those.
  for (const PlanPoint *p : points)
    if (!finished.count(p->index) && measured.count(p->index)) {
      PointResult shown = reported(*p);
      if (shown.status == PointResult::Status::Ok) shown.status = PointResult::Status::Interrupted;
      finish_point(*p, shown);
    }
  tables.flush();
  // Decided once: the result files and the exit code must tell the same story, and a
  // signal arriving after this line (it stays blocked) changes neither.
  const int signal_code = exit_code_for(stop);
  outputs.finish(signal_code == 0, signal_code != 0);
  if (int code = signal_code; code != 0) {
    fmt::print(stderr, "bpfbench: interrupted ({} point{} measured)\n", tally.ran, tally.ran == 1 ? "" : "s");
    return code;
  }
  if (tally.failed > 0) {
    fmt::print(stderr, "bpfbench: {} point{} failed, {} ran, {} skipped\n", tally.failed,
               tally.failed == 1 ? "" : "s", tally.ran, tally.skipped);
    return kExitBadInput;
  }
  if (tally.unmet > 0) {
    fmt::print(stderr, "bpfbench: {} point{} FAILED an expectation, {} ran, {} skipped\n", tally.unmet,
               tally.unmet == 1 ? "" : "s", tally.ran, tally.skipped);
    return kExitPartial;
  }
  if (outputs.write_failed()) {
    fmt::print(stderr, "bpfbench: {} point{} measured, but the results files are not up to date (see above)\n",
               tally.ran, tally.ran == 1 ? "" : "s");
    return kExitPartial;
  }
  return kExitOk;
}

int cmd_probe(const ProbeArgs &a) {
  if (std::string why = check_privileges(); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  FeatureProber prober;
  auto rows = prober.probe_all();
  if (a.json) fmt::print("{}\n", json_text(probe_to_json(rows), 2));
  else fmt::print("{}", render_probe_text(rows));
  return kExitOk;
}

}  // namespace bpfbench::cli

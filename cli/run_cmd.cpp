// `bpfbench run`: the whole pipeline, from .bdsl to numbers.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "cli/front.hpp"
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

struct SuiteRows {
  std::string title;
  std::vector<std::string> rows;
};

void print_suite_table(const SuiteRows &s) {
  if (s.title.empty() || s.rows.empty()) return;
  fmt::print("\n==== {} ====\n", s.title);
  for (const auto &r : s.rows) fmt::print("{}\n", r);
  fmt::print("\n");
}

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
        const FamilyManifest *f = fe.families.find(p.family);
        const ProgramSpec *prog = f ? f->program(p.program.empty() ? f->default_program : p.program) : nullptr;
        specs = prog ? effective_metrics(*f, *prog) : std::vector<MetricSpec>{};
      }
      fmt::print("{}\n", format_progress(iter, s, p.producers, p.interval_ns, p.report, &specs));
      std::fflush(stdout);
    };
  RunOutputs outputs({a.json_out, a.csv_out, a.markdown_out}, a.quiet, fe, std::move(hashes), a.only);
  opts.on_sample = outputs.wrap(std::move(opts.on_sample));

  const std::vector<uint8_t> no_object;  // programs that load nothing (trigger base)
  int failed = 0, ran = 0, skipped = 0, unmet = 0;  // unmet: points with a failed `expect`
  SuiteRows suite;
  std::map<size_t, PointResult> baselines;  // baseline point index -> its result
  // Benches that sweep producers: their rows add the per-producer rate (the seed's M/s/cpu).
  std::map<size_t, std::set<int>> producers_of;  // bench index -> producer counts
  for (const auto &p : fe.plan->points) producers_of[p.bench_index].insert(p.producers);
  for (const auto &p : fe.plan->points) {
    if (stop.stop_requested()) break;
    if (!a.only.empty() && p.label.find(a.only) == std::string::npos) continue;
    if (p.suite != suite.title) {
      print_suite_table(suite);
      suite = SuiteRows{p.suite, {}};
    }
    const FamilyManifest &family = *fe.families.find(p.family);
    if (!a.quiet) fmt::print("Setting up benchmark '{}'...\nBenchmark '{}' started.\n", p.label, p.label);
    std::fflush(stdout);
    outputs.point_started(p);
    auto it = objects.find(p.index);
    PointResult r = run_point(p, family, it == objects.end() ? no_object : it->second, opts, stop);
    if (p.is_baseline) {
      baselines.emplace(p.index, r);
    } else if (p.baseline) {
      if (auto b = baselines.find(*p.baseline); b != baselines.end()) {
        apply_baseline(r, b->second);
        baselines.erase(b);
      }
    }
    if (r.status == PointResult::Status::Ok) r.expectations = evaluate_expectations(p.expectations, r.summary);
    outputs.point_done(p, r);
    switch (r.status) {
      case PointResult::Status::Ok:
      case PointResult::Status::Interrupted:
        ran += r.status == PointResult::Status::Ok || !r.samples.empty();  // "N points measured"
        fmt::print("{}\n", a.quiet ? fmt::format("{:<20}: {}", p.label, format_summary(r)) : format_summary(r));
        if (!r.per_cpu.empty()) fmt::print("{}", format_per_cpu(family.per_cpu, r.per_cpu));
        if (!all_passed(r.expectations)) {
          ++unmet;
          fmt::print("{}", format_failed_expectations(p.label, r.expectations,
                                                      [&](const SourceRange &x) { return location(fe, x); }));
        }
        break;
      case PointResult::Status::Skipped:
        ++skipped;
        fmt::print("{}: skipped: {}\n", p.label, r.reason);
        break;
      case PointResult::Status::Failed:
        ++failed;
        fmt::print(stderr, "{}: error: bench '{}' failed: {}\n", location(fe, p), p.label,
                   r.error ? r.error->to_string() : r.reason);
        break;
    }
    std::fflush(stdout);
    if (!p.is_baseline)  // its numbers show up as the main row's `_adj` columns
      suite.rows.push_back(format_table_row(p.label, r, r.report.empty() ? p.report : r.report,
                                            producers_of[p.bench_index].size() > 1) +
                           (all_passed(r.expectations) ? "" : "  FAILED (expect)"));
  }
  print_suite_table(suite);
  outputs.finish(!stop.stop_requested(), stop.stop_requested());
  if (int code = exit_code_for(stop); code != 0) {
    fmt::print(stderr, "bpfbench: interrupted ({} point{} measured)\n", ran, ran == 1 ? "" : "s");
    return code;
  }
  if (failed > 0) {
    fmt::print(stderr, "bpfbench: {} point{} failed, {} ran, {} skipped\n", failed, failed == 1 ? "" : "s", ran, skipped);
    return kExitBadInput;
  }
  if (unmet > 0) {
    fmt::print(stderr, "bpfbench: {} point{} FAILED an expectation, {} ran, {} skipped\n", unmet,
               unmet == 1 ? "" : "s", ran, skipped);
    return kExitPartial;
  }
  if (outputs.write_failed()) {
    fmt::print(stderr, "bpfbench: {} point{} measured, but the results files are not up to date (see above)\n",
               ran, ran == 1 ? "" : "s");
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
  if (a.json) fmt::print("{}\n", probe_to_json(rows).dump(2));
  else fmt::print("{}", render_probe_text(rows));
  return kExitOk;
}

}  // namespace bpfbench::cli

// `bpfbench run`: the whole pipeline, from .bdsl to numbers.
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "cli/front.hpp"
#include "cli/run_commands.hpp"
#include "compiler/clang_compile.hpp"
#include "compiler/compile_diags.hpp"
#include "compiler/emit_bpf.hpp"
#include "runtime/privileges.hpp"
#include "runtime/probe.hpp"
#include "runtime/report_text.hpp"
#include "runtime/run_point.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

namespace {

// Every distinct program compiled once; point index -> its object (cache-backed).
bool compile_units(Frontend &fe, const StopSource &stop, std::map<size_t, std::vector<uint8_t>> &objects) {
  auto units = emit_programs(*fe.plan, fe.families, fe.sources, fe.diags);
  if (fe.diags.has_errors()) return false;
  for (const auto &u : units) {
    if (stop.stop_requested()) return true;
    CompileOptions opts;
    opts.virtual_name = u.virtual_name;
    CompileResult r = compile_bpf(u.c_source, opts);
    add_compile_diags(r, fe.plan->points.at(u.points.at(0)), fe.sources, fe.diags);
    if (!r.ok) continue;
    for (size_t idx : u.points) objects[idx] = r.object;
  }
  return !fe.diags.has_errors();
}

std::string location(const Frontend &fe, const PlanPoint &p) {
  const SourceRange &r = p.bench_range;
  if (!r.valid()) return fe.plan->file;
  return fmt::format("{}:{}:{}", fe.sources.file(r.file).path, r.line, r.col);
}

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
  // First, before any thread exists: SIGINT/SIGTERM become a stop request, not a kill.
  StopSource stop;
  SignalWatcher signals(stop);

  Frontend fe;
  if (!load_frontend(a.in, fe)) return kExitBadInput;
  if (std::string why = check_privileges(); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  std::map<size_t, std::vector<uint8_t>> objects;
  bool compiled = compile_units(fe, stop, objects);
  print_diagnostics(fe);
  if (!compiled) return kExitBadInput;

  FeatureProber prober;
  RunOptions opts;
  opts.verbose = a.verbose;
  opts.prober = &prober;
  if (!a.quiet)
    opts.on_sample = [](const PlanPoint &p, int iter, const Sample &s, bool) {
      fmt::print("{}\n", format_progress(iter, s, p.producers, 1'000'000'000, p.report));
      std::fflush(stdout);
    };

  const std::vector<uint8_t> no_object;  // programs that load nothing (trigger base)
  int failed = 0, ran = 0, skipped = 0;
  SuiteRows suite;
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
    auto it = objects.find(p.index);
    PointResult r = run_point(p, family, it == objects.end() ? no_object : it->second, opts, stop);
    switch (r.status) {
      case PointResult::Status::Ok:
      case PointResult::Status::Interrupted:
        ++ran;
        fmt::print("{}\n", a.quiet ? fmt::format("{:<20}: {}", p.label, format_summary(r)) : format_summary(r));
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
    suite.rows.push_back(format_table_row(p.label, r, p.report.empty() ? "hits" : p.report.front()));
  }
  print_suite_table(suite);
  if (int code = exit_code_for(stop); code != 0) {
    fmt::print(stderr, "bpfbench: interrupted ({} point{} measured)\n", ran, ran == 1 ? "" : "s");
    return code;
  }
  if (failed > 0) {
    fmt::print(stderr, "bpfbench: {} point{} failed, {} ran, {} skipped\n", failed, failed == 1 ? "" : "s", ran, skipped);
    return kExitBadInput;
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

// bpfbench: the command line. CLI11 parses, a cmd_* function runs the pipeline.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <exception>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/results_cmds.hpp"
#include "cli/run_commands.hpp"

namespace bpfbench::cli {

namespace {

int run(int argc, char **argv) {
  CLI::App app{"bpfbench: declarative BPF micro-benchmarks (.bdsl → BPF → numbers)", "bpfbench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("bpfbench ") + BPFBENCH_VERSION);

  CheckArgs check;
  auto *c = app.add_subcommand("check", "Parse and check a .bdsl file; report every problem");
  add_file_options(c, check.in);
  c->add_flag("--compile", check.compile, "Also generate and compile every BPF program");

  PlanArgs plan;
  auto *p = app.add_subcommand("plan", "Print the resolved run plan: every sweep point");
  add_file_options(p, plan.in);
  p->add_flag("--json", plan.json, "Print the plan as JSON");

  EmitArgs emit;
  auto *e = app.add_subcommand("emit", "Print the generated BPF C");
  add_file_options(e, emit.in);
  e->add_option("--bench", emit.bench, "Only this bench (index from 0, or family name)");
  e->add_option("--point", emit.point, "Only the program of this plan point (index from `plan`)");

  ListArgs list;
  auto *l = app.add_subcommand("list", "List the benchmark families, their params and metrics");
  l->add_option("FILE", list.file, "A .bdsl file: also list the families in bpf_templates/ next to it");
  l->add_option("--templates", list.template_dirs, "Also look for families in this folder (repeatable)")
      ->allow_extra_args(false);
  l->add_flag("--json", list.json, "Print as JSON");

  RunCommand runcmd;
  add_run_commands(app, runcmd);
  ResultsCommands results;
  add_results_commands(app, results);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &ex) {
    return app.exit(ex);
  } catch (const CLI::CallForAllHelp &ex) {
    return app.exit(ex);
  } catch (const CLI::CallForVersion &ex) {
    return app.exit(ex);
  } catch (const CLI::ParseError &ex) {
    fmt::print(stderr, "bpfbench: error: {}\nRun with --help for more information.\n", ex.what());
    return kExitBadInput;
  }
  if (c->parsed()) return cmd_check(check);
  if (p->parsed()) return cmd_plan(plan);
  if (e->parsed()) return cmd_emit(emit);
  if (l->parsed()) return cmd_list(list);
  if (auto code = dispatch_results_commands(results)) return *code;
  return dispatch_run_commands(runcmd);
}

}  // namespace

}  // namespace bpfbench::cli

int main(int argc, char **argv) {
  // RLIMIT_FSIZE is a full disk, not a kill: write() fails with EFBIG, the writer reports it and removes its temporary file.
  std::signal(SIGXFSZ, SIG_IGN);
  // Stages report errors as values; this only catches what should never happen
  // (bad_alloc, a library throwing), so the user sees one line, not a terminate().
  try {
    return bpfbench::cli::run(argc, argv);
  } catch (const std::exception &ex) {
    std::fprintf(stderr, "bpfbench: internal error: %s\n", ex.what());
  } catch (...) {
    std::fprintf(stderr, "bpfbench: internal error\n");
  }
  return bpfbench::cli::kExitBadInput;
}

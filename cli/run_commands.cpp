#include "cli/run_commands.hpp"

#include "cli/options.hpp"

namespace bpfbench::cli {

void add_run_commands(CLI::App &app, RunCommand &rc) {
  rc.run_cmd = app.add_subcommand("run", "Compile, load and run every point; print the numbers");
  add_file_options(rc.run_cmd, rc.run.in);
  rc.run_cmd->add_flag("-q,--quiet", rc.run.quiet, "Print only summaries, no per-interval lines");
  rc.run_cmd->add_flag("-v,--verbose", rc.run.verbose, "Also print libbpf/verifier details");
  rc.run_cmd->add_option("--only", rc.run.only, "Run only points whose label contains this text");
  rc.probe_cmd = app.add_subcommand("probe", "Show which program types, attach kinds, helpers and kfuncs this kernel supports");
  rc.probe_cmd->add_flag("--json", rc.probe.json, "Print as JSON");
}

int dispatch_run_commands(const RunCommand &rc) {
  if (rc.run_cmd->parsed()) return cmd_run(rc.run);
  if (rc.probe_cmd->parsed()) return cmd_probe(rc.probe);
  return kExitBadInput;
}

}  // namespace bpfbench::cli

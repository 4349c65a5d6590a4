#include "cli/run_commands.hpp"

#include "cli/options.hpp"
#include "cli/results_cmds.hpp"
#include "cli/values.hpp"
#include "session/calibration.hpp"

namespace bpfbench::cli {

ValueParser<int64_t> calibration_value() {
  auto duration = duration_in(kMinCalibrationNs, kMaxCalibrationNs);
  return [duration](const std::string &text, std::string *why) -> std::optional<int64_t> {
    if (text == "off") return 0;
    return duration(text, why);
  };
}

void add_run_commands(CLI::App &app, RunCommand &rc) {
  rc.run_cmd = app.add_subcommand("run", "Compile, load and run every point; print the numbers");
  add_file_options(rc.run_cmd, rc.run.in);
  rc.run_cmd->add_flag("-q,--quiet", rc.run.quiet, "Print only summaries, no per-interval lines");
  rc.run_cmd->add_flag("-v,--verbose", rc.run.verbose, "Also print libbpf/verifier details");
  // Off by default: the stats' two clock reads per program run cost ~20 % of a trigger
  // point's hits (docs/run.md, "In-kernel cost per run"), and the default numbers are
  // the ones compared with the kernel bench.
  rc.run_cmd->add_flag("--prog-stats", rc.run.prog_stats,
                       "Enable BPF run-time stats during each point: prog_runs/prog_ns/prog_time_share metrics "
                       "(costs throughput; off by default)");
  add_export_options(rc.run_cmd, rc.run);
  // A flag, so `--profile FILE.bdsl` keeps the file; `--profile=folded` gives the value
  // (a bare flag stores "true").
  rc.run_cmd
      ->add_flag("--profile", rc.run.profile,
                 "perf record each point's measured part into profiles/<label>.perf.data (beside --json) and "
                 "print its top symbols; --profile=folded also writes collapsed stacks (<label>.folded)")
      ->check([](const std::string &v) {
        return v == "true" || v == "folded" ? std::string() : "--profile takes no value or =folded, not '" + v + "'";
      });
  rc.run_cmd->add_flag("--hw-counters", rc.run.hw_counters,
                       "Count cycles, instructions and cache misses per op where the machine has a PMU");
  add_value<int64_t>(
      rc.run_cmd, "--calibration", calibration_value(), [&r = rc.run](int64_t ns) { r.calibration_ns = ns; },
      "A base-loop point this long at the start and end of the run, for compare's drift check; off to skip "
      "(default 1s)",
      "off|DURATION");
  rc.probe_cmd =
      app.add_subcommand("probe", "Show which program types, attach kinds, helpers and kfuncs this kernel supports");
  rc.probe_cmd->add_flag("--json", rc.probe.json, "Print as JSON");
  add_vm_options(rc.run_cmd, rc.run_vm);
  add_vm_options(rc.probe_cmd, rc.probe_vm);
  rc.kernels_cmd = add_kernels_command(app, rc.kernels);
}

bool polls_stop_flag(const RunCommand &rc) {
  return rc.run_cmd->parsed() || rc.kernels_cmd->parsed() || (rc.probe_cmd->parsed() && !rc.probe_vm.kernel.empty());
}

int dispatch_run_commands(const RunCommand &rc) {
  if (rc.run_cmd->parsed()) return rc.run_vm.kernel.empty() ? cmd_run(rc.run) : cmd_in_guest(rc.run_vm, false, &rc.run.in);
  if (rc.probe_cmd->parsed())
    return rc.probe_vm.kernel.empty() ? cmd_probe(rc.probe) : cmd_in_guest(rc.probe_vm, rc.probe.json);
  if (rc.kernels_cmd->parsed()) return cmd_kernels(rc.kernels);
  return kExitBadInput;
}

}  // namespace bpfbench::cli

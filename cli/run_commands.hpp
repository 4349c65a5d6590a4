// `bpfbench run` and `bpfbench probe`: the commands that touch the kernel.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/kernel_cmd.hpp"
#include "cli/values.hpp"
#include "results/report_kernel.hpp"

namespace bpfbench::cli {

struct RunArgs {
  FileArgs in;
  bool quiet = false;
  bool verbose = false;
  bool prog_stats = false;                      // --prog-stats: bpf_enable_stats, the prog_* metrics
  std::string json_out, csv_out, markdown_out;  // --json/--csv/--markdown FILE
  // bpfbench bench: the kernel bench's Iter/Summary lines, no suite table.
  std::optional<KernelReport> kernel_report;
  // KernelReport::BatchTiming: the point's param whose value the report names the scenario
  // by ("" = the point's label), and the kernel bench's --machine-readable (the RESULT
  // line instead of its report line).
  std::string kernel_title_param;
  bool machine_readable = false;
  bool setup_lines = true;   // "Setting up benchmark …" / "Benchmark … started."
  std::string profile;       // --profile[=folded]: "" off, "top" or "folded"
  bool hw_counters = false;  // --hw-counters
  // --calibration: 0 = off; unset = $BPFBENCH_CALIBRATION, else 1 s (cli/calibration.hpp).
  std::optional<int64_t> calibration_ns;
};

// "off" (0) or a duration of kMinCalibrationNs..kMaxCalibrationNs.
ValueParser<int64_t> calibration_value();

struct ProbeArgs {
  bool json = false;
};

struct RunCommand {
  RunArgs run;
  ProbeArgs probe;
  CLI::App *run_cmd = nullptr;
  CLI::App *probe_cmd = nullptr;
  VmArgs run_vm, probe_vm;  // --kernel: the same command inside a qemu guest
  KernelsArgs kernels;
  CLI::App *kernels_cmd = nullptr;
};

void add_run_commands(CLI::App &app, RunCommand &rc);
int dispatch_run_commands(const RunCommand &rc);
// Whether the parsed command polls a stop flag (has a SignalWatcher): run, kernels,
// probe --kernel.
bool polls_stop_flag(const RunCommand &rc);

int cmd_run(const RunArgs &a);
int cmd_probe(const ProbeArgs &a);

}  // namespace bpfbench::cli

// `bpfbench run` and `bpfbench probe`: the commands that touch the kernel.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/kernel_cmd.hpp"
#include "cli/values.hpp"
#include "results/report_kernel.hpp"
#include "session/run_args.hpp"

namespace bpfbench::cli {

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

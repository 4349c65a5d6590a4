// What `bpfbench run` is asked to do: its input, how it measures, which files it keeps up
// to date and how its text reads (cli/run_commands.hpp fills it from the options, `bench`
// from the kernel bench's command line: session/kbench.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "results/report_kernel.hpp"
#include "session/inputs.hpp"

namespace bpfbench {

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
  // --calibration: 0 = off; unset = $BPFBENCH_CALIBRATION, else 1 s (session/calibration.hpp).
  std::optional<int64_t> calibration_ns;
};

}  // namespace bpfbench

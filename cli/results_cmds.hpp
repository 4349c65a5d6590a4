// Result-file features of the CLI: run's --json/--csv/--markdown/--precision, `compare`, `plot`.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/run_commands.hpp"

namespace bpfbench::cli {

// Adds --json, --csv, --markdown, --precision, --min-duration, --max-duration to `run`.
void add_export_options(CLI::App *run, RunArgs &a);

struct CompareArgs {
  std::string a, b;
  std::string format = "text";  // text | markdown | json
  std::string metric;
  std::string match = "params";  // params: suite, label and params; label: suite and label
  double threshold_pct = 1.0;
  double alpha = 0.05;
  std::optional<double> fail_on_regression_pct;
  bool normalize = false;          // divide B by the calibration ratio
  double drift_threshold_pct = 5;  // results/drift.hpp
  double noise_threshold_pct = 10;
};

struct PlotArgs {
  std::vector<std::string> inputs;  // one, or two to overlay (before/after)
  std::string output;
  std::string metric;  // "" = one chart per reported metric
};

struct ResultsCommands {
  CompareArgs compare;
  PlotArgs plot;
  CLI::App *compare_cmd = nullptr;
  CLI::App *plot_cmd = nullptr;
};

void add_results_commands(CLI::App &app, ResultsCommands &rc);
// The exit code when one of these subcommands was given.
std::optional<int> dispatch_results_commands(const ResultsCommands &rc);

int cmd_compare(const CompareArgs &a);
int cmd_plot(const PlotArgs &a);

}  // namespace bpfbench::cli

#include "cli/results_cmds.hpp"

#include <fmt/format.h>

#include "cli/values.hpp"
#include "compiler/family/units.hpp"

namespace bpfbench::cli {

namespace {

// A sampling interval: 10ms .. 60s (shorter ones measure the sampler, not the kernel).
constexpr int64_t kMinIntervalNs = 10'000'000, kMaxIntervalNs = 60'000'000'000;
// The adaptive bounds: one interval at least; at most what `duration` allows.
constexpr int64_t kMinAdaptiveNs = kMinIntervalNs, kMaxAdaptiveNs = 24 * 3600 * int64_t{1'000'000'000};
// Percentages: the bounds of `until ci < X%` in a file.
constexpr double kMinPct = 0.01, kMaxPct = 100;

// --min-duration above --max-duration (either one given, the other its default) could
// never be honoured: refused once both are known.
void check_adaptive_bounds(const PlanOverrides &o) {
  const PlanPoint defaults;
  int64_t lo = o.min_duration_ns.value_or(defaults.min_duration_ns);
  int64_t hi = o.max_duration_ns.value_or(defaults.max_duration_ns);
  if (lo > hi)
    throw CLI::ValidationError(o.min_duration_ns ? "--min-duration" : "--max-duration",
                               fmt::format("the minimum {}{} is above the maximum {}{}", format_duration_ns(lo),
                                           o.min_duration_ns ? "" : " (the default)", format_duration_ns(hi),
                                           o.max_duration_ns ? "" : " (the default)"));
}

}  // namespace

void add_export_options(CLI::App *run, RunArgs &a) {
  auto path = checked(non_empty("a file name"), "FILE");
  run->add_option("--json", a.json_out, "Write results (plan, samples, stats, environment) as JSON to FILE")
      ->check(path)
      ->type_name("FILE");
  run->add_option("--csv", a.csv_out, "Write one CSV row per point and metric to FILE")->check(path)->type_name("FILE");
  run->add_option("--markdown", a.markdown_out, "Write Markdown tables to FILE")->check(path)->type_name("FILE");
  PlanOverrides &o = a.in.overrides;
  auto [rounds_lo, rounds_hi] = builtin_range("rounds");
  add_value<int64_t>(
      run, "--rounds", integer_in(rounds_lo, rounds_hi), [&o](int64_t n) { o.rounds = static_cast<int>(n); },
      "Measure every point N times, a whole run each, round-robin over the plan (like `rounds N;`); "
      "the CI is over the N round means, so it holds the run-to-run variation (with a precision "
      "target: at least N rounds of min-duration each, more until the CI is reached)",
      "N");
  add_value<double>(
      run, "--precision", percent_in(kMinPct, kMaxPct), [&o](double pct) { o.precision_pct = pct; },
      "Sample until the 95% CI of the first reported metric is within PCT of its mean (like `until ci < PCT`)", "PCT");
  add_value<int64_t>(
      run, "--min-duration", duration_in(kMinAdaptiveNs, kMaxAdaptiveNs), [&o](int64_t ns) { o.min_duration_ns = ns; },
      "With a precision target: measure at least this long (default 1500ms)", "DURATION");
  add_value<int64_t>(
      run, "--max-duration", duration_in(kMinAdaptiveNs, kMaxAdaptiveNs), [&o](int64_t ns) { o.max_duration_ns = ns; },
      "With a precision target: measure at most this long (default 30s)", "DURATION");
  add_value<int64_t>(
      run, "--interval", duration_in(kMinIntervalNs, kMaxIntervalNs), [&o](int64_t ns) { o.interval_ns = ns; },
      "Sampling interval (default 1s; 250ms with a precision target)", "DURATION");
  run->callback([&o] { check_adaptive_bounds(o); });
}

void add_results_commands(CLI::App &app, ResultsCommands &rc) {
  CompareArgs &c = rc.compare;
  rc.compare_cmd = app.add_subcommand("compare", "Compare two result files (before.json after.json)");
  auto results_file = checked(non_empty("a results file name"), "FILE");
  rc.compare_cmd->add_option("A", c.a, "Results before (bpfbench run --json)")->required()->check(results_file);
  rc.compare_cmd->add_option("B", c.b, "Results after")->required()->check(results_file);
  rc.compare_cmd->add_option("--format", c.format, "text, markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  // CLI::Range lets NaN through (every comparison with it is false): parsed as finite numbers.
  add_value<double>(
      rc.compare_cmd, "--threshold", number_in(0, 1000), [&c](double v) { c.threshold_pct = v; },
      "Changes smaller than this percent are 'no change' (default 1)", "PCT");
  add_value<double>(
      rc.compare_cmd, "--alpha", number_in(0, 1, true), [&c](double v) { c.alpha = v; },
      "Significance level of the Welch t test (default 0.05)", "P");
  add_value<double>(
      rc.compare_cmd, "--fail-on-regression", percent_in(kMinPct, kMaxPct),
      [&c](double v) { c.fail_on_regression_pct = v; }, "Exit 1 when a point is significantly slower by at least PCT",
      "PCT");
  rc.compare_cmd->add_option("--metric", c.metric, "Metric to compare (default: each point's first reported)")
      ->check(checked(non_empty("a metric name"), "METRIC"));
  rc.compare_cmd->add_flag("--normalize", c.normalize,
                           "Divide B's numbers by the calibration ratio B/A (both runs need a calibration)");
  add_value<double>(
      rc.compare_cmd, "--drift-threshold", number_in(0, 1000), [&c](double v) { c.drift_threshold_pct = v; },
      "A calibration move above this percent is drift even within its CI (default 5)", "PCT");
  add_value<double>(
      rc.compare_cmd, "--noise-threshold", number_in(0, 100), [&c](double v) { c.noise_threshold_pct = v; },
      "A point during which other processes took more than this percent of the CPUs is noisy (default 10)", "PCT");
  rc.compare_cmd
      ->add_option("--match", c.match,
                   "How points pair up: 'params' (suite, label and params; the default) or 'label' (suite and "
                   "label: a changed param is compared and shown per point)")
      ->check(CLI::IsMember({"params", "label"}))
      ->type_name("params|label");

  rc.plot_cmd = app.add_subcommand("plot", "Plot sweeps of result files with gnuplot (svg or png)");
  rc.plot_cmd->add_option("RESULTS", rc.plot.inputs, "One result file, or two to overlay before/after")
      ->required()
      ->expected(1, 2)
      ->check(results_file);
  rc.plot_cmd->add_option("-o,--output", rc.plot.output, "Output file: .svg or .png")
      ->required()
      ->check(checked(non_empty("a file name"), "FILE"))
      ->type_name("FILE");
  rc.plot_cmd->add_option("--metric", rc.plot.metric, "Metric to plot (default: one chart per reported metric)")
      ->check(checked(non_empty("a metric name"), "METRIC"));
}

std::optional<int> dispatch_results_commands(const ResultsCommands &rc) {
  if (rc.compare_cmd && rc.compare_cmd->parsed()) return cmd_compare(rc.compare);
  if (rc.plot_cmd && rc.plot_cmd->parsed()) return cmd_plot(rc.plot);
  return std::nullopt;
}

}  // namespace bpfbench::cli

#include "cli/results_cmds.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "compiler/units.hpp"

namespace bpfbench::cli {

namespace {

// "5" (seconds), "500ms", "2s".
std::optional<int64_t> duration_arg(const std::string &text) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 12) return std::nullopt;
  std::string err;
  return apply_unit(std::stoll(text.substr(0, i)), text.substr(i), ParamType::Duration, &err);
}

CLI::Validator percent_validator() {
  return CLI::Validator(
      [](std::string &s) { return parse_percent(s) ? std::string() : "expected a percentage like 1% or 0.5%"; },
      "PCT");
}

CLI::Validator duration_check() {
  return CLI::Validator(
      [](std::string &s) { return duration_arg(s) ? std::string() : "expected a duration like 5, 500ms or 2s"; },
      "DURATION");
}

// A sampling interval: 10ms .. 60s (shorter ones measure the sampler, not the kernel).
CLI::Validator interval_check() {
  return CLI::Validator(
      [](std::string &s) {
        auto ns = duration_arg(s);
        if (!ns) return std::string("expected a duration like 250ms or 1s");
        if (*ns < 10'000'000 || *ns > 60'000'000'000) return std::string("must be from 10ms to 60s");
        return std::string();
      },
      "DURATION");
}

// CLI::Range lets NaN through (every comparison with it is false): a threshold or level
// of "nan" would turn every verdict into "no change".
CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string &s) {
        char *end = nullptr;
        double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < lo || v > hi)
          return fmt::format("expected a number from {} to {}", lo, hi);
        return std::string();
      },
      fmt::format("[{} - {}]", lo, hi));
}

}  // namespace

std::optional<double> parse_percent(const std::string &text) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  if (t.empty()) return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || !(v > 0) || v > 100) return std::nullopt;
  return v;
}

void add_export_options(CLI::App *run, RunArgs &a) {
  run->add_option("--json", a.json_out, "Write results (plan, samples, stats, environment) as JSON to FILE")
      ->type_name("FILE");
  run->add_option("--csv", a.csv_out, "Write one CSV row per point and metric to FILE")->type_name("FILE");
  run->add_option("--markdown", a.markdown_out, "Write Markdown tables to FILE")->type_name("FILE");
  PlanOverrides &o = a.in.overrides;
  run->add_option_function<int>(
         "--rounds", [&o](const int &n) { o.rounds = n; },
         "Measure every point N times, a whole run each, round-robin over the plan (like `rounds N;`); "
         "the CI is over the N round means, so it holds the run-to-run variation (with a precision "
         "target: at least N rounds of min-duration each, more until the CI is reached)")
      ->check(CLI::Range(1, 100))
      ->type_name("N");
  run->add_option_function<std::string>(
         "--precision", [&o](const std::string &s) { o.precision_pct = parse_percent(s); },
         "Sample until the 95% CI of the first reported metric is within PCT of its mean (like `until ci < PCT`)")
      ->check(percent_validator());
  run->add_option_function<std::string>(
         "--min-duration", [&o](const std::string &s) { o.min_duration_ns = duration_arg(s); },
         "With a precision target: measure at least this long (default 1500ms)")
      ->check(duration_check());
  run->add_option_function<std::string>(
         "--max-duration", [&o](const std::string &s) { o.max_duration_ns = duration_arg(s); },
         "With a precision target: measure at most this long (default 30s)")
      ->check(duration_check());
  run->add_option_function<std::string>(
         "--interval", [&o](const std::string &s) { o.interval_ns = duration_arg(s); },
         "Sampling interval (default 1s; 250ms with a precision target)")
      ->check(interval_check());
}

void add_results_commands(CLI::App &app, ResultsCommands &rc) {
  CompareArgs &c = rc.compare;
  rc.compare_cmd = app.add_subcommand("compare", "Compare two result files (before.json after.json)");
  rc.compare_cmd->add_option("A", c.a, "Results before (bpfbench run --json)")->required();
  rc.compare_cmd->add_option("B", c.b, "Results after")->required();
  rc.compare_cmd->add_option("--format", c.format, "text, markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  rc.compare_cmd->add_option("--metric", c.metric, "Metric to compare (default: each point's first reported)");
  rc.compare_cmd->add_option("--threshold", c.threshold_pct,
                             "Changes smaller than this percent are 'no change' (default 1)")
      ->check(finite_range(0.0, 1000.0));
  rc.compare_cmd->add_option("--alpha", c.alpha, "Significance level of the Welch t test (default 0.05)")
      ->check(finite_range(0.0, 1.0));
  rc.compare_cmd->add_option_function<std::string>(
         "--fail-on-regression", [&c](const std::string &s) { c.fail_on_regression_pct = parse_percent(s); },
         "Exit 1 when a point is significantly slower by at least PCT")
      ->check(percent_validator());

  rc.plot_cmd = app.add_subcommand("plot", "Plot sweeps of result files with gnuplot (svg or png)");
  rc.plot_cmd->add_option("RESULTS", rc.plot.inputs, "One result file, or two to overlay before/after")
      ->required()
      ->expected(1, 2);
  rc.plot_cmd->add_option("-o,--output", rc.plot.output, "Output file: .svg or .png")->required();
}

std::optional<int> dispatch_results_commands(const ResultsCommands &rc) {
  if (rc.compare_cmd && rc.compare_cmd->parsed()) return cmd_compare(rc.compare);
  if (rc.plot_cmd && rc.plot_cmd->parsed()) return cmd_plot(rc.plot);
  return std::nullopt;
}

}  // namespace bpfbench::cli

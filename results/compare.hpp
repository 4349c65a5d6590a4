// Before/after comparison of two result files: per point change, CI, Welch t test, verdict.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/drift.hpp"
#include "results/results.hpp"

namespace bpfbench {

// Drift / Noisy: the numbers are there, but the machine changed between the runs (the
// calibration, results/drift.hpp) or was busy during the point: no faster/slower.
enum class Verdict { Faster, Slower, NoChange, NotComparable, Drift, Noisy };
const char *to_string(Verdict v);

struct CompareOptions {
  std::string metric;               // "" = each point's primary metric in A
  double alpha = 0.05;              // significance level of the Welch t test
  double min_change_pct = 1.0;      // smaller changes are "no change" even when significant
  double drift_threshold_pct = 5;   // a calibration move beyond this is drift even inside its CI
  double noise_threshold_pct = 10;  // other processes' (or steal) share of the CPUs beyond this: noisy
  bool normalize = false;           // B's metric divided by the calibration ratio (both runs need one)
  // Points match by suite and label only (`compare --match label`): a changed param
  // (`lookups 1` -> `2`) is compared, and each such point lists what changed.
  bool match_by_label = false;
};

struct PointComparison {
  std::string suite, label, params, metric, unit;
  bool higher_is_better = true;
  double mean_a = 0, mean_b = 0, ci_a = 0, ci_b = 0;
  size_t n_a = 0, n_b = 0;
  double diff = 0, diff_ci_low = 0, diff_ci_high = 0;  // B - A in the unit, its 95% Welch CI
  // A's 95% CI spans 0 (a difference such as an `_adj` metric, or a mean of 0): a change
  // relative to A means nothing, so there is none (change_pct, its CI and the speed
  // change are NaN), the point is judged on `diff` and left out of the geometric mean.
  bool absolute = false;
  double change_pct = 0;                         // (B - A) / A of the metric
  double change_ci_low = 0, change_ci_high = 0;  // 95% CI of change_pct (Welch, over A)
  double p_value = 1;
  double speed_change_pct = 0;  // > 0 = B is faster, whatever the direction
  Verdict verdict = Verdict::NotComparable;
  std::vector<std::string> notes;  // "program changed", "skipped in B: ..."
  // A program's verified insns or JITed size differ between A and B (also in `notes`).
  std::vector<std::string> facts_changed;
  // With match_by_label: the params that differ, "lookups: 1 -> 2" (a param only one side
  // has: "lookups: (none) -> 2"); empty when they are the same.
  std::vector<std::string> param_diffs;
};

struct SuiteGeomean {
  std::string suite;
  size_t n = 0;
  double speed_change_pct = 0;  // geometric mean of the points' speed ratios, minus 1 (NaN when n = 0)
  size_t left_out = 0;          // comparable points without a relative change (`absolute`)
  size_t not_judged = 0;        // drift / noisy points: not in the mean
};

struct CompareReport {
  std::string path_a, path_b;
  std::vector<PointComparison> points;
  std::vector<SuiteGeomean> geomeans;
  std::vector<std::string> env_diffs;  // environment fields that differ, and the .bdsl hash
  std::vector<std::string> only_a, only_b;
  DriftCheck drift;  // the calibrations of both runs
  bool normalized = false;
  double worst_regression_pct() const;              // largest relative slowdown among "slower" points, 0 if none
  const PointComparison *worst_regression() const;  // that point; nullptr if none
};

// The `--fail-on-regression` message: which point (label and suite), how much slower, the
// limit and how many other points are over it: "regression: point 'rb-1' (suite 'sweep')
// is 20.00% slower (limit 5%)".
std::string regression_message(const std::string &suite, const std::string &label, double pct, double limit_pct,
                               size_t others_over);

// A relative change with its sign, "+1.23%" ("n/a" when not finite): compare's and ab's tables.
std::string signed_pct_text(double v);

// Per param "name: A -> B" for the params whose values differ, in A's order, then B's extra.
std::vector<std::string> param_differences(const nlohmann::json &a, const nlohmann::json &b);

// Every metric name the set's points hold, sorted (for "unknown metric" messages).
std::vector<std::string> metric_names(const ResultSet &rs);

// Points match by suite, label and params (or suite and label: o.match_by_label).
CompareReport compare_results(const ResultSet &a, const ResultSet &b, const CompareOptions &o);

std::string compare_to_text(const CompareReport &c);
std::string compare_to_markdown(const CompareReport &c);
nlohmann::json compare_to_json(const CompareReport &c);

}  // namespace bpfbench

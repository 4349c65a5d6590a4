// Baseline adjustment: a main point's costs minus its baseline point's (`baseline < >`).
#pragma once

#include <string>

#include "results/point_result.hpp"

namespace bpfbench {

// Whether a metric in `unit` is a cost that a baseline's subtracts from: time per event,
// `ns/op` (latency) and `ns/run` (prog_ns, the BPF run-time stats). Rates and ratios are
// not (a rate minus a rate is not the rate of the difference).
bool baseline_subtracts(const std::string &unit);

// For each metric `m` in main.report that both results hold in the same unit, a unit
// baseline_subtracts(), adds `<m>_adj` = main − baseline to main's summary and report,
// right after `m`: mean and median the differences, min/max the widest, stddev both
// combined in quadrature, ci95 the Welch CI of the difference of the two means, `values`
// each of main's values less the baseline's mean (n and outliers are main's). Does
// nothing when the baseline did not run (skipped, failed).
void apply_baseline(PointResult &main, const PointResult &baseline);

}  // namespace bpfbench

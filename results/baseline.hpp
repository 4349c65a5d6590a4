// Baseline adjustment: a main point's latency minus its baseline point's (`baseline < >`).
#pragma once

#include "results/point_result.hpp"

namespace bpfbench {

// For each metric `m` in main.report measured in ns/op (latency) that both results hold,
// adds `<m>_adj` = main − baseline to main's summary and report, right after `m`: stddev
// both combined in quadrature, ci95 the Welch CI of the difference of the two means. Does nothing when the baseline did
// not run (skipped, failed).
void apply_baseline(PointResult &main, const PointResult &baseline);

}  // namespace bpfbench

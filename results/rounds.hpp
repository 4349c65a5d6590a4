// A point measured in rounds (`bpfbench run --rounds N`): the plan is run N times over,
// round-robin, each point a complete run of its own each time (load, attach, warmup,
// measure, detach), and the runs of a point are combined here. A within-run CI only
// knows the intervals of one run; runs a minute apart on the same machine differ by more
// than that (measured: 0.5-0.8% between runs of ringbuf points whose own CI was 0.2%).
// The CI over round means holds that variation, so a before/after comparison of two
// rounds runs tests what another run would see.
#pragma once

#include <vector>

#include "compiler/family/manifest.hpp"
#include "results/point_result.hpp"

namespace bpfbench {

// The rounds of one point, in order, combined: samples (and warmup) concatenated with
// `round_sizes`; the summary over all intervals, then each metric's mean and ci95 taken
// over the round means (MetricSummary::round_means); per-CPU counts summed. The first
// failed or skipped round decides the status (with its reason); an interrupted last round
// is left out when earlier rounds measured. `runs` must not be empty.
PointResult combine_rounds(const std::vector<PointResult> &runs, const std::vector<MetricSpec> &metrics);

// Adaptive rounds: more rounds are run while the primary metric's CI over round means is
// above `target_pct` percent, from `min_rounds` (>= 2) up to `max_rounds`.
struct RoundsRule {
  double target_pct = 0;  // 0: exactly min_rounds
  int min_rounds = 3;
  int max_rounds = 3;
};
// Whether the point needs another round; sets r.precision_reached for adaptive rules.
bool needs_another_round(PointResult &r, int rounds_done, const RoundsRule &rule);

}  // namespace bpfbench

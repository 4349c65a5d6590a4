// The drift guard of `compare`: two result files measured at different times are only
// comparable when the machine was the same. Each run measured a calibration point (the
// trigger family's base loop) at its start and end, and noise facts per point; this
// decides from them whether a point's change can be told from the machine's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/noise_facts.hpp"
#include "results/stats.hpp"

namespace bpfbench {

// One run's calibration, summarized: the mean of its points' means and its relative
// uncertainty (the larger of the points' combined 95% CIs and half the start-to-end move).
struct CalibrationSummary {
  double mean = 0;
  double rel_pct = 0;                // uncertainty of `mean`, % of it
  double start_end_pct = 0;          // (end − start) / start, 0 with one point
  bool start_end_beyond_ci = false;  // |end − start| is more than their CIs combined
  size_t points = 0;
  std::string metric, unit;
};
std::optional<CalibrationSummary> summarize_calibration(const std::optional<Calibration> &c);

struct DriftCheck {
  bool known = false;   // both runs have a calibration
  double ratio = 1;     // B/A of the calibration means (a rate: > 1 = B's machine was faster)
  double ci_pct = 0;    // 95% half-width of the ratio, % (A's and B's in quadrature)
  double move_pct = 0;  // |ratio − 1| · 100
  // The calibration moved: outside 1 ± ci_pct, or by more than the drift threshold.
  bool drifted = false;
  // A run whose own calibration moved between its start and its end by more than its CIs
  // and the threshold: the machine changed during that run, so each point may have run in
  // either state, and no point is judged (nor normalized). Says which run and how much.
  std::string unstable;
  std::vector<std::string> lines;  // what the report says about the calibration
};
DriftCheck check_drift(const std::optional<Calibration> &a, const std::optional<Calibration> &b, double threshold_pct);

// Why a point is too noisy to judge: other processes (or the hypervisor's steal) took more
// than threshold_pct of the CPUs while A's or B's point ran; nullopt when neither did.
std::optional<std::string> noise_note(const std::optional<NoiseFacts> &a, const std::optional<NoiseFacts> &b,
                                      double threshold_pct);

// Why a point's change cannot be told from the drift: a run changed speed during itself
// (`unstable`), or the calibration moved more than the point's own 95% CI half-width of the
// change (or the point has no relative change).
std::optional<std::string> drift_note(const DriftCheck &d, double point_ci_half_pct, bool relative);

// --normalize: the factor B's metric is multiplied by, so the calibration's change is
// divided out (1/ratio for a higher-is-better metric, ratio for a lower-is-better one).
double normalize_factor(const DriftCheck &d, bool higher_is_better);
std::string normalize_note(const DriftCheck &d, double factor);

// `m` with every number of its (mean, spread, samples) multiplied by `factor` > 0.
MetricSummary scale_metric(const MetricSummary &m, double factor);

}  // namespace bpfbench

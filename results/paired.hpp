// `bpfbench ab` statistics: ABBA turn order, paired B/A ratios with a t-interval on the log
// ratios, the stop rule, verdicts with a noise floor, suite geomeans. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "results/compare.hpp"

namespace bpfbench {

enum class AbSide { A, B };
const char *to_string(AbSide s);

// Turn `turn` (from 0) of the ABBA sequence A B B A A B B A ...: a pair is turns 2k and
// 2k+1, so every pair holds one A and one B next to each other, and a drift that is linear
// over four turns cancels out of the mean of two consecutive pairs.
AbSide abba_side(size_t turn);
std::vector<AbSide> abba_order(size_t turns);

// The geometric mean of the per-pair ratios b[i]/a[i] and its CI: the mean of the log ratios
// ± t_{0.975, n-1} · sd / sqrt(n), back-transformed with exp. `ok` is false (and `why` says
// why) when a value is not a positive finite number: no ratio is made up then. Every pair
// counts: a pair is a unit (a load of A and a load of B), and what differs between units,
// the machine's moments and the JIT's placements, is what the interval must hold.
struct PairedRatio {
  bool ok = false;
  std::string why;
  size_t pairs = 0;                 // pairs given
  size_t n = 0;                     // log ratios in the statistics
  double mean_log = 0, sd_log = 0;  // of ln(b/a); sd with n-1
  double half_log = 0;              // t · sd / sqrt(n); infinite for n < 2
  double ratio = 0;                 // exp(mean_log)
  double ci_low = 0, ci_high = 0;   // exp(mean_log ∓ half_log)
  double half_width_pct = 0;        // (exp(half_log) - 1) · 100: the stop rule's measure
  double max_abs_log = 0;           // the largest |ln(b/a)| of one pair (the spread)
  double confidence = 0.95;         // of the interval
  double change_pct() const { return (ratio - 1) * 100; }
};
PairedRatio paired_ratio(const std::vector<double> &a, const std::vector<double> &b, double confidence = 0.95);
// The same from the log ratios themselves (each finite).
PairedRatio log_ratio_ci(const std::vector<double> &logs, double confidence = 0.95);

// What one turn's value is (`ab --turn-value`). `Fast`: the 90th percentile of the turn's
// intervals in the metric's better direction (the 10th for a lower-is-better metric), the
// turns sampled every kAbFastIntervalNs: the speed a turn reached while the machine let
// it, so a slow spell of the host inside a turn moves the value only when it covers most
// of the turn (docs/ab.md). `Mean`: the mean of the turn's intervals at the point's own
// interval.
enum class AbTurnValue { Fast, Mean };
inline constexpr int64_t kAbFastIntervalNs = 100'000'000;
const char *to_string(AbTurnValue v);

// Pairs continue until the CI half-width is under `precision_pct` (after at least
// `min_pairs`), or `max_pairs` / `max_time_s` (0 = no limit) is reached. Pairs that make
// no ratio (a value that is not a positive number: PairedRatio::why) end it at once: no
// further pair can make one.
struct AbStopRule {
  double precision_pct = 1.0;
  size_t min_pairs = 3;
  size_t max_pairs = 20;
  double max_time_s = 0;
};
// Decided: an interleaved point's CI lies outside the floor (results/interleaved.hpp).
enum class AbStop { Continue, Reached, Decided, MaxPairs, MaxTime, NoRatio };
const char *to_string(AbStop s);
AbStop ab_stop_state(const PairedRatio &r, const AbStopRule &rule, double elapsed_s);

// Faster/Slower when the whole CI of the ratio lies outside ±`floor_pct` around 1 (the
// floor: the largest of --threshold, a control run's floor and the point's built-in
// control); NoChange ("within noise") otherwise; NotComparable without a ratio.
// `higher_is_better` is the metric's `better`.
Verdict ab_verdict(const PairedRatio &r, bool higher_is_better, double floor_pct);
// B's speed against A in percent, whatever the metric's direction (> 0 = B is faster).
double speed_change_pct(const PairedRatio &r, bool higher_is_better);

// The noise floor a control run (A against itself) shows for one point: the largest change
// its CI admits, |ratio - 1| + half-width, in percent.
double control_floor_pct(const PairedRatio &control);

}  // namespace bpfbench

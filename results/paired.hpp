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
// why) when a value is not a positive finite number: no ratio is made up then.
// A pair whose turns straddle a change of the machine's speed (this VM's throughput drops by
// ~35 % for tens of seconds at a time) has a ratio far from all the others, and alone
// it widens the CI past any verdict. From 5 pairs on, a pair is left out when its log
// ratio is farther from the median log ratio than both ln(1.2) and 5 × 1.4826 × the
// median absolute deviation, if at most a quarter of the pairs are that far; with more,
// none is left out (the machine is unstable, not one pair). `left_out` lists them.
// Before that, a pair measured in the slow state is left out too (slow_turn_pairs): its
// two turns both slow read alike, so it pulls the ratio toward 1 without being far from
// the others (docs/ab.md, 2026-12-04: a point's B/A 0.9727 measured ~1.00 there).
struct PairedRatio {
  bool ok = false;
  std::string why;
  size_t pairs = 0;                // pairs given, whether or not they made a ratio
  std::vector<size_t> left_out;    // pair indices (from 0) not in the statistics
  std::vector<size_t> slow_pairs;  // those of them left out for a slow turn (slow_turn_pairs)
  // When more than a quarter of the pairs have a slow turn, none is left out and these are
  // they: the machine's speed (or the program's, from one load to the next) changed through
  // the point, and a t interval over such pairs does not hold (docs/ab.md, 2026-12-05
  // 21:50 UTC: two A/A points of 22 and 26 pairs called "faster" by 3.2 % and 4.3 %). The
  // verdict is then `noisy`, never faster/slower.
  std::vector<size_t> unsteady_pairs;
  double median_ratio = 0;          // exp(median of all pairs' ln(b/a)), when any are left out
  size_t n = 0;                     // pairs in the statistics
  double mean_log = 0, sd_log = 0;  // of ln(b/a); sd with n-1
  double half_log = 0;              // t · sd / sqrt(n); infinite for n < 2
  double ratio = 0;                 // exp(mean_log)
  double ci_low = 0, ci_high = 0;   // exp(mean_log ∓ half_log)
  double half_width_pct = 0;        // (exp(half_log) - 1) · 100: the stop rule's measure
  double max_abs_log = 0;           // the largest |ln(b/a)| of one pair (the spread)
  double change_pct() const { return (ratio - 1) * 100; }
  bool unstable() const { return !unsteady_pairs.empty(); }
};
// `higher_is_better`: the metric's direction, which says what a slow turn is.
PairedRatio paired_ratio(const std::vector<double> &a, const std::vector<double> &b, double confidence = 0.95,
                         bool higher_is_better = true);
// The rule above on log ratios: the indices of the pairs to leave out (none below 5 pairs).
std::vector<size_t> straddling_pairs(const std::vector<double> &logs);
// From 5 pairs on, the pairs with a turn whose speed is under 1/1.15 of the upper quartile
// of its own side's turns (A against A, B against B, so a real change of any size never
// counts; speed is the value, or 1/value for a lower-is-better metric): this VM's slow
// state runs at ~0.65 of full speed, a turn that straddles its start or end anything in
// between, and a stable point's turns here spread by 3 % or less. None when more than a
// quarter of the pairs have such a turn: keeping a subset could then pick one (a program
// whose speed differs from one load to the next, on one side only, has "slow" turns that
// are its own), and the point gets no verdict (PairedRatio::unsteady_pairs). Values must be
// positive.
std::vector<size_t> slow_turn_pairs(const std::vector<double> &a, const std::vector<double> &b, bool higher_is_better);
// The same pairs without the quarter limit (all of them, however many).
std::vector<size_t> turns_under_quartile(const std::vector<double> &a, const std::vector<double> &b,
                                         bool higher_is_better);

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
enum class AbStop { Continue, Reached, MaxPairs, MaxTime, NoRatio };
const char *to_string(AbStop s);
AbStop ab_stop_state(const PairedRatio &r, const AbStopRule &rule, double elapsed_s);

// Faster/Slower when the CI of the ratio excludes 1 and the change is larger than
// `floor_pct` (the larger of --threshold and the control run's noise floor); NoChange
// ("within noise") otherwise; NotComparable without a ratio; Noisy when `r` is unstable(). `higher_is_better` is the
// metric's `better`.
Verdict ab_verdict(const PairedRatio &r, bool higher_is_better, double floor_pct);
// B's speed against A in percent, whatever the metric's direction (> 0 = B is faster).
double speed_change_pct(const PairedRatio &r, bool higher_is_better);

// The noise floor a control run (A against itself) shows for one point: the largest change
// its CI admits, |ratio - 1| + half-width, in percent.
double control_floor_pct(const PairedRatio &control);

}  // namespace bpfbench

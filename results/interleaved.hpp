// Interleaved `ab` statistics: the slices of A and B, alternated every few milliseconds
// over K loads (copies) of each side, judged by load, never by slice. Pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/paired.hpp"

namespace bpfbench {

// One pair of adjacent slices, one of A and one of B, both of the same unit. A unit is one
// load of A and one load of B (copy k of a block of loads): the CI's unit. Values are the
// point's main metric per second of the driving threads' CPU time; the wall-time values
// are kept beside them.
struct AbSlicePair {
  uint32_t unit = 0;
  double a = 0, b = 0;
  double a_wall = 0, b_wall = 0;
  // In-kernel ns per run of the program the events enter (run-time stats), when on.
  std::optional<double> a_prog_ns{}, b_prog_ns{};
};

// What one load of each side did over the point: its geometric mean values and its
// JITed code's residue mod 64 (absent when unknown).
struct AbUnitStats {
  uint32_t unit = 0;
  size_t pairs = 0;
  double mean_log = 0;                  // mean of ln(b/a) over the unit's pairs
  double a_geomean = 0, b_geomean = 0;  // of the slice values
  std::optional<uint32_t> a_jit64, b_jit64;
  std::optional<double> a_prog_ns, b_prog_ns;  // mean in-kernel ns per run, when measured
};

struct InterleavedStats {
  // The B/A ratio over units: n = units, CI with t(n-1). `pairs` counts slice pairs.
  PairedRatio ratio;
  std::vector<AbUnitStats> units;
  // One load a side (no second unit to compare with): the CI is over blocks of consecutive
  // pairs in time, so the place the JIT gave the one load is not sampled.
  bool time_blocks = false;
  // The built-in control: A's loads against each other and B's against each other (units
  // 2i and 2i+1), ln of their geometric means. Its floor is |mean|, in %: how far the same
  // code read from itself in this run. Not |mean| + half-width: the control compares loads
  // measured ~100 ms apart, not adjacent slices, so its interval is 1.5-3x the ratio's, and
  // stacked on the ratio's own interval it hid 2.5 % changes (measured). NaN without two units.
  size_t control_n = 0;
  double control_mean_log = 0, control_half_log = 0;
  double control_floor_pct = 0;
  // Geometric means over all slices, for the report.
  double a_geomean = 0, b_geomean = 0, wall_ratio = 0;
  std::optional<double> prog_ns_ratio;  // B/A of the in-kernel ns per run, when measured
};

// The interval a verdict needs: the stop rule looks at a point after every round (up to
// ~19 looks in 12 s), and each look at 95 % is one more chance to call a change that is not
// there (docs/ab.md).
inline constexpr double kInterleavedConfidence = 0.99;

// `jit64` gives each unit's (A, B) residues by unit index (may be shorter than the units).
InterleavedStats
interleaved_stats(const std::vector<AbSlicePair> &pairs,
                  const std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>> &jit64,
                  double confidence = kInterleavedConfidence);

// The floor a point is judged by (ab_verdict): the user's (`--threshold`, `--floor-from`)
// or the built-in control's, whichever is larger.
double interleaved_floor_pct(const InterleavedStats &s, double user_floor_pct);

// When an interleaved point has measured enough: at least `min_units` units (or time
// blocks) and `min_time_s`, then a CI (at `confidence`) outside the floor (Decided), or,
// from `min_units_no_change` units on, a CI that is not outside it with a half-width
// under the precision (Reached: no change larger than about floor + precision); or the
// time limit.
struct InterleavedRule {
  double confidence = kInterleavedConfidence;
  double precision_pct = 0.5;
  size_t min_units = 4;
  // "No change" is an answer from this many units on (the first block of 8 loads a side,
  // two of 4): fewer units' interval (t with 3 degrees of freedom) says little.
  size_t min_units_no_change = 8;
  double min_time_s = 1.0;
  double max_time_s = 12.0;
};
AbStop interleaved_stop_state(const InterleavedStats &s, bool higher_is_better, double user_floor_pct,
                              const InterleavedRule &rule, double elapsed_s);

}  // namespace bpfbench

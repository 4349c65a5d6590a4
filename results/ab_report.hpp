// `bpfbench ab` results: the points matched between the variants, each point's turns and
// paired ratio, the suite geomeans, and their text / Markdown / JSON forms.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/ab_interleaved.hpp"
#include "results/interference.hpp"
#include "results/floor_file.hpp"  // floors_from_control_json (--floor-from)
#include "results/paired.hpp"
#include "results/stats.hpp"

namespace bpfbench {

// Points of A and B matched by suite and label (file order of A); the rest listed.
struct AbPointKey {
  std::string suite, label;
};
struct AbMatch {
  std::vector<std::pair<size_t, size_t>> pairs;  // index in A, index in B
  std::vector<std::string> only_a, only_b;       // "suite / label" (or the label outside suites)
};
AbMatch match_by_suite_label(const std::vector<AbPointKey> &a, const std::vector<AbPointKey> &b);
std::string point_name(const AbPointKey &k);

// A turn's value of `m` (its per-interval values) as `how` says; the mean when `m` holds
// fewer than 2 intervals.
double ab_turn_statistic(const MetricSummary &m, AbTurnValue how);

struct AbTurn {
  AbSide side = AbSide::A;
  double value = 0;  // the point's main metric over this turn's measured intervals (AbTurnValue)
  // Where this turn's load of the measured program started its JITed code, mod 64
  // (ProgFacts::jit_offset64); absent when unknown (no program, addresses hidden, a guest).
  std::optional<uint32_t> jit_offset64;
  // The turn's intervals of the metric and their mean (0 and 0 when not recorded: a guest's
  // turn, a test's synthetic one).
  size_t intervals = 0;
  double mean = 0;
};

struct AbPointReport {
  std::string suite, label, label_b;  // label_b: B's label when it differs (settings mode)
  std::string metric, unit;
  bool higher_is_better = true;
  AbTurnValue turn_stat = AbTurnValue::Mean;  // how turn_value() values a turn
  AbMethod method = AbMethod::Turns;
  std::string method_note;                    // turns: why the point was not interleaved
  std::optional<AbInterleaved> interleaved;   // interleaved: how, the units, the control, the facts
  std::vector<AbTurn> turns;                  // turns: in the order they ran (ABBA)
  std::vector<double> a, b;                   // turns: per complete pair
  PairedRatio stats;                          // over pairs of turns, or over units (interleaved)
  AbStop stop = AbStop::Continue;
  double floor_pct = 0;  // changes up to this are "within noise" (threshold or control floor)
  Verdict verdict = Verdict::NotComparable;
  std::string note;  // why a point has no verdict (a turn failed, was skipped, interrupted)
  // What ran beside its turns (results/interference.hpp), one line per turn that had any:
  // "turn 3 (B): another bpfbench (pid 1234, 98 % of a CPU) ran during this point".
  std::vector<std::string> interference;

  // Keeps the note of turn `turn` (0-based, in the order they ran) when `i` found
  // anything: the runner calls it with each turn's PointResult::interference.
  void note_interference(size_t turn, AbSide side, const Interference &i);

  // Appends a turn; turns 2k and 2k+1 make pair k. Recomputes `stats` on complete pairs.
  void add_turn(AbSide side, double value, std::optional<uint32_t> jit_offset64 = std::nullopt);
  // When A's and B's turns saw different sets of JIT offsets: "JITed code offsets mod 64:
  // A 8, B 24 40 ..." (a small loop's time can move with them:
  // docs/measurements/2026-12-01-runtime-vs-kernel-bench.md); "" else.
  std::string alignment_note() const;
  // Pairs the statistics rest on: of turns, or of slices (interleaved).
  size_t n_pairs() const { return interleaved ? interleaved->stats.ratio.pairs : a.size(); }
  // A turn's value of `metric` from its summary `m` (null when the point has none), with
  // unit and direction taken from the first turn; or nullopt with `note` saying why
  // ("no hits in B: ..."). `side` names the turn's side.
  std::optional<double> turn_value(const MetricSummary *m, const std::string &side);
  // Sets `verdict` from `stats`, `floor_pct` and the direction; an interleaved point's floor
  // is first raised to its built-in control's (interleaved_floor_pct).
  void judge();
  double speed_change_pct() const { return bpfbench::speed_change_pct(stats, higher_is_better); }
};

struct AbSuiteGeomean {
  std::string suite;
  size_t n = 0;
  double ratio = 0;             // geometric mean of the points' B/A ratios
  double speed_change_pct = 0;  // geometric mean of the points' speed ratios, minus 1, in %
};

struct AbReport {
  std::string a, b;  // what A and B are ("before.bdsl", "x.bdsl --a n=1")
  bool control = false;
  AbStopRule rule;
  AbTurnValue turn_value = AbTurnValue::Mean;
  std::vector<AbPointReport> points;
  std::vector<std::string> only_a, only_b;
  std::string timing_note;  // "emulated: timings not comparable (...)" for TCG guest turns; "" otherwise
  std::vector<AbSuiteGeomean> geomeans() const;
  // Control runs: the largest per-point floor (control_floor_pct), NaN without one.
  double noise_floor_pct() const;
  // The largest slowdown among "slower" points (a CI that excludes no change), 0 if none.
  double worst_regression_pct() const;
};

// `--fail-on-regression`'s message (regression_message): the worst "slower" point by name.
std::string ab_regression_message(const AbReport &r, double limit_pct);

std::string ab_to_text(const AbReport &r);
std::string ab_to_markdown(const AbReport &r);
nlohmann::json ab_to_json(const AbReport &r);

// The floor of one point: its own, else the control's overall one, else 0.
double floor_for(const std::map<std::string, double> &floors, const AbPointKey &k);

}  // namespace bpfbench

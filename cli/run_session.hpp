// `bpfbench run` after the pipeline: the plan's points measured round-robin, each point's
// lines printed, result files kept up to date, the exit code decided once.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/calibration.hpp"
#include "cli/run_commands.hpp"
#include "cli/run_observers.hpp"
#include "cli/run_outputs.hpp"
#include "cli/suite_tables.hpp"
#include "compiler/pipeline.hpp"
#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

class RunSession {
 public:
  // calibration_ns: the calibration point's length, 0 = none (cli/calibration.hpp).
  RunSession(const RunArgs &a, const Frontend &fe, CompiledPrograms programs, StopSource &stop,
             RunObservers observers = {}, int64_t calibration_ns = 0);

  // The start calibration, then round-robin over the selected points (one round unless
  // `rounds`/--rounds), then the end calibration unless stopped. A point is final after
  // its last round (or its first skip, failure or interruption).
  void measure();
  // Stopped between rounds: the points with rounds behind them report those; then the
  // unfinished suite tables.
  void finish_unfinished();
  // Writes the result files' last state and returns the exit code; both are decided from
  // one reading of the stop state (a signal after it changes neither).
  int conclude();

 private:
  struct Tally {
    int failed = 0, ran = 0, skipped = 0, unmet = 0;  // unmet: points with a failed `expect`
  };

  static std::vector<const PlanPoint *> all_points(const RunPlan &plan);
  void measure_points();
  RunOptions make_options(const RunArgs &a);
  // One round of one point: its reported result when that was its last round, else nullopt.
  std::optional<PointResult> run_round(const PlanPoint &p, int round);
  // The result as reported: baseline columns and `expect` applied to the measured one.
  PointResult reported(const PlanPoint &p) const;
  // A point's final lines: its summary (rounds combined), the tally, its suite row.
  void finish_point(const PlanPoint &p, const PointResult &r);
  void print_final_lines(const PlanPoint &p, const PointResult &r);
  void print_prog_facts(const PointResult &r) const;
  // The latency histogram, profile and hardware-counter lines of a measured point; a
  // profile that failed is said once and profiling ends for the run.
  void print_observations(const PointResult &r);
  void print_kernel_batch_timing(const PlanPoint &p, const PointResult &r);
  std::string location(const SourceRange &r) const;
  // One calibration point ("start" / "end"), recorded in the results; a failed one is a
  // warning (the run's own numbers do not depend on it).
  void calibrate(const char *when);

  const RunArgs &args_;
  const Frontend &fe_;
  StopSource &stop_;
  std::map<size_t, std::vector<uint8_t>> objects_;  // plan index -> compiled program
  const std::vector<uint8_t> no_object_;            // programs that load nothing (trigger base)
  FeatureProber prober_;
  std::vector<const PlanPoint *> points_;  // what this run measures, in plan order
  // Benches that sweep producers: their rows add the per-producer rate (the seed's M/s/cpu).
  std::map<size_t, std::set<int>> producers_of_;  // bench index -> producer counts
  RunOutputs outputs_;
  RunObservers observers_;  // before opts_: make_options points into it
  RunOptions opts_;
  Tally tally_;
  SuiteTables tables_;
  std::map<size_t, std::vector<PointResult>> round_runs_;  // point index -> its rounds so far
  std::map<size_t, PointResult> measured_;                 // point index -> its result (rounds combined)
  std::set<size_t> finished_;
  std::optional<Calibrator> calibrator_;
  Calibration calibration_;
  std::map<size_t, std::vector<NoiseFacts>> noise_;  // point index -> each round's noise facts
};

}  // namespace bpfbench::cli

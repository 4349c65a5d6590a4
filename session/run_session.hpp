// `bpfbench run` after the pipeline: the plan's points measured round-robin, rounds
// combined, baselines and `expect` applied, the result files kept up to date, the exit
// code decided once. What happens is told to a RunListener (cli/run_printer.hpp prints it;
// tests record it).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/pipeline.hpp"
#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "runtime/stop.hpp"
#include "session/calibration.hpp"
#include "session/results_files.hpp"
#include "session/run_args.hpp"
#include "session/run_observers.hpp"

namespace bpfbench {

// How the points ended, counted at their final result.
struct RunTally {
  int failed = 0, ran = 0, skipped = 0;
  int unmet = 0;  // points with a failed `expect`
};

// What decided the exit code, first that applies.
enum class RunEnd {
  Interrupted,  // a stop signal: its exit code (130, 143, ...)
  Failed,       // a point failed: kExitBadInput
  Unmet,        // an `expect` failed: kExitPartial
  FilesBehind,  // every point measured, a results file not written: kExitPartial
  Ok,
};

struct RunOutcome {
  RunEnd end = RunEnd::Ok;
  int exit_code = 0;
  RunTally tally;
};

// Everything a run says, in the order it happens, from the thread that called measure().
// The default of each is to say nothing.
class RunListener {
 public:
  virtual ~RunListener() = default;
  // measure() begins: the run's clock starts (the session's setup is behind it).
  virtual void run_started() {}
  // A calibration point measured, or why it did not (a stop says nothing).
  virtual void calibrated(const CalibrationPoint &) {}
  virtual void calibration_failed(const std::string &) {}
  // Round `round` (from 1) of `p` is about to be set up.
  virtual void round_starting(const PlanPoint &, int) {}
  // Its programs are loaded and attached; then each interval's sample.
  virtual void started(const PlanPoint &) {}
  virtual void sample(const PlanPoint &, int /*iter*/, const Sample &, bool /*warmup*/) {}
  // A round of a point measured in rounds (PlanPoint::rounds > 1), before the rounds are
  // combined.
  virtual void round_done(const PlanPoint &, int /*round*/, const PointResult &) {}
  // After every round: what the point reports so far (rounds combined), before the results
  // files are rewritten with it.
  virtual void point_recorded(const PlanPoint &, const PointResult &) {}
  // A point's final result (its last round, or what a stop left of it). `profiling`: the run
  // still profiles (a profile that failed ends profiling after this call).
  virtual void point_final(const PlanPoint &, const PointResult &, bool /*profiling*/) {}
  // After the points a stop left unfinished were finalised.
  virtual void points_done() {}
  // A results file that could not be written (once per file; the run goes on).
  virtual void file_error(const std::string &) {}
};

// The metric specs of a point's program (family metrics with its overrides).
std::vector<MetricSpec> point_metric_specs(const Frontend &fe, const PlanPoint &p);

class RunSession {
 public:
  // calibration_ns: the calibration point's length, 0 = none (session/calibration.hpp).
  RunSession(const RunArgs &a, const Frontend &fe, CompiledPrograms programs, StopSource &stop, RunListener &listener,
             RunObservers observers = {}, int64_t calibration_ns = 0);

  // The start calibration, then round-robin over the selected points (one round unless
  // `rounds`/--rounds), then the end calibration unless stopped. A point is final after
  // its last round (or its first skip, failure or interruption).
  void measure();
  // Stopped between rounds: the points with rounds behind them report those.
  void finish_unfinished();
  // Writes the result files' last state and decides the exit code; both from one reading
  // of the stop state (a signal after it changes neither).
  RunOutcome conclude();

 private:
  static std::vector<const PlanPoint *> all_points(const RunPlan &plan);
  void measure_points();
  RunOptions make_options(const RunArgs &a);
  // One round of one point: its reported result when that was its last round, else nullopt.
  std::optional<PointResult> run_round(const PlanPoint &p, int round);
  // The result as reported: baseline columns and `expect` applied to the measured one.
  PointResult reported(const PlanPoint &p) const;
  // A point's final result: counted, told, and a failed profile ends profiling.
  void finish_point(const PlanPoint &p, const PointResult &r);
  void count(const PointResult &r);
  // One calibration point ("start" / "end"), recorded in the results; a failed one is told
  // (the run's own numbers do not depend on it).
  void calibrate(const char *when);

  const Frontend &fe_;
  StopSource &stop_;
  RunListener &listener_;
  std::map<size_t, std::vector<uint8_t>> objects_;  // plan index -> compiled program
  const std::vector<uint8_t> no_object_;            // programs that load nothing (trigger base)
  FeatureProber prober_;
  std::vector<const PlanPoint *> points_;  // what this run measures, in plan order
  ResultsFiles files_;
  RunObservers observers_;  // before opts_: make_options points into it
  RunOptions opts_;
  RunTally tally_;
  std::map<size_t, std::vector<PointResult>> round_runs_;  // point index -> its rounds so far
  std::map<size_t, PointResult> measured_;                 // point index -> its result (rounds combined)
  std::set<size_t> finished_;
  std::optional<Calibrator> calibrator_;
  Calibration calibration_;
  std::map<size_t, std::vector<NoiseFacts>> noise_;  // point index -> each round's noise facts
};

}  // namespace bpfbench

// `bpfbench run`'s progress on stderr: on a terminal a status line redrawn in place (point
// i of n, elapsed, ETA, samples so far), else one line per point unless quiet.
#pragma once

#include <chrono>
#include <string>

#include "compiler/bdsl/plan.hpp"
#include "results/point_result.hpp"

namespace bpfbench::cli {

class RunStatus {
 public:
  // Runs counted from the plan: a point runs PlanPoint::rounds times, adaptive ones maybe more.
  RunStatus(const RunPlan &plan, bool quiet);
  ~RunStatus();
  RunStatus(const RunStatus &) = delete;
  RunStatus &operator=(const RunStatus &) = delete;

  // The run's clock starts now (elapsed and ETA count from here).
  void restart();
  void point_started(const PlanPoint &p);
  // After a sample (the caller printed its line first, after clear()).
  void sampled(bool warmup);
  // The point's run is over: its time goes into the ETA, the status line is cleared.
  void point_done(const PlanPoint &p, const PointResult &r);
  // Takes the status line off the terminal before other text is printed.
  void clear();

 private:
  void draw(const std::string &extra);
  double since(std::chrono::steady_clock::time_point t) const;
  // ETA: fixed and adaptive points scale differently (adaptive ones may run to the max).
  double eta() const;

  bool quiet_, tty_;
  size_t total_ = 0, started_ = 0, measured_ = 0;
  double remaining_nominal_[2] = {0, 0}, done_nominal_[2] = {0, 0}, done_actual_[2] = {0, 0};
  double point_nominal_ = 0;
  bool point_adaptive_ = false;
  std::chrono::steady_clock::time_point run_start_, point_start_;
  std::string label_;
  bool shown_ = false;
};

}  // namespace bpfbench::cli

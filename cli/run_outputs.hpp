// `bpfbench run` side outputs: --json/--csv/--markdown after every point, progress status.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/pipeline.hpp"
#include "results/results.hpp"
#include "runtime/run_point.hpp"

namespace bpfbench::cli {

struct ExportPaths {
  std::string json, csv, markdown;  // "" = not requested
};

// Before anything runs: every export path passes check_output_paths (runtime/atomic_file.hpp)
// against the run's inputs (the .bdsl, its includes, the families' manifests and
// templates). False after printing why.
bool export_paths_ok(const ExportPaths &paths, const Frontend &fe);

class RunOutputs {
 public:
  using SampleCallback = std::function<void(const PlanPoint &, int, const Sample &, bool)>;

  // `only`: the --only filter (progress counts the runs of the points it lets through: a
  // point runs PlanPoint::rounds times, adaptive ones maybe more).
  RunOutputs(ExportPaths paths, bool quiet, const Frontend &fe, std::vector<ProgramHash> programs);
  ~RunOutputs();

  // The per-interval callback, wrapped so a TTY status line is cleared before `inner`
  // prints and redrawn after it.
  SampleCallback wrap(SampleCallback inner);

  void point_started(const PlanPoint &p);
  // Records the result (replacing the point's earlier rounds) and rewrites every export
  // atomically; prints the point's warnings. A point cut short by a stop is not recorded:
  // the files hold only measured points (and rounds).
  void point_done(const PlanPoint &p, const PointResult &r, const std::optional<NoiseFacts> &noise = std::nullopt);
  // Records the run's calibration points so far and rewrites every export.
  void calibration_done(const Calibration &c);
  // The last write: marks the document complete (or interrupted).
  void finish(bool complete, bool interrupted);
  // Whether some export could not be written (the message was printed): the run's
  // numbers are then only in the text output.
  bool write_failed() const { return !failed_paths_.empty(); }

 private:
  void write_all();
  void draw_status(const std::string &extra);
  void clear_status();
  double since(std::chrono::steady_clock::time_point t) const;

  ExportPaths paths_;
  bool quiet_, tty_;
  ResultsDoc doc_;
  std::map<size_t, std::string> program_sha_;  // plan index -> sha256 of its C
  size_t total_ = 0, started_ = 0, measured_ = 0;
  // ETA: fixed and adaptive points scale differently (adaptive ones may run to the max).
  double eta() const;
  double remaining_nominal_[2] = {0, 0}, done_nominal_[2] = {0, 0}, done_actual_[2] = {0, 0};
  double point_nominal_ = 0;
  bool point_adaptive_ = false;
  std::chrono::steady_clock::time_point run_start_, point_start_;
  std::string label_;
  bool status_shown_ = false;
  std::set<std::string> failed_paths_;  // each named once on stderr
};

}  // namespace bpfbench::cli

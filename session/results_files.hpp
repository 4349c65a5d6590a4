// `bpfbench run`'s --json/--csv/--markdown: the results document of the run so far, every
// file rewritten atomically after each point (and calibration), so a run cut short keeps
// what it measured.
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

namespace bpfbench {

struct ExportPaths {
  std::string json, csv, markdown;  // "" = not requested
};

// Before anything runs: every export path passes check_output_paths (util/atomic_file.hpp)
// against the run's inputs (the .bdsl, its includes, the families' manifests and
// templates). Why not, "" when they do.
std::string export_paths_problem(const ExportPaths &paths, const Frontend &fe);

class ResultsFiles {
 public:
  // `on_error`: a file that could not be written, said once per file ("cannot write …");
  // the run goes on measuring.
  ResultsFiles(ExportPaths paths, const Frontend &fe, std::vector<ProgramHash> programs,
               std::function<void(const std::string &)> on_error);

  // Starts the clock of the point's elapsed time.
  void point_started();
  // Records the result (replacing the point's earlier rounds) and rewrites every export
  // atomically. A point cut short by a stop is not recorded: the files hold only measured
  // points (and rounds).
  void point_done(const PlanPoint &p, const PointResult &r, const std::optional<NoiseFacts> &noise = std::nullopt);
  // Records the run's calibration points so far and rewrites every export.
  void calibration_done(const Calibration &c);
  // The last write: marks the document complete (or interrupted).
  void finish(bool complete, bool interrupted);
  // Whether some export could not be written (on_error said it): the run's numbers are
  // then only in the text output.
  bool write_failed() const { return !failed_paths_.empty(); }

 private:
  void write_all();
  void fail(const std::string &key, const std::string &message);

  ExportPaths paths_;
  ResultsDoc doc_;
  std::map<size_t, std::string> program_sha_;  // plan index -> sha256 of its C
  std::chrono::steady_clock::time_point point_start_;
  std::function<void(const std::string &)> on_error_;
  std::set<std::string> failed_paths_;  // each said once
};

}  // namespace bpfbench

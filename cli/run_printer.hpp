// `bpfbench run`'s text: what the run session tells (session/run_session.hpp) printed as
// the kernel bench prints it — per-interval lines, each point's summary and observations,
// the suite tables, the progress status on stderr and the closing line.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/run_status.hpp"
#include "cli/suite_tables.hpp"
#include "session/run_session.hpp"

namespace bpfbench::cli {

// "calibration (start): 2.3456 M/s ±0.51% (10 samples); other processes 3.1%, load 0.42"
std::string calibration_line(const CalibrationPoint &c);

class RunPrinter : public RunListener {
 public:
  RunPrinter(const RunArgs &a, const Frontend &fe);

  void run_started() override;
  void calibrated(const CalibrationPoint &c) override;
  void calibration_failed(const std::string &why) override;
  void round_starting(const PlanPoint &p, int round) override;
  void started(const PlanPoint &p) override;
  void sample(const PlanPoint &p, int iter, const Sample &s, bool warmup) override;
  void round_done(const PlanPoint &p, int round, const PointResult &r) override;
  void point_recorded(const PlanPoint &p, const PointResult &r) override;
  void point_final(const PlanPoint &p, const PointResult &r, bool profiling) override;
  void points_done() override;
  void file_error(const std::string &why) override;

  // The closing line on stderr (none when all went well); returns the outcome's exit code.
  int conclude(const RunOutcome &o);

 private:
  void print_final_lines(const PlanPoint &p, const PointResult &r, bool profiling);
  void print_prog_facts(const PointResult &r) const;
  // The latency histogram, profile and hardware-counter lines of a measured point; a
  // profile that failed is said once (the session then ends profiling for the run).
  void print_observations(const PointResult &r, bool profiling);
  void print_kernel_batch_timing(const PlanPoint &p, const PointResult &r);
  std::string location(const SourceRange &r) const;

  const RunArgs &args_;
  const Frontend &fe_;
  RunStatus status_;
  SuiteTables tables_;
  // Benches that sweep producers: their rows add the per-producer rate (the seed's M/s/cpu).
  std::map<size_t, std::set<int>> producers_of_;  // bench index -> producer counts
  // The progress lines' metric specs, looked up when a new point starts sampling.
  std::optional<size_t> specs_point_;
  std::vector<MetricSpec> specs_;
};

}  // namespace bpfbench::cli

// `run --calibration`: a short point of the trigger family's `base` loop (getpgid from
// one producer, no BPF program) at the start and at the end of a run, with the machine's
// noise facts; `compare` divides by it or refuses a verdict (results/drift.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "compiler/pipeline.hpp"
#include "results/noise_facts.hpp"
#include "runtime/probe.hpp"
#include "runtime/stop.hpp"

namespace bpfbench {

// The shortest and longest --calibration (at least 10 intervals of the 10 ms minimum).
inline constexpr int64_t kMinCalibrationNs = 100'000'000;
inline constexpr int64_t kMaxCalibrationNs = 60'000'000'000;

class Calibrator {
 public:
  // Builds the calibration plan from the shipped families (not --templates: every run's
  // calibration must be the same loop). Sampled in 10 intervals, no warmup.
  explicit Calibrator(int64_t duration_ns);
  // Why there is no calibration plan ("" = there is one).
  const std::string &error() const { return error_; }
  // One calibration point, `when` = "start" | "end"; nullopt (why in `error`) when it did
  // not measure (a stop, a failure).
  std::optional<CalibrationPoint> measure(const std::string &when, FeatureProber *prober, StopSource &stop);
  double duration_s() const { return double(duration_ns_) / 1e9; }

 private:
  int64_t duration_ns_;
  std::unique_ptr<Frontend> fe_ = std::make_unique<Frontend>();
  std::string error_;
  const std::vector<uint8_t> no_object_;  // base loads no program
};

}  // namespace bpfbench

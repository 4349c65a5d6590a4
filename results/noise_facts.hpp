// Machine-noise facts of one measured stretch (a point, a calibration point), as data:
// what the other processes, the hypervisor and the clock did while bpfbench measured.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

// NaN = not readable on this machine (no cpufreq in most VMs, no steal column).
struct NoiseFacts {
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double wall_s = 0;             // how long the stretch was
  double load1 = kNone;          // /proc/loadavg, 1-minute average, at the end
  double other_cpu_pct = kNone;  // busy CPU time of everything but this process, % of all CPUs' time
  double steal_pct = kNone;      // steal time, % of all CPUs' time
  double cpufreq_mhz = kNone;    // mean scaling_cur_freq over the CPUs, start and end
};

// JSON: NaN fields are null (so a reader tells "not readable" from 0).
nlohmann::json noise_to_json(const NoiseFacts &n);

// The same stretch measured in several parts (rounds): the worst other/steal/load share,
// the mean frequency, the summed wall time.
NoiseFacts combine_noise(const std::vector<NoiseFacts> &parts);

// A calibration point of a run (session/calibration.hpp): the trigger family's `base` loop,
// measured at the start and at the end of `bpfbench run`.
struct CalibrationPoint {
  std::string when;  // "start" | "end"
  std::string metric, unit;
  double mean = 0, ci95 = 0;
  size_t n = 0;
  NoiseFacts noise;
};

struct Calibration {
  double duration_s = 0;
  std::vector<CalibrationPoint> points;  // start, end (end is missing when interrupted)
};

nlohmann::json calibration_to_json(const Calibration &c);

}  // namespace bpfbench

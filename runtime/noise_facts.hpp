// Machine-noise facts around a measured stretch: two snapshots of /proc and /sys (before,
// after) and the pure arithmetic between them (results/noise_facts.hpp holds the data).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "results/noise_facts.hpp"

namespace bpfbench {

// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ).
struct ProcStatCpu {
  uint64_t total = 0, idle = 0, steal = 0;  // idle includes iowait
  bool has_steal = false;
  int ncpus = 0;  // the cpuN lines
};
std::optional<ProcStatCpu> parse_proc_stat_cpu(const std::string &text);

// utime + stime of a /proc/<pid>/stat line (fields 14 and 15, after the comm), in clock
// ticks: every thread of the process, BPF programs its threads triggered included.
std::optional<uint64_t> parse_stat_ticks(const std::string &text);

// The 1-minute load average of /proc/loadavg.
std::optional<double> parse_load1(const std::string &text);

struct NoiseSnapshot {
  double t_s = 0;                             // CLOCK_MONOTONIC
  std::string proc_stat, self_stat, loadavg;  // "" when unreadable
  std::vector<double> cur_freq_khz;           // each readable cpu*/cpufreq/scaling_cur_freq
};

// Reads <root>/proc/stat, <root>/proc/self/stat, <root>/proc/loadavg and the CPUs'
// scaling_cur_freq ("" root = the real ones).
NoiseSnapshot take_noise_snapshot(const std::string &root = "");

// What happened between two snapshots; a fact that cannot be computed (an unreadable
// file, no ticks between them) stays NaN.
NoiseFacts noise_between(const NoiseSnapshot &before, const NoiseSnapshot &after);

}  // namespace bpfbench
